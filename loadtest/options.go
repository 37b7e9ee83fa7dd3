package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
	"github.com/thinkcap/thinkcap/workload"
)

// Options is everything one load test needs, each value parsed. The
// comments name the `thinkcap loadtest` flag each field comes from;
// Validate's errors name the field (inputerr), which the command maps to
// its flag.
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
	// (EnsureIDs) and the what-if transforms applied; nil: Run makes it
	// from Traffic (with the profiles of Catalog), Dataset and WhatIf, and
	// sets Replay.
	Requests    []workload.Request
	Traffic     workload.TrafficOptions // --workload, --traffic, --rate, --prompt-tokens, ...
	Catalog     *profiles.Catalog       // the traffic profiles (--profiles)
	Dataset     Dataset                 // --dataset-name and its flags
	WhatIf      workload.WhatIfOptions  // --think-budget, --effort, --escalate, --history
	Replay      bool                    // the requests replay a log (--workload)
	Concurrency int                     // --concurrency: closed loop when > 0
	MaxInFlight int                     // --max-in-flight
	Duration    time.Duration           // --duration (0: no limit)
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
	NoPreflight            bool                 // --no-preflight
	MaxConsecutiveFailures int                  // --max-consecutive-failures
	MaxFailureRate         *float64             // --max-failure-rate (nil: not given)
	Thresholds             []analysis.Threshold // --threshold (analysis.ParseThresholds)
	// Goodput is --goodput: per-request SLOs (analysis.ParseGoodput); the
	// summary counts the requests that met them all. nil: none.
	Goodput []analysis.GoodputSLO
	// SaveResult is --save-result: a file to write the run to as `vllm
	// bench serve --save-result` does (saveresult.go), with Metadata
	// (--metadata KEY=VALUE, ParseMetadata) and the latency Percentiles
	// (--percentiles; default vLLM's 99).
	SaveResult  string
	Metadata    [][2]string
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
	// PromptTexts are a dataset's prompts by request ID (set with the
	// Dataset's requests): sent as given, never written unless --save-text.
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
		return Warmup{}, inputerr.Field("Warmup", err)
	}
	return Warmup{Spec: s, Requests: n, For: d}, nil
}

// Validate checks the options before any traffic is read and reports
// every problem at once, each an inputerr.Error naming its field (the
// command names the flag).
func (o *Options) Validate() error {
	var errs inputerr.List
	if o.URL == "" {
		errs.Fieldf("URL", "is required (the vLLM server, e.g. http://127.0.0.1:8000)")
	}
	if o.Model == "" && o.NoPreflight {
		errs.Fieldf("Model", "is required with %s (without it, the server's only model is used)", inputerr.Name("NoPreflight"))
	}
	if o.Endpoint != "chat" && o.Endpoint != "completions" {
		errs.Fieldf("Endpoint", "%q: valid endpoints are chat, completions", o.Endpoint)
	}
	if o.ForceLength != "auto" && o.ForceLength != "on" && o.ForceLength != "off" {
		errs.Fieldf("ForceLength", "%q: valid values are auto, on, off", o.ForceLength)
	}
	if !(o.SaveText >= 0 && o.SaveText <= 1) {
		errs.Fieldf("SaveText", "must be a fraction in [0, 1], got %g", o.SaveText)
	}
	if o.MaxInFlight < 0 {
		errs.Fieldf("MaxInFlight", "must be at least 0 (0: no cap), got %d", o.MaxInFlight)
	}
	if o.Duration < 0 || o.Duration == 0 && o.DurationGiven {
		errs.Fieldf("Duration", "must be positive (leave it out for no limit), got %v", o.Duration)
	}
	o.validateTimes(&errs)
	if o.MaxRate < 0 || o.MaxRate > 0 && o.Concurrency > 0 {
		errs.Fieldf("MaxRate", "caps an open loop's sending rate: a positive rate, without %s", inputerr.Name("Concurrency"))
	}
	if o.Route != "" {
		errs.Fieldf("Route", "splits traffic between simulated pools; a load test drives one endpoint")
	}
	switch o.Engine {
	case "", "auto", loadgen.EngineVLLM, loadgen.EngineSGLang:
	default:
		errs.Fieldf("Engine", "%q: want auto, vllm or sglang", o.Engine)
	}
	if o.ScrapeAllShards && o.Shard == nil {
		errs.Fieldf("ScrapeAllShards", "only matters with %s", inputerr.Name("Shard"))
	}
	if o.Predict != nil && o.JSON {
		errs.Fieldf("Predict", "prints tables; for JSON run thinkcap verify RUN_DIR -o json after the load test")
	}
	o.validateChecks(&errs)
	return errs.Err()
}

// validateTimes checks the intervals and timeouts.
func (o *Options) validateTimes(errs *inputerr.List) {
	for _, d := range []struct {
		field    string
		value    time.Duration
		positive bool
		zero     string // what 0 means when allowed
	}{
		{"ScrapeInterval", o.ScrapeInterval, false, "never"},
		{"ProgressInterval", o.ProgressInterval, false, "never"},
		{"HeaderTimeout", o.HeaderTimeout, true, ""},
		{"RequestTimeout", o.RequestTimeout, true, ""},
		{"StallTimeout", o.StallTimeout, false, "no limit"},
	} {
		switch {
		case d.positive && d.value <= 0:
			errs.Fieldf(d.field, "must be positive, got %v", d.value)
		case d.value < 0:
			errs.Fieldf(d.field, "must be at least 0 (0: %s), got %v", d.zero, d.value)
		}
	}
}

// validateChecks checks the options that judge and record the run: the
// breaker, the thresholds against the goodput SLOs, the percentiles and
// the files' directories.
func (o *Options) validateChecks(errs *inputerr.List) {
	if o.MaxConsecutiveFailures < 0 {
		errs.Fieldf("MaxConsecutiveFailures", "must be at least 0 (0: never abort), got %d", o.MaxConsecutiveFailures)
	}
	for _, t := range o.Thresholds {
		if (t.Metric == analysis.MetricGoodputFraction || t.Metric == analysis.MetricGoodputRequests) && o.Goodput == nil {
			errs.Fieldf("Thresholds", "%s: goodput is counted against %s's SLOs; give them (e.g. %s ttft=2s,tpot=50ms)",
				t.Text, inputerr.Name("Goodput"), inputerr.Name("Goodput"))
		}
	}
	if o.MaxFailureRate != nil {
		if _, err := analysis.MaxFailureRate(*o.MaxFailureRate); err != nil {
			errs.Add(err)
		}
	}
	for _, p := range o.Percentiles {
		if !(p > 0 && p <= 100) {
			errs.Field("Percentiles", fmt.Errorf("%g is not a percentile in (0, 100]", p))
		}
	}
	for _, f := range []struct{ field, path string }{{"SaveResult", o.SaveResult}, {"Report", o.Report}} {
		if f.path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(f.path)); err != nil || !st.IsDir() {
			errs.Fieldf(f.field, "%s: its directory does not exist", f.path)
		}
	}
}

// checks are the thresholds the run is judged by: --threshold's and
// --max-failure-rate's (Validate has checked both).
func (o *Options) checks() []analysis.Threshold {
	ts := slices.Clone(o.Thresholds)
	if o.MaxFailureRate != nil {
		if t, err := analysis.MaxFailureRate(*o.MaxFailureRate); err == nil {
			ts = append(ts, t)
		}
	}
	return ts
}
