package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// Outcome is a finished load test, or one stopped early, as Write prints
// it.
type Outcome struct {
	Dir      string           // the run directory
	Summary  analysis.Summary // as written to summary.json
	Aborted  string           // why the circuit breaker stopped the run ("": it did not)
	Finished int              // result records written
	Planned  int              // requests scheduled
	Signal   os.Signal        // what interrupted the run, nil when nothing did

	json    bool
	checks  []analysis.Threshold
	predict *Predict
	release func() // the signals Run caught, released by Write
}

// run is one load test while it lasts.
type run struct {
	o       *Options
	checks  []analysis.Threshold
	http    *http.Client // one for the preflight, the warm-up and the load
	scrapes *http.Client // the scraper's: its connections apart from the load's
	models  loadgen.ModelsInfo
	client  *loadgen.Client
	gaps    *loadgen.GapHistogram
	dir     string
	meta    loadgen.Metadata
	rd      *loadgen.RunDir
	scraper *loadgen.Scraper
}

// Run runs the load test: the checks that may refuse it (options,
// preflight, --out), the prediction, then the run directory, the scraper,
// the connections' warm-up and the load, and at the end summary.json and
// the run's final state. A refused run returns an inputerr.Error and leaves
// no directory; SIGINT or SIGTERM stop the load, and the Outcome says so
// (Write returns the InterruptedError after printing what was measured).
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if err := o.loadRequests(); err != nil {
		return nil, err
	}
	r, err := prepare(ctx, &o)
	if err != nil {
		return nil, err
	}
	// Signals stay caught until Write has shown the outcome (release): a
	// Ctrl-C while it prints, or while --predict's comparison simulates,
	// does not cut it short; a second one kills the process.
	ctx, stop := interruptContext(ctx)
	var out *Outcome
	defer func() {
		if out == nil {
			stop()
		}
	}()
	if err := r.describe(ctx); err != nil {
		return nil, err
	}
	if r.rd, err = loadgen.OpenRunDir(r.dir, o.Force); err != nil {
		return nil, inputerr.New(err)
	}
	defer r.rd.Close()
	// metadata.json says "running" from here on: after a kill -9 a reader
	// knows the run died, with what it had written.
	r.meta.Start, r.meta.RequestsPlanned = time.Now(), len(o.Requests)
	if err := r.rd.Start(r.meta); err != nil {
		return nil, err
	}
	printStart(o.Stderr, &o)
	outcome, err := r.drive(ctx)
	if err != nil {
		return nil, err
	}
	if out, err = r.finish(ctx, &outcome); err != nil {
		return nil, err
	}
	out.release = stop
	return out, nil
}

// prepare does everything that may refuse the run before anything is
// written: the options, the checks' flags, the client, the preflight and
// --out. The directory is refused now but created only when the run is
// about to send, so that a refused run leaves none behind.
func prepare(ctx context.Context, o *Options) (*run, error) {
	if err := o.Validate(); err != nil {
		return nil, inputerr.New(err)
	}
	o.applyShard()
	o.applyRamp()
	checks := o.checks()
	// One HTTP client for the preflight, the warm-up and the run: the
	// connections it opens first are the ones the load uses.
	httpClient, err := loadgen.NewHTTPClient(o.CACert)
	if err != nil {
		return nil, inputerr.New(fmt.Errorf("--ca-cert: %w", err))
	}
	scrapes, _ := loadgen.NewHTTPClient(o.CACert)
	// --header goes with every request: the load, the preflight, the
	// warm-up and the scrapes (a gateway in front guards them all).
	httpClient, scrapes = loadgen.WithHeaders(httpClient, o.Headers), loadgen.WithHeaders(scrapes, o.Headers)
	models, err := preflight(ctx, o, httpClient)
	if err != nil {
		return nil, err
	}
	r := &run{o: o, checks: checks, http: httpClient, scrapes: scrapes, models: models, gaps: &loadgen.GapHistogram{}}
	r.client, err = loadgen.NewClient(loadgen.ClientConfig{
		BaseURL: o.URL, Model: o.Model, Endpoint: loadgen.Endpoint(o.Endpoint), APIKey: o.APIKey,
		HeaderTimeout: o.HeaderTimeout, RequestTimeout: o.RequestTimeout, StallTimeout: o.StallTimeout, HTTPClient: httpClient,
		ReasoningParser: !o.NoReasoningParser, Gaps: r.gaps,
		ExtraBody: o.ExtraBody, Secrets: loadgen.HeaderValues(o.Headers),
	})
	if err != nil {
		return nil, inputerr.New(err)
	}
	r.dir = runDirName(o.Out)
	if err := loadgen.CheckRunDir(r.dir, o.Force); err != nil {
		return nil, inputerr.New(err)
	}
	return r, nil
}

// describe fills the run's metadata (the server's version, models and
// context length) and, with --predict, prints the prediction.
func (r *run) describe(ctx context.Context) error {
	o := r.o
	r.meta = loadgen.Metadata{
		Command: loadgen.RedactCommandLine(o.Args, append([]string{o.APIKey}, loadgen.HeaderValues(o.Headers)...)...), TargetURL: o.URL, Model: o.Model,
		Start: time.Now(), Options: map[string]any{"endpoint": o.Endpoint, "requests": len(o.Requests), "warmup": o.Warmup.Spec, "concurrency": o.Concurrency},
	}
	r.meta.ServerVersion, _ = loadgen.FetchVersion(ctx, r.http, o.URL, o.APIKey)
	r.meta.Shard, r.meta.StartAt = o.Shard, o.StartAt
	if off, ok := loadgen.ServerClockOffset(ctx, r.http, o.URL, o.APIKey); ok {
		r.meta.ServerClockOffsetS = &off
	}
	r.meta.Models, r.meta.MaxModelLen = r.models.Models, r.models.MaxModelLen(o.Model)
	r.meta.Engine = o.Engine
	if r.meta.Engine == "" || r.meta.Engine == "auto" {
		r.meta.Engine = loadgen.DetectEngine(r.models, nil)
	}
	if r.meta.Engine == loadgen.EngineSGLang {
		fmt.Fprintln(o.Stderr, "thinkcap: the server is SGLang: its /metrics are read under SGLang's names (running, queued, token usage, retractions as preemptions); --predict and verify model vLLM's scheduler")
		if o.ThinkBudget > 0 && o.BudgetPolicy == workload.PolicyForcedClosure {
			// thinking_token_budget is vLLM's request field (its
			// reasoning-budget logits processor); SGLang ignores unknown fields.
			fmt.Fprintln(o.Stderr, "thinkcap: warning: --budget-policy forced-closure sends vLLM's thinking_token_budget, which SGLang does not read: use truncate or two-phase")
		}
	}
	if o.Predict == nil {
		return nil
	}
	return r.predict(ctx)
}

// runDirName is the run directory: the given one, or a timestamped one.
func runDirName(dir string) string {
	if dir == "" {
		dir = "thinkcap-loadtest-" + time.Now().Format("20060102-150405")
	}
	return dir
}
