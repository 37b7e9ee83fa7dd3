package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
	"github.com/thinkcap/thinkcap/workload"
)

// Options is everything one load test needs. The comments name the
// `thinkcap loadtest` flag each field comes from; Validate's errors name
// them too.
type Options struct {
	// The server.
	URL      string // --url
	Model    string // --model; "" sends to the server's only model
	Endpoint string // --endpoint: chat or completions
	// APIKey is the key's value (read from the environment, never
	// written); APIKeyEnv names the variable, for the preflight's message.
	APIKey, APIKeyEnv string
	CACert            string        // --ca-cert
	HeaderTimeout     time.Duration // --header-timeout
	RequestTimeout    time.Duration // --request-timeout
	StallTimeout      time.Duration // --stall-timeout (0: none)
	NoReasoningParser bool          // --no-reasoning-parser

	// The load. Requests is the schedule, every request with an ID
	// (EnsureIDs) and the what-if transforms applied.
	Requests    []workload.Request
	Replay      bool          // the requests replay a log (--workload)
	Concurrency int           // --concurrency: closed loop when > 0
	MaxInFlight int           // --max-in-flight
	Duration    time.Duration // --duration (0: no limit)
	// DurationGiven says --duration was given: 0 given is refused.
	DurationGiven bool
	Warmup        Warmup  // --warmup
	ForceLength   string  // --force-length: auto, on or off
	SaveText      float64 // --save-text
	Seed          int64   // --seed
	// ThinkBudget and BudgetPolicy are the what-if's --think-budget and
	// --budget-policy: a forced closure is sent as vLLM's own thinking
	// budget.
	ThinkBudget  int
	BudgetPolicy string
	// History is the what-if's --history: how a session's later turns send
	// the earlier ones as messages.
	History workload.History
	// Route is the what-if's --route, which a load test refuses: it drives
	// one endpoint.
	Route string

	// The run directory and what is shown.
	Out              string        // --out ("": a timestamped directory)
	Force            bool          // --force
	ScrapeInterval   time.Duration // --scrape-interval (0: never)
	ProgressInterval time.Duration // --progress-interval
	JSON             bool          // -o json
	// Args is the command line, written to metadata.json with the key
	// redacted.
	Args []string
	// Stdout gets the prediction (and Write the summary); Stderr the
	// start, progress and end lines and warnings.
	Stdout, Stderr io.Writer

	// The checks before and after the load.
	NoPreflight            bool     // --no-preflight
	MaxConsecutiveFailures int      // --max-consecutive-failures
	MaxFailureRate         *float64 // --max-failure-rate (nil: not given)
	Thresholds             []string // --threshold
	// Goodput is --goodput: per-request SLOs (analysis.ParseGoodput); the
	// summary counts the requests that met them all.
	Goodput string
	// SaveResult is --save-result: a file to write the run to as `vllm
	// bench serve --save-result` does (saveresult.go), with Metadata
	// (--metadata KEY=VALUE) and the latency Percentiles (--percentiles;
	// default vLLM's 99).
	SaveResult  string
	Metadata    []string
	Percentiles []float64
	// Headers (--header) go with every request; their values are secrets,
	// kept out of every file. ExtraBody (--extra-body) is merged into every
	// request body.
	Headers   []loadgen.Header
	ExtraBody map[string]json.RawMessage
	// Report is --report: the run as one self-contained HTML file.
	Report string
	// RampUp (--ramp-up) raises the load over its duration: an open loop's
	// schedule stretched onto it, a closed loop's workers started along
	// it; the requests scheduled in it are left out of the statistics, as
	// warm-up. MaxRate (--max-rate) caps an open loop's sending rate.
	RampUp  *workload.Ramp
	MaxRate float64
	// Engine is --engine: auto (detected from /v1/models or /metrics),
	// vllm or sglang.
	Engine string
	// Shard (--shard I/N) sends only this shard's part of the schedule:
	// every N-th request from the I-th (a follow-up goes with the request
	// it follows). Only shard 0 scrapes /metrics unless ScrapeAllShards
	// (--scrape-all-shards). StartAt (--start-at) holds the schedule until
	// that wall time, so that shards on other machines begin together.
	Shard           *loadgen.Shard
	StartAt         time.Time
	ScrapeAllShards bool
	// PromptTexts are a dataset's prompts by request ID (--dataset-name):
	// sent as given, never written unless --save-text.
	PromptTexts map[string]string
	Predict     *Predict // --predict (nil: off)
}

// Predict is --predict: simulate the planned requests on the server's
// deployment before the load, and verify the run against it after.
type Predict struct {
	// Config is the deployment to simulate for the served model (the
	// deployment flags); its errors are returned as they are.
	Config func(model string) (sim.Config, error)
	// Explicit says which deployment flags the user set: they win over
	// what the server says (verify.Configure).
	Explicit    verify.Explicit
	Tolerances  map[string]float64 // --tolerance
	MinRequests int                // --min-requests
}

