package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

type loadtestOptions struct {
	traffic        trafficFlags
	whatIf         whatIfFlags
	profilesPath   string
	seed           int64
	url            string
	model          string
	endpoint       string
	apiKeyEnv      string
	caCert         string
	headerTimeout  time.Duration
	requestTimeout time.Duration
	scrapeInterval time.Duration
	out            string
	force          bool
	progressEvery  time.Duration
	warmup         string
	duration       time.Duration
	maxInFlight    int
	saveText       float64
	forceLength    string
	noParser       bool
	output         string
	predict        predictFlags
	// Checks before and after the load (loadtest_checks.go).
	noPreflight            bool
	maxConsecutiveFailures int
	maxFailureRate         float64
	thresholds             []string
}

func newLoadtestCmd() *cobra.Command {
	var o loadtestOptions
	cmd := &cobra.Command{
		Use:   "loadtest",
		Short: "Drive a vLLM endpoint with the traffic and measure users and server",
		Long: `loadtest sends a log's requests (or synthetic or profile traffic) to a vLLM
OpenAI-compatible endpoint, streaming, and measures per request what users see:
time to first token, time to first answer token (thinking hidden), TPOT,
inter-token latency, E2E, from the scheduled and from the sent time. Lengths
are forced (max_tokens = think + answer, min_tokens and ignore_eos) so the
server generates what the log says. It scrapes /metrics for KV usage,
preemptions, queues, speculative decoding and the cache config, and writes a
run directory: results.jsonl (incrementally: an interrupted run keeps every
finished record), timeline.csv, metadata.json and summary.json.

The API key comes from the environment (--api-key-env) and is never written.`,
		Example: `  thinkcap loadtest --url http://127.0.0.1:8000 --model Qwen/Qwen3-8B --requests 500 --rate 4
  thinkcap loadtest --url http://gpu-node:8000 --model qwen3 --workload requests.jsonl --speedup 10 --out run1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLoadtest(cmd, &o) },
	}
	fs := cmd.Flags()
	o.traffic.register(fs)
	o.whatIf.register(fs)
	fs.StringVar(&o.profilesPath, "profiles", "", "extra traffic profiles: a YAML file or a directory of them")
	fs.Int64Var(&o.seed, "seed", 0, "random seed of the synthetic traffic and prompts")
	fs.StringVar(&o.url, "url", "", "the server's base URL, e.g. http://127.0.0.1:8000 (required)")
	fs.StringVar(&o.model, "model", "", "the served model name, as in /v1/models (default: the server's only model)")
	fs.StringVar(&o.endpoint, "endpoint", "chat", "chat (/v1/chat/completions) or completions (/v1/completions)")
	fs.StringVar(&o.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (never written anywhere)")
	fs.StringVar(&o.caCert, "ca-cert", "", "PEM file of the CA that signed the server's TLS certificate")
	fs.DurationVar(&o.headerTimeout, "header-timeout", 60*time.Second, "most time to wait for response headers")
	fs.DurationVar(&o.requestTimeout, "request-timeout", 30*time.Minute, "most time one request may take")
	fs.DurationVar(&o.scrapeInterval, "scrape-interval", time.Second, "how often to scrape /metrics (0: never)")
	fs.StringVar(&o.out, "out", "", "run directory (default thinkcap-loadtest-YYYYMMDD-HHMMSS); one holding a run is kept unless --force")
	fs.BoolVar(&o.force, "force", false, "overwrite the run in an existing --out directory")
	fs.DurationVar(&o.progressEvery, "progress-interval", 10*time.Second, "when stderr is not a terminal, print a progress line this often (0: never)")
	fs.StringVar(&o.warmup, "warmup", "0", "leave out of the statistics the first N requests (100) or those scheduled in the first D (30s)")
	fs.DurationVar(&o.duration, "duration", 0, "stop sending new requests after this long")
	fs.IntVar(&o.maxInFlight, "max-in-flight", 0, "open loop: cap on requests in flight (0: none)")
	fs.Float64Var(&o.saveText, "save-text", 0, "fraction of requests whose prompt and generated text is stored (default none)")
	fs.StringVar(&o.forceLength, "force-length", "auto", "send min_tokens = max_tokens and ignore_eos: auto (on except gpt-oss), on, off")
	fs.BoolVar(&o.noParser, "no-reasoning-parser", false, "the server has no --reasoning-parser: find <think>...</think> in the content")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	o.registerChecks(fs)
	o.predict.register(fs)
	return cmd
}

func runLoadtest(cmd *cobra.Command, o *loadtestOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	cat, err := (&deploymentFlags{profilesPath: o.profilesPath}).catalog()
	if err != nil {
		return err
	}
	reqs, err := o.traffic.load(cat, o.seed, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	ensureIDs(reqs)
	// Thinking budgets as the server sees them: forced closure is vLLM's
	// own thinking_token_budget (the lengths the transform predicts),
	// truncate a plain max_tokens, two-phase a gateway's second call.
	reqs, _, err = o.whatIf.apply(reqs, o.seed)
	if err != nil {
		return err
	}
	checks, err := o.checks(cmd.Flags())
	if err != nil {
		return err
	}
	apiKey := os.Getenv(o.apiKeyEnv)
	// One HTTP client for the preflight, the warm-up and the run: the
	// connections it opens first are the ones the load uses.
	httpClient, err := loadgen.NewHTTPClient(o.caCert)
	if err != nil {
		return badInput(fmt.Errorf("--ca-cert: %w", err))
	}
	models, err := o.preflight(cmd.Context(), httpClient, apiKey, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	gaps := &loadgen.GapHistogram{}
	client, err := loadgen.NewClient(loadgen.ClientConfig{
		BaseURL: o.url, Model: o.model, Endpoint: loadgen.Endpoint(o.endpoint), APIKey: apiKey,
		HeaderTimeout: o.headerTimeout, RequestTimeout: o.requestTimeout, HTTPClient: httpClient,
		ReasoningParser: !o.noParser, Gaps: gaps,
	})
	if err != nil {
		return badInput(err)
	}
	// The directory is refused now but created only when the run is
	// about to send, so that a refused run leaves none behind.
	dir := runDirName(o.out)
	if err := loadgen.CheckRunDir(dir, o.force); err != nil {
		return badInput(err)
	}
	ctx, stop := interruptContext(cmd.Context())
	defer stop()

	meta := loadgen.Metadata{
		Command: loadgen.RedactCommandLine(os.Args, apiKey), TargetURL: o.url, Model: o.model,
		Start: time.Now(), Options: map[string]any{"endpoint": o.endpoint, "requests": len(reqs), "warmup": o.warmup, "concurrency": o.traffic.concurrency},
	}
	meta.ServerVersion, _ = loadgen.FetchVersion(ctx, httpClient, o.url, apiKey)
	meta.Models, meta.MaxModelLen = models.Models, models.MaxModelLen(o.model)

	if o.predict.enabled {
		cfg, server, err := o.predict.config(ctx, o, &meta, apiKey)
		if err != nil {
			return err
		}
		if err := o.predict.printPrediction(cmd.OutOrStdout(), cfg, server, reqs, o.traffic.concurrency); err != nil {
			return err
		}
	}

	rd, err := loadgen.OpenRunDir(dir, o.force)
	if err != nil {
		return badInput(err)
	}
	defer rd.Close()
	// metadata.json says "running" from here on: after a kill -9 a reader
	// knows the run died, with what it had written.
	meta.Start, meta.RequestsPlanned = time.Now(), len(reqs)
	if err := rd.Start(meta); err != nil {
		return err
	}
	printLoadtestStart(cmd.ErrOrStderr(), o, reqs)
	scraper := loadgen.NewScraper(loadgen.ScraperConfig{URL: o.url, Interval: o.scrapeInterval, APIKey: apiKey, OnSample: rd.AddSample})
	scrapeCtx, stopScrape := context.WithCancel(ctx)
	defer stopScrape()
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		if o.scrapeInterval > 0 {
			scraper.Run(scrapeCtx)
		}
	}()

	lengths := &loadgen.LengthControl{
		ForceLength:  o.forceLength == "on" || o.forceLength == "auto" && loadgen.ForceLengthFor(o.model),
		SaveTextRate: o.saveText, Seed: uint64(o.seed),
		Prompts: &loadgen.PromptCalibrator{},
	}
	if o.whatIf.thinkBudget > 0 && o.whatIf.policy == workload.PolicyForcedClosure {
		lengths.ThinkingBudget = o.whatIf.thinkBudget
	}
	texts, err := newTextLog(rd.Dir, o.saveText)
	if err != nil {
		return err
	}
	defer texts.close()
	o.warmConnections(ctx, httpClient, apiKey, reqs)
	prog := &loadProgress{total: len(reqs), target: targetRate(reqs), span: scheduleSpan(reqs, o), latest: scraper.Latest}
	stopProgress := prog.show(cmd.ErrOrStderr(), "load test", o.progressEvery)
	warmupN, warmupD, _ := warmupSpec(o.warmup)
	outcome := loadgen.Run(ctx, client, loadgen.RunConfig{
		Requests: reqs, Concurrency: o.traffic.concurrency, MaxInFlight: o.maxInFlight,
		Duration: o.duration, Warmup: warmupN, WarmupDuration: warmupD,
		MaxConsecutiveFailures: o.maxConsecutiveFailures, OnAbort: o.sayAbort(cmd.ErrOrStderr()),
		Build: func(r workload.Request) loadgen.Request {
			prog.sent.Add(1)
			return lengths.Build(r)
		},
		Continue: func(child workload.Request, parent loadgen.Request, pm *loadgen.Measurement) loadgen.Request {
			prog.sent.Add(1)
			return lengths.Continue(child, parent, pm)
		},
		OnResult: func(res *workload.Result, m *loadgen.Measurement, _ bool) {
			lengths.Observe(res.ID, res.PromptTokens)
			if m != nil && lengths.Saves(res.ID) {
				texts.write(res.ID, lengths.SavedPrompt(res.ID), m)
			}
			// Written and flushed one by one: a crash or Ctrl-C keeps every
			// finished record.
			_ = rd.WriteResult(res)
			if m != nil {
				prog.returned.Add(1)
			}
			if !res.OK() {
				prog.failed.Add(1)
			}
			prog.done.Add(1)
		},
	})
	stopProgress()
	stopScrape()
	<-scraped
	if err := rd.Err(); err != nil {
		return fmt.Errorf("writing the run: %w", err)
	}
	// One last scrape so the counters cover the end of the window.
	if o.scrapeInterval > 0 {
		_, _ = scraper.Scrape(context.Background())
	}
	samples := scraper.Samples()
	stats := scraper.Stats()
	rd.Update(func(m *loadgen.Metadata) {
		m.CacheConfig = loadgen.FirstCacheConfig(samples)
		m.Scrape = &stats
	})
	tel := loadgen.Summarize(samples, measureFrom(outcome, reqs, warmupN, warmupD), outcome.End)

	s := loadtestSummary(o, &outcome, &tel, gaps, meta.MaxModelLen)
	o.addFailures(&s, &outcome, stats)
	if err := writeSummary(rd, &s); err != nil {
		return err
	}
	state, reason := loadgen.RunComplete, ""
	if outcome.Aborted != "" {
		state, reason = loadgen.RunAborted, outcome.Aborted
	}
	sig := interruptedBy(ctx)
	if sig != nil {
		state, reason = loadgen.RunInterrupted, "interrupted by signal "+signalName(sig)
	}
	if err := rd.Finish(state, reason); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "thinkcap: wrote %s (results.jsonl, timeline.csv, metadata.json, summary.json)\n", dir)
	// Whatever was measured is shown, then the exit code says the run
	// was cut short (130 for Ctrl-C, as shells expect).
	var stopped error
	if sig != nil {
		stopped = &interruptedError{sig: sig, msg: fmt.Sprintf("interrupted after %d of %d requests", rd.Finished(), len(reqs))}
	}
	out := cmd.OutOrStdout()
	if o.output == "json" {
		if stopped != nil {
			return errors.Join(writeJSON(out, s), stopped)
		}
		return errors.Join(writeJSON(out, s), verdict(out, false, &s, checks, outcome.Aborted, rd.Finished(), len(reqs)))
	}
	if err := analysis.WriteTable(out, &s); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nschedule lag p50 %.2f ms, p99 %.2f ms, %d requests later than %v\n",
		1e3*s.ScheduleLagS.P50, 1e3*s.ScheduleLagS.P99, s.ScheduleLagS.Late, loadgen.LateThreshold)
	if stopped != nil {
		return stopped
	}
	// Thresholds after the summary; an aborted run has nothing to verify.
	failed := verdict(out, true, &s, checks, outcome.Aborted, rd.Finished(), len(reqs))
	if o.predict.enabled && outcome.Aborted == "" {
		return errors.Join(failed, o.predict.verifyRun(cmd, dir))
	}
	return failed
}

// warmupSpec parses --warmup: a request count or a duration.
func warmupSpec(s string) (int, time.Duration, error) {
	n, d, err := loadgen.ParseWarmup(s)
	if err != nil {
		return 0, 0, badInput(fmt.Errorf("--warmup: %w", err))
	}
	return n, d, nil
}

func (o *loadtestOptions) validate() error {
	if _, _, err := warmupSpec(o.warmup); err != nil {
		return err
	}
	// The traffic, what-if and --predict flags, before any request is sent.
	if err := errors.Join(o.traffic.validate(), o.whatIf.validate(), o.predict.validate()); err != nil {
		return badInput(err)
	}
	switch {
	case o.url == "":
		return badInput(fmt.Errorf("--url is required (the vLLM server, e.g. http://127.0.0.1:8000)"))
	case o.model == "" && o.noPreflight:
		return badInput(fmt.Errorf("--model is required with --no-preflight (without it, the server's only model is used)"))
	case o.endpoint != "chat" && o.endpoint != "completions":
		return badInput(fmt.Errorf("--endpoint %q: valid endpoints are chat, completions", o.endpoint))
	case o.forceLength != "auto" && o.forceLength != "on" && o.forceLength != "off":
		return badInput(fmt.Errorf("--force-length %q: valid values are auto, on, off", o.forceLength))
	case !(o.saveText >= 0 && o.saveText <= 1):
		return badInput(fmt.Errorf("--save-text must be a fraction in [0, 1], got %g", o.saveText))
	case o.maxInFlight < 0:
		return badInput(fmt.Errorf("--max-in-flight must be at least 0 (0: no cap), got %d", o.maxInFlight))
	case o.duration < 0 || o.duration == 0 && o.traffic.set.Changed("duration"):
		return badInput(fmt.Errorf("--duration must be positive (leave it out for no limit), got %v", o.duration))
	case o.scrapeInterval < 0:
		return badInput(fmt.Errorf("--scrape-interval must be at least 0 (0: never), got %v", o.scrapeInterval))
	case o.progressEvery < 0:
		return badInput(fmt.Errorf("--progress-interval must be at least 0 (0: never), got %v", o.progressEvery))
	case o.headerTimeout <= 0:
		return badInput(fmt.Errorf("--header-timeout must be positive, got %v", o.headerTimeout))
	case o.requestTimeout <= 0:
		return badInput(fmt.Errorf("--request-timeout must be positive, got %v", o.requestTimeout))
	case o.whatIf.route != "":
		return badInput(fmt.Errorf("--route splits traffic between simulated pools; a load test drives one endpoint"))
	case o.output != "table" && o.output != "json":
		return checkOutput(o.output)
	case o.predict.enabled && o.output == "json":
		return badInput(fmt.Errorf("--predict prints tables; for JSON run thinkcap verify RUN_DIR -o json after the load test"))
	}
	return nil
}

// targetRate is the schedule's mean rate in req/s (0 when unknown).
func targetRate(reqs []workload.Request) float64 {
	if len(reqs) < 2 || reqs[len(reqs)-1].ArrivalS <= 0 {
		return 0
	}
	return float64(len(reqs)-1) / reqs[len(reqs)-1].ArrivalS
}

// ensureIDs gives every request an ID: it is the x-request-id header and
// joins result records to requests.
func ensureIDs(reqs []workload.Request) {
	for i := range reqs {
		if reqs[i].ID == "" {
			reqs[i].ID = fmt.Sprintf("req-%06d", i+1)
		}
	}
}

// runDirName is the run directory: the given one, or a timestamped one.
func runDirName(dir string) string {
	if dir == "" {
		dir = "thinkcap-loadtest-" + time.Now().Format("20060102-150405")
	}
	return dir
}

// measureFrom is when the measured (post-warm-up) part of the run began.
func measureFrom(o loadgen.Outcome, reqs []workload.Request, warmup int, warmupFor time.Duration) time.Time {
	from := o.Start.Add(warmupFor)
	if warmup > 0 && warmup < len(reqs) {
		if t := o.Start.Add(time.Duration(reqs[warmup].ArrivalS * float64(time.Second))); t.After(from) {
			from = t
		}
	}
	return from
}

// loadtestSummary is DESIGN.md's summary JSON of a load test: latencies
// from the result records, the server's side from the scraped metrics.
func loadtestSummary(o *loadtestOptions, out *loadgen.Outcome, tel *loadgen.Telemetry, gaps *loadgen.GapHistogram, maxModelLen int64) analysis.Summary {
	duration := out.End.Sub(out.Start).Seconds()
	s := analysis.Summarize("loadtest", out.Results, duration)
	sent := analysis.Summarize("loadtest", out.FromSent, duration)
	s.LatencyFromSentS = &sent.LatencyS
	var itl analysis.Stat
	itl.Mean, itl.P50, itl.P90, itl.P99 = gaps.Quantiles()
	s.LatencyS.ITL, s.LatencyFromSentS.ITL = itl, itl
	s.ScheduleLagS = &analysis.ScheduleLag{P50: out.LagP50S, P99: out.LagP99S, Max: out.LagMaxS, Late: out.Late}
	s.Config = analysis.Config{Model: o.model, Replicas: 1, MaxModelLen: int(maxModelLen)}
	if c := tel.Capacity; c != nil {
		s.Config.KVCacheDtype = c.CacheDtype
		s.Capacity = analysis.Capacity{
			NumGPUBlocks: int(c.NumGPUBlocks), BlockSize: int(c.BlockSize),
			KVCacheTokens: c.KVCacheTokens, MaxConcurrency: c.MaxConcurrency,
		}
	}
	// What the server never told us is null, not zero (DESIGN.md).
	if tel.Preemptions != nil {
		p := int64(*tel.Preemptions)
		s.Preemptions = &p
	}
	s.KVUsage = analysis.KVUsage{NoData: true}
	if g := tel.KVUsage; g != nil {
		s.KVUsage = analysis.KVUsage{Mean: g.Mean, Peak: g.Peak}
	}
	s.Running, s.Waiting = analysis.Occupancy{NoData: true}, analysis.Occupancy{NoData: true}
	if g := tel.Running; g != nil {
		s.Running = analysis.Occupancy{Mean: g.Mean, Peak: int(g.Peak)}
	}
	if g := tel.Waiting; g != nil {
		s.Waiting = analysis.Occupancy{Mean: g.Mean, Peak: int(g.Peak)}
	}
	// A client cannot see the server's queue: the row is the server's
	// vllm:request_queue_time_seconds over the measured window, and "not
	// measured" (never a row of zeros) when it was not scraped.
	s.LatencyS.Queue, s.LatencyFromSentS.Queue = analysis.Stat{NoData: true}, analysis.Stat{NoData: true}
	if q := tel.QueueTime; q != nil {
		st := analysis.Stat{Mean: q.Mean, P50: q.P50, P90: q.P90, P99: q.P99}
		s.LatencyS.Queue, s.LatencyFromSentS.Queue = st, st
	}
	// Rates over nothing (no draft made, no prefix queried in the window)
	// are unknown, not 0.
	if sd := tel.SpecDecode; sd != nil && sd.Drafts > 0 && sd.DraftTokens > 0 {
		s.SpecDecode = &analysis.SpecDecodeStats{AcceptanceLength: sd.AcceptanceLength, AcceptanceRate: sd.AcceptanceRate, PerPosition: sd.PerPosAcceptanceRate}
	}
	if pc := tel.PrefixCache; pc != nil && pc.Queries > 0 {
		rate := pc.HitRate
		s.PrefixCacheHitRate = &rate
	}
	return s
}

// writeSummary writes the run's summary.json (metadata.json and
// timeline.csv are the run directory's, written as the run goes).
func writeSummary(rd *loadgen.RunDir, s *analysis.Summary) error {
	return writeFile(rd.Path(loadgen.SummaryFile), func(w *bufio.Writer) error {
		return writeJSON(w, s)
	})
}
