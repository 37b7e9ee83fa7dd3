package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// registerChecks declares the flags that decide whether a load test may
// start (preflight) and whether it passed (breaker, thresholds).
func (o *loadtestOptions) registerChecks(fs *pflag.FlagSet) {
	fs.BoolVar(&o.noPreflight, "no-preflight", false, "send without first checking that /v1/models answers, accepts the key and serves --model (and that /metrics answers when scraping)")
	fs.IntVar(&o.maxConsecutiveFailures, "max-consecutive-failures", loadgen.DefaultMaxConsecutiveFailures,
		"abort the run after this many consecutive connection failures, or HTTP 401/403/404 of one code (0: never)")
	fs.Float64Var(&o.maxFailureRate, "max-failure-rate", 0, "fail (exit 1) when more than this fraction of the measured requests failed (default: no limit)")
	fs.StringArrayVar(&o.thresholds, "threshold", nil,
		"fail (exit 1) unless METRIC OP VALUE holds, k6-style: ttft_p99<2s, tpot_p50<=50ms, failure_rate<1%, throughput_requests>3 (repeatable, comma-separated); metrics as verify names them")
}

// checks parses --threshold and --max-failure-rate: bad input before
// anything is sent.
func (o *loadtestOptions) checks(fs *pflag.FlagSet) ([]analysis.Threshold, error) {
	if o.maxConsecutiveFailures < 0 {
		return nil, badInput(fmt.Errorf("--max-consecutive-failures must be at least 0 (0: never abort), got %d", o.maxConsecutiveFailures))
	}
	ts, err := analysis.ParseThresholds(o.thresholds)
	if err != nil {
		return nil, badInput(fmt.Errorf("--threshold: %w", err))
	}
	if fs.Changed("max-failure-rate") {
		t, err := analysis.MaxFailureRate(o.maxFailureRate)
		if err != nil {
			return nil, badInput(err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// preflight checks the server before any load (loadgen.Preflight) and
// settles --model: the server's only model when none was given. A failure
// is bad input (exit 2) and leaves nothing behind.
func (o *loadtestOptions) preflight(ctx context.Context, client *http.Client, apiKey string, stderr io.Writer) (loadgen.ModelsInfo, error) {
	if o.noPreflight {
		// Best effort, for metadata.json only.
		models, err := loadgen.FetchModels(ctx, client, o.url, apiKey)
		if err != nil {
			fmt.Fprintf(stderr, "thinkcap: warning: %v\n", err)
		}
		return models, nil
	}
	res, err := loadgen.Preflight(ctx, loadgen.PreflightConfig{
		URL: o.url, Model: o.model, APIKey: apiKey, APIKeyEnv: o.apiKeyEnv,
		HTTPClient: client, Metrics: o.scrapeInterval > 0,
	})
	if err != nil {
		return res.Models, badInput(fmt.Errorf("preflight: %w (--no-preflight skips this check)", err))
	}
	if res.Picked {
		fmt.Fprintf(stderr, "thinkcap: --model not given: using %s, the only model the server serves\n", res.Model)
		o.model = res.Model
	}
	return res.Models, nil
}

// warmConnections opens the connections the run will need before the
// schedule starts, so that no early TTFT counts the client's dialling.
func (o *loadtestOptions) warmConnections(ctx context.Context, client *http.Client, apiKey string, reqs []workload.Request) {
	n := loadgen.ExpectedConcurrency(reqs, o.traffic.concurrency, o.maxInFlight)
	loadgen.WarmConnections(ctx, client, o.url, apiKey, n)
}

// addFailures fills the summary's failure breakdown and scrape counts.
func (o *loadtestOptions) addFailures(s *analysis.Summary, out *loadgen.Outcome, stats loadgen.ScrapeStats) {
	s.Errors = analysis.Errors(out.Results)
	if o.scrapeInterval > 0 {
		s.Scrape = &analysis.ScrapeCounts{Scrapes: stats.Attempts, Failures: stats.Failures, LastError: stats.LastError}
	}
}

// verdict checks the finished run: aborted by the circuit breaker, a
// threshold crossed, or no request succeeded, each a failed check (exit
// 1). With table, the thresholds are printed as a pass/fail table to w.
func verdict(w io.Writer, table bool, s *analysis.Summary, checks []analysis.Threshold, aborted string, finished, planned int) error {
	var fails []string
	if aborted != "" {
		fails = append(fails, fmt.Sprintf("run aborted after %d of %d requests: %s", finished, planned, aborted))
	}
	if len(checks) > 0 {
		rs := analysis.CheckThresholds(s, checks)
		if table {
			fmt.Fprintln(w)
			if err := analysis.WriteThresholds(w, rs); err != nil {
				return err
			}
		}
		var crossed []string
		for _, r := range rs {
			if !r.Pass {
				crossed = append(crossed, r.Text)
			}
		}
		if len(crossed) > 0 {
			fails = append(fails, fmt.Sprintf("%d of %d thresholds crossed: %s", len(crossed), len(rs), strings.Join(crossed, ", ")))
		}
	}
	if s.Requests.Completed == 0 && aborted == "" {
		fails = append(fails, "no request succeeded"+failedBy(s))
	}
	if len(fails) == 0 {
		return nil
	}
	return errors.New(strings.Join(fails, "; "))
}

// failedBy says what the failures were: " (40 http_error)".
func failedBy(s *analysis.Summary) string {
	if s.Errors == nil || len(s.Errors.ByStatus) == 0 {
		return ""
	}
	statuses := make([]string, 0, len(s.Errors.ByStatus))
	for st := range s.Errors.ByStatus {
		statuses = append(statuses, st)
	}
	sort.Strings(statuses)
	var parts []string
	for _, st := range statuses {
		parts = append(parts, fmt.Sprintf("%d %s", s.Errors.ByStatus[st], st))
	}
	line := " (" + strings.Join(parts, ", ")
	if len(s.Errors.Messages) > 0 {
		line += `; most common: "` + s.Errors.Messages[0].Message + `"`
	}
	return line + ")"
}

// sayAbort tells the user at once when the circuit breaker trips, before
// the requests in flight are cancelled and the summary is written.
func (o *loadtestOptions) sayAbort(stderr io.Writer) func(string) {
	return func(reason string) { fmt.Fprintf(stderr, "thinkcap: aborting: %s\n", reason) }
}
