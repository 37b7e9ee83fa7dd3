package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/loadtest"
	"github.com/thinkcap/thinkcap/workload"
)

// loadtestOptions are loadtest's flag values, turned into
// loadtest.Options by options.
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
	stallTimeout   time.Duration
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
	// Checks before and after the load (registerChecks).
	noPreflight            bool
	maxConsecutiveFailures int
	maxFailureRate         float64
	thresholds             []string
	goodput                string
	saveResult             string
	metadata               []string
	percentiles            []float64
	headers                []string
	extraBody              string
	report                 string
	sweepN                 int
	dataset                datasetFlags
	rampUp                 string
	maxRate                float64
	engine                 string
	shard                  string
	startAt                string
	scrapeAllShards        bool
	k8s                    k8sFlags
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
	o.register(cmd.Flags())
	useFlagGroups(cmd, loadtestFlagGroups)
	return cmd
}

// register declares loadtest's flags; loadtestFlagGroups puts them under
// --help's headings.
func (o *loadtestOptions) register(fs *pflag.FlagSet) {
	o.traffic.sweepable = true
	o.traffic.register(fs)
	o.whatIf.register(fs)
	fs.StringVar(&o.profilesPath, "profiles", "", "extra traffic profiles: a YAML file or a directory of them")
	fs.Int64Var(&o.seed, "seed", 0, "random seed of the synthetic traffic and prompts")
	o.registerTarget(fs)
	o.registerPacing(fs)
	o.registerOutput(fs)
	o.dataset.register(fs)
	o.k8s.register(fs)
	fs.StringVar(&o.shard, "shard", "", "send shard I of N of the schedule (I/N, from 0): every N-th request from the I-th, for N processes or pods that merge afterwards (thinkcap merge)")
	fs.StringVar(&o.startAt, "start-at", "", "hold the schedule until this wall time (RFC 3339), so that shards begin together")
	fs.BoolVar(&o.scrapeAllShards, "scrape-all-shards", false, "with --shard: every shard scrapes /metrics (default: shard 0 only)")
	fs.IntVar(&o.sweepN, "sweep", 0, "GuideLLM's sweep: a synchronous run (concurrency 1), a throughput run (every request at once), then N rates evenly between, one run directory each under --out")
	o.registerChecks(fs)
	o.predict.register(fs)
}