// Warmup is --warmup: the first Requests requests, or those scheduled in
// the first For, are left out of the statistics.
type Warmup struct {
	Spec     string // as given, for metadata.json
	Requests int
	For      time.Duration
}

// ParseWarmup parses --warmup: a request count or a duration.
func ParseWarmup(s string) (Warmup, error) {
	n, d, err := loadgen.ParseWarmup(s)
	if err != nil {
		return Warmup{}, fmt.Errorf("--warmup: %w", err)
	}
	return Warmup{Spec: s, Requests: n, For: d}, nil
}

// Validate checks the options before any traffic is read; each error
// names its flag. (--threshold, --max-failure-rate and
// --max-consecutive-failures are checked by Run, once the traffic is.)
func (o *Options) Validate() error {
	switch {
	case o.URL == "":
		return fmt.Errorf("--url is required (the vLLM server, e.g. http://127.0.0.1:8000)")
	case o.Model == "" && o.NoPreflight:
		return fmt.Errorf("--model is required with --no-preflight (without it, the server's only model is used)")
	case o.Endpoint != "chat" && o.Endpoint != "completions":
		return fmt.Errorf("--endpoint %q: valid endpoints are chat, completions", o.Endpoint)
	case o.ForceLength != "auto" && o.ForceLength != "on" && o.ForceLength != "off":
		return fmt.Errorf("--force-length %q: valid values are auto, on, off", o.ForceLength)
	case !(o.SaveText >= 0 && o.SaveText <= 1):
		return fmt.Errorf("--save-text must be a fraction in [0, 1], got %g", o.SaveText)
	case o.MaxInFlight < 0:
		return fmt.Errorf("--max-in-flight must be at least 0 (0: no cap), got %d", o.MaxInFlight)
	case o.Duration < 0 || o.Duration == 0 && o.DurationGiven:
		return fmt.Errorf("--duration must be positive (leave it out for no limit), got %v", o.Duration)
	case o.ScrapeInterval < 0:
		return fmt.Errorf("--scrape-interval must be at least 0 (0: never), got %v", o.ScrapeInterval)
	case o.ProgressInterval < 0:
		return fmt.Errorf("--progress-interval must be at least 0 (0: never), got %v", o.ProgressInterval)
	case o.HeaderTimeout <= 0:
		return fmt.Errorf("--header-timeout must be positive, got %v", o.HeaderTimeout)
	case o.RequestTimeout <= 0:
		return fmt.Errorf("--request-timeout must be positive, got %v", o.RequestTimeout)
	case o.StallTimeout < 0:
		return fmt.Errorf("--stall-timeout must be at least 0 (0: no limit), got %v", o.StallTimeout)
	case o.MaxRate < 0 || o.MaxRate > 0 && o.Concurrency > 0:
		return fmt.Errorf("--max-rate caps an open loop's sending rate: a positive rate, without --concurrency")
	case o.Route != "":
		return fmt.Errorf("--route splits traffic between simulated pools; a load test drives one endpoint")
	case o.Predict != nil && o.JSON:
		return fmt.Errorf("--predict prints tables; for JSON run thinkcap verify RUN_DIR -o json after the load test")
	}
	return nil
}

// checks parses --threshold and --max-failure-rate, and checks
// --max-consecutive-failures: bad input before anything is sent.
func (o *Options) checks() ([]analysis.Threshold, error) {
	if o.MaxConsecutiveFailures < 0 {
		return nil, fmt.Errorf("--max-consecutive-failures must be at least 0 (0: never abort), got %d", o.MaxConsecutiveFailures)
	}
	ts, err := analysis.ParseThresholds(o.Thresholds)
	if err != nil {
		return nil, fmt.Errorf("--threshold: %w", err)
	}
	if o.Goodput != "" {
		if _, err := analysis.ParseGoodput(o.Goodput); err != nil {
			return nil, fmt.Errorf("--goodput: %w", err)
		}
	}
	if _, err := ParseMetadata(o.Metadata); err != nil {
		return nil, err
	}
	for _, p := range o.Percentiles {
		if !(p > 0 && p <= 100) {
			return nil, fmt.Errorf("--percentiles: %g is not a percentile in (0, 100]", p)
		}
	}
	for _, f := range []struct{ flag, path string }{{"--save-result", o.SaveResult}, {"--report", o.Report}} {
		if f.path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(f.path)); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s %s: its directory does not exist", f.flag, f.path)
		}
	}
	for _, t := range ts {
		if (t.Metric == analysis.MetricGoodputFraction || t.Metric == analysis.MetricGoodputRequests) && o.Goodput == "" {
			return nil, fmt.Errorf("--threshold %s: goodput is counted against --goodput's SLOs; give them (e.g. --goodput ttft=2s,tpot=50ms)", t.Text)
		}
	}
	if o.MaxFailureRate != nil {
		t, err := analysis.MaxFailureRate(*o.MaxFailureRate)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}