// registerTarget declares the flags that say which server to drive and
// how to talk to it.
func (o *loadtestOptions) registerTarget(fs *pflag.FlagSet) {
	fs.StringVar(&o.url, "url", "", "the server's base URL, e.g. http://127.0.0.1:8000 (required)")
	fs.StringVar(&o.model, "model", "", "the served model name, as in /v1/models (default: the server's only model)")
	fs.StringVar(&o.endpoint, "endpoint", "chat", "chat (/v1/chat/completions) or completions (/v1/completions)")
	fs.StringVar(&o.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (never written anywhere)")
	fs.StringVar(&o.caCert, "ca-cert", "", "PEM file of the CA that signed the server's TLS certificate")
	fs.DurationVar(&o.headerTimeout, "header-timeout", 60*time.Second, "most time to wait for response headers")
	fs.DurationVar(&o.requestTimeout, "request-timeout", 30*time.Minute, "most time one request may take")
	fs.DurationVar(&o.stallTimeout, "stall-timeout", loadgen.DefaultStallTimeout, "most silence of a stream after its first chunk: a server that froze mid-stream (0: no limit)")
	fs.StringVar(&o.forceLength, "force-length", "auto", "send min_tokens = max_tokens and ignore_eos: auto (on except gpt-oss), on, off")
	fs.BoolVar(&o.noParser, "no-reasoning-parser", false, "the server has no --reasoning-parser: find <think>...</think> in the content")
	fs.StringArrayVar(&o.headers, "header", nil, "KEY=VALUE (or \"Key: value\") sent with every request, the preflight and the scrapes; VALUE env:NAME reads NAME from the environment; values are never written (repeatable)")
	fs.StringVar(&o.extraBody, "extra-body", "", "a JSON object merged into every request body: sampling parameters, chat_template_kwargs, vendor fields (its keys win over thinkcap's)")
	fs.StringVar(&o.engine, "engine", "auto", "the server: auto (from its /v1/models or /metrics), vllm or sglang; recorded in metadata.json")
}

// registerPacing declares the flags that shape when requests are sent and
// which of them are measured.
func (o *loadtestOptions) registerPacing(fs *pflag.FlagSet) {
	fs.StringVar(&o.warmup, "warmup", "0", "leave out of the statistics the first N requests (100) or those scheduled in the first D (30s)")
	fs.DurationVar(&o.duration, "duration", 0, "stop sending new requests after this long")
	fs.IntVar(&o.maxInFlight, "max-in-flight", 0, "open loop: cap on requests in flight (0: none)")
	fs.StringVar(&o.rampUp, "ramp-up", "", "raise the load over a time, linear:30s or exponential:30s (from a hundredth): an open loop's schedule stretched onto it, a closed loop's concurrency grown along it; its requests are left out of the statistics, as warm-up")
	fs.Float64Var(&o.maxRate, "max-rate", 0, "open loop: never send faster than this many requests/s, a ceiling over a replayed log's bursts (held-back requests are late and counted so)")
}

// registerOutput declares the flags that say what is measured, kept and
// shown.
func (o *loadtestOptions) registerOutput(fs *pflag.FlagSet) {
	fs.DurationVar(&o.scrapeInterval, "scrape-interval", time.Second, "how often to scrape /metrics (0: never)")
	fs.StringVar(&o.out, "out", "", "run directory (default thinkcap-loadtest-YYYYMMDD-HHMMSS); one holding a run is kept unless --force")
	fs.BoolVar(&o.force, "force", false, "overwrite the run in an existing --out directory")
	fs.DurationVar(&o.progressEvery, "progress-interval", 10*time.Second, "when stderr is not a terminal, print a progress line this often (0: never)")
	fs.Float64Var(&o.saveText, "save-text", 0, "fraction of requests whose prompt and generated text is stored (default none)")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	fs.StringVar(&o.report, "report", "", "also write the run as one self-contained HTML file: the tables, thresholds, latency CDFs, KV usage, running and waiting, throughput over time")
	fs.StringVar(&o.saveResult, "save-result", "", "also write the run as vllm bench serve --save-result does (its keys and units), for the scripts and dashboards that read those")
	fs.StringArrayVar(&o.metadata, "metadata", nil, "KEY=VALUE recorded in the --save-result file, as vllm bench serve's --metadata (repeatable)")
	fs.Float64SliceVar(&o.percentiles, "percentiles", nil, "latency percentiles to report, e.g. 50,90,95,99,99.9, with min, max and std, in the table, summary.json and the --save-result file (default: mean, p50, p90, p99; vLLM's 99 in --save-result)")
}

// registerChecks declares the flags that decide whether a load test may
// start (preflight) and whether it passed (breaker, thresholds).
func (o *loadtestOptions) registerChecks(fs *pflag.FlagSet) {
	fs.BoolVar(&o.noPreflight, "no-preflight", false, "send without first checking that /v1/models answers, accepts the key and serves --model (and that /metrics answers when scraping)")
	fs.IntVar(&o.maxConsecutiveFailures, "max-consecutive-failures", loadgen.DefaultMaxConsecutiveFailures,
		"abort the run after this many consecutive connection failures, requests a hung server left waiting (--header-timeout, --stall-timeout), or HTTP 401/403/404 of one code (0: never)")
	fs.Float64Var(&o.maxFailureRate, "max-failure-rate", 0, "fail (exit 1) when more than this fraction of the measured requests failed (default: no limit)")
	fs.StringArrayVar(&o.thresholds, "threshold", nil,
		"fail (exit 1) unless METRIC OP VALUE holds, k6-style: ttft_p99<2s, tpot_p50<=50ms, failure_rate<1%, goodput_fraction>=90%, throughput_requests>3 (repeatable, comma-separated); metrics as verify names them")
	fs.StringVar(&o.goodput, "goodput", "", "count the requests that meet every per-request SLO: ttft=2s,tpot=50ms,ttfa=60s,e2e=120s (or vLLM's ttft:2000 tpot:50 e2el:120000, in ms)")
}

func runLoadtest(cmd *cobra.Command, o *loadtestOptions) error {
	opts, err := o.options(cmd.Flags())
	if err != nil {
		return err
	}
	sweep := o.traffic.sweep() || o.sweepN != 0
	if sweep {
		if o.k8s.job != "" {
			return inputerr.New(errors.New("--k8s-job prints one load test as a Job: a sweep is several"))
		}
		if err := o.checkSweep(); err != nil {
			return err
		}
	}
	if opts.Catalog, err = (&deploymentFlags{profilesPath: o.profilesPath}).catalog(); err != nil {
		return err
	}
	opts.Stdout, opts.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	switch {
	case sweep:
		return runSweep(cmd, o, opts)
	case o.k8s.job != "":
		return loadtest.PrintK8sJob(cmd.OutOrStdout(), opts, o.k8s.options(cmd.Flags(), o.apiKeyEnv), time.Now())
	}
	out, err := loadtest.Run(cmd.Context(), opts)
	if err == nil {
		err = loadtest.Write(cmd.OutOrStdout(), out)
	}
	return loadtestError(err)
}

// options turns the flags into the load test's options: the values parsed
// here, every problem of the flags reported at once, then the options
// checked by loadtest.Options.Validate.
func (o *loadtestOptions) options(fs *pflag.FlagSet) (loadtest.Options, error) {
	var errs inputerr.List
	errs.Add(errors.Join(o.traffic.validate(), o.whatIf.validate(), o.predict.validate(), o.dataset.validate(&o.traffic), o.k8s.validate(fs)))
	opts := loadtest.Options{
		URL: o.url, Model: o.model, Endpoint: o.endpoint, APIKey: os.Getenv(o.apiKeyEnv), APIKeyEnv: o.apiKeyEnv,
		CACert: o.caCert, HeaderTimeout: o.headerTimeout, RequestTimeout: o.requestTimeout, StallTimeout: o.stallTimeout, NoReasoningParser: o.noParser,
		Traffic: o.traffic.options(), WhatIf: o.whatIf.options(), Dataset: o.dataset.options(),
		Concurrency: o.traffic.concurrency(), MaxInFlight: o.maxInFlight, MaxRate: o.maxRate,
		Duration: o.duration, DurationGiven: fs.Changed("duration"),
		ForceLength: o.forceLength, SaveText: o.saveText, Seed: o.seed,
		ThinkBudget: o.whatIf.thinkBudget, BudgetPolicy: o.whatIf.policy, Route: o.whatIf.route,
		Out: o.out, Force: o.force, ScrapeInterval: o.scrapeInterval, ProgressInterval: o.progressEvery,
		JSON: o.output == "json", Args: os.Args,
		NoPreflight: o.noPreflight, MaxConsecutiveFailures: o.maxConsecutiveFailures,
		SaveResult: o.saveResult, Percentiles: o.percentiles, Report: o.report,
		Engine: o.engine, ScrapeAllShards: o.scrapeAllShards,
		Predict: o.predict.options(o.profilesPath),
	}
	o.parse(fs, &opts, &errs)
	if err := errs.Err(); err != nil {
		return opts, err
	}
	if err := opts.Validate(); err != nil {
		return opts, err
	}
	return opts, checkOutput(o.output)
}

// parse fills the options the flags give as text: each value parsed, each
// problem added to errs.
func (o *loadtestOptions) parse(fs *pflag.FlagSet, opts *loadtest.Options, errs *inputerr.List) {
	var err error
	opts.Warmup, err = loadtest.ParseWarmup(o.warmup)
	errs.Add(err)
	opts.Headers, err = loadgen.ParseHeaders(o.headers, os.Getenv)
	errs.Add(err)
	opts.ExtraBody, err = loadgen.ParseExtraBody(o.extraBody)
	errs.Add(err)
	opts.History, err = workload.ParseHistory(o.whatIf.history)
	errs.Add(err)
	opts.Thresholds, err = analysis.ParseThresholds(o.thresholds)
	errs.Field("Thresholds", err)
	opts.Metadata, err = loadtest.ParseMetadata(o.metadata)
	errs.Add(err)
	if o.goodput != "" {
		opts.Goodput, err = analysis.ParseGoodput(o.goodput)
		errs.Field("Goodput", err)
	}
	if o.rampUp != "" {
		r, err := workload.ParseRamp(o.rampUp)
		errs.Add(err)
		opts.RampUp = &r
	}
	if o.shard != "" {
		sh, err := loadgen.ParseShard(o.shard)
		errs.Add(err)
		opts.Shard = &sh
	}
	if o.startAt != "" {
		t, err := time.Parse(time.RFC3339, o.startAt)
		if err != nil {
			errs.Fieldf("StartAt", "%q: want an RFC 3339 time, e.g. 2026-12-02T10:00:00Z", o.startAt)
		}
		opts.StartAt = t
	}
	if fs.Changed("max-failure-rate") {
		opts.MaxFailureRate = &o.maxFailureRate
	}
}

// checkSweep refuses the sweep flags that contradict each other.
func (o *loadtestOptions) checkSweep() error {
	if o.sweepN < 0 {
		return inputerr.New(fmt.Errorf("--sweep %d: want the number of rates between the synchronous and the throughput runs", o.sweepN))
	}
	if o.sweepN > 0 && o.traffic.sweep() {
		return inputerr.New(errors.New("--sweep chooses its own rates: give it or a list of --rate/--concurrency, not both"))
	}
	return nil
}

// runSweep runs a load test per point of --rate or --concurrency's list,
// or of --sweep N, each with the traffic at its rate.
func runSweep(cmd *cobra.Command, o *loadtestOptions, opts loadtest.Options) error {
	var points []loadtest.SweepPoint
	for _, r := range o.traffic.rates.vals {
		points = append(points, loadtest.SweepPoint{Rate: r})
	}
	for _, c := range o.traffic.concurrencies.vals {
		points = append(points, loadtest.SweepPoint{Concurrency: int(c)})
	}
	slices.SortFunc(points, func(a, b loadtest.SweepPoint) int {
		return cmp.Compare(a.Rate+float64(a.Concurrency), b.Rate+float64(b.Concurrency))
	})
	out, err := loadtest.Sweep(cmd.Context(), loadtest.SweepOptions{Base: opts, Points: points, Auto: o.sweepN})
	if err == nil || out != nil && len(out.Rows) > 0 {
		err = errors.Join(err, loadtest.WriteSweep(cmd.OutOrStdout(), out))
	}
	return loadtestError(err)
}

// loadtestError maps the load test's typed errors onto main's: an
// interrupted run exits 130 or 143, a refused one 2, the message
// unchanged.
func loadtestError(err error) error {
	if stopped := (*loadtest.InterruptedError)(nil); errors.As(err, &stopped) {
		return &interruptedError{sig: stopped.Signal, msg: err.Error()}
	}
	return err
}
