package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/emulator"
	"github.com/thinkcap/thinkcap/workload"
)

type serveOptions struct {
	dep            deploymentFlags
	host           string
	port           int
	servedNames    []string
	apiKeys        []string
	logLevel       string
	noLogStats     bool
	statsInterval  time.Duration
	timeScale      float64
	traffic        string
	reasoningField string
	noParser       bool
	failRate       float64
	abortRate      float64
	headerDelay    time.Duration
	drainTimeout   time.Duration
}

func newServeCmd() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a vLLM-compatible API whose timing comes from the simulator",
		Long: `serve answers vLLM's OpenAI-compatible API (/v1/models, /v1/chat/completions,
/v1/completions, /health, /version, /metrics) with synthetic text, timed by the
same simulated engine as simulate, advancing on the wall clock: requests queue,
the KV cache fills, preemptions happen and TPOT grows with the batch. Use it to
test clients, gateways, dashboards and timeouts without GPUs.

The request decides whether the model thinks (chat_template_kwargs
enable_thinking, reasoning_effort, and whether the model can turn thinking
off); --traffic only says how long: thinking off draws from its classes that
do not think, a reasoning_effort from the class of that mode, thinking on
from its thinking classes. Requests that force their length (ignore_eos, or
min_tokens = max_tokens) generate max_tokens, split as a draw says.
--time-scale 10 runs ten times faster than real time; /version reports the
scale.

As vLLM, it serves the --model argument as given (Qwen/Qwen3-8B or qwen3-8b
both pick the profile) unless --served-model-name names others; a request
may use any of them.`,
		Example: `  thinkcap serve --model Qwen/Qwen3-8B --gpu h100-sxm --port 8000
  thinkcap serve --model qwen3-8b --served-model-name qwen3 Qwen/Qwen3-8B --log-level debug
  curl -N localhost:8000/v1/chat/completions -d '{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"hi"}],"max_tokens":20,"stream":true}'`,
		// Arguments are more served model names: vLLM's
		// --served-model-name takes several (nargs="+").
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runServe(cmd, &o, args) },
	}
	fs := cmd.Flags()
	o.dep.register(fs)
	// vllm serve's model is a Hugging Face id, served under that name.
	fs.Lookup("model").DefValue = "Qwen/Qwen3-8B"
	o.dep.model = "Qwen/Qwen3-8B"
	fs.StringVar(&o.host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&o.port, "port", 8000, "port to listen on (0: any free port)")
	fs.StringSliceVar(&o.servedNames, "served-model-name", nil, "names the API answers to, the first listed first (default: --model as given); several: space-separated, comma-separated or repeated")
	fs.StringSliceVar(&o.apiKeys, "api-key", nil, "require one of these keys (Authorization: Bearer KEY) on /v1, as vllm serve --api-key; default $VLLM_API_KEY")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug (adds an access line per request), info, warning, error or critical")
	fs.BoolVar(&o.noLogStats, "disable-log-stats", false, "do not log the periodic throughput and KV cache line")
	fs.DurationVar(&o.statsInterval, "log-stats-interval", 10*time.Second, "how often to log the throughput and KV cache line (vLLM's VLLM_LOG_STATS_INTERVAL)")
	fs.Float64Var(&o.timeScale, "time-scale", 1, "simulated seconds per wall second (>1 runs faster than real time)")
	fs.StringVar(&o.traffic, "traffic", defaultTraffic, "traffic profile whose think/answer lengths requests without forced lengths get")
	fs.StringVar(&o.reasoningField, "reasoning-field", emulator.ReasoningField, "reasoning (vLLM ≥ 0.11) or reasoning_content (older servers)")
	fs.BoolVar(&o.noParser, "no-reasoning-parser", false, "emit thinking inline in the content between <think> and </think>")
	fs.Float64Var(&o.failRate, "fail-rate", 0, "fraction of requests answered 500 or 503 (fault injection)")
	fs.Float64Var(&o.abortRate, "abort-rate", 0, "fraction of streams whose connection is dropped mid-way (fault injection)")
	fs.DurationVar(&o.headerDelay, "header-delay", 0, "sleep before the response headers (fault injection)")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 30*time.Second, "on SIGTERM, how long in-flight streams may finish")
	return cmd
}

func runServe(cmd *cobra.Command, o *serveOptions, args []string) error {
	names, err := servedModelNames(cmd.Flags().Changed("served-model-name"), o.servedNames, args)
	if err != nil {
		return badInput(err)
	}
	level, err := emulator.ParseLogLevel(o.logLevel)
	if err != nil {
		return badInput(fmt.Errorf("--log-level: %w", err))
	}
	if cmd.Flags().Changed("api-key") && (len(o.apiKeys) == 0 || slices.Contains(o.apiKeys, "")) {
		return badInput(errors.New("--api-key: empty key (a client could send none and pass)"))
	}
	if o.statsInterval <= 0 {
		return badInput(fmt.Errorf("--log-stats-interval %v: want a positive duration", o.statsInterval))
	}
	if o.port < 0 || o.port > 65535 {
		return badInput(fmt.Errorf("--port %d: want 0..65535", o.port))
	}
	if !(o.timeScale > 0 && o.timeScale <= 1e6) { // emulator.Config's bound
		return badInput(fmt.Errorf("--time-scale %g: want a positive number up to 1e6", o.timeScale))
	}
	if o.drainTimeout < 0 {
		return badInput(fmt.Errorf("--drain-timeout %v is negative", o.drainTimeout))
	}
	// The fault injection and the reasoning field, named as flags before
	// the engine is built (emulator.Config.Validate checks them too).
	for _, r := range []struct {
		flag string
		v    float64
	}{{"--fail-rate", o.failRate}, {"--abort-rate", o.abortRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			return badInput(fmt.Errorf("%s must be a fraction in [0, 1], got %g", r.flag, r.v))
		}
	}
	if o.headerDelay < 0 {
		return badInput(fmt.Errorf("--header-delay %v is negative", o.headerDelay))
	}
	if o.reasoningField != emulator.ReasoningField && o.reasoningField != emulator.ReasoningContentField {
		return badInput(fmt.Errorf("--reasoning-field %q: want %s or %s", o.reasoningField, emulator.ReasoningField, emulator.ReasoningContentField))
	}
	cat, err := o.dep.catalog()
	if err != nil {
		return err
	}
	cfg, err := o.dep.config(cat)
	if err != nil {
		return err
	}
	t, err := lookupTraffic(cat, o.traffic)
	if err != nil {
		return badInput(fmt.Errorf("--traffic: %w", err))
	}
	classes, err := workload.ClassesFromTraffic(t)
	if err != nil {
		return badInput(fmt.Errorf("--traffic: %w", err))
	}
	sampler, err := emulator.NewClassSampler(classes, uint64(o.dep.seed))
	if err != nil {
		return badInput(fmt.Errorf("--traffic: %w", err))
	}
	emu, err := emulator.New(emulator.Config{
		Sim: cfg, ModelPath: o.dep.model, ServedModelNames: names, TimeScale: o.timeScale,
		ReasoningField: o.reasoningField, NoReasoningParser: o.noParser,
		Traffic:  sampler.Draw,
		FailRate: o.failRate, AbortRate: o.abortRate, HeaderDelay: o.headerDelay, Seed: uint64(o.dep.seed),
		Log:              emulator.NewLogger(cmd.OutOrStdout(), level),
		LogStatsInterval: o.statsInterval, DisableLogStats: o.noLogStats,
		APIKeys: serveAPIKeys(o.apiKeys),
	})
	if err != nil {
		return badInput(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.host, strconv.Itoa(o.port)))
	if err != nil {
		return badInput(fmt.Errorf("--host/--port: %w", err))
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUntil(ctx, cmd, emu, ln, o.drainTimeout)
}

// servedModelNames are --served-model-name's names: comma-separated or
// repeated in the flag, and the arguments after it (vLLM's nargs="+").
// Arguments without the flag are an error.
func servedModelNames(given bool, flag, args []string) ([]string, error) {
	if !given {
		if len(args) > 0 {
			return nil, fmt.Errorf("unexpected arguments %q: serve takes flags only (more served model names follow --served-model-name)", args)
		}
		return nil, nil
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range append(append([]string(nil), flag...), args...) {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, errors.New("--served-model-name: empty name")
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, errors.New("--served-model-name: no name given")
	}
	return names, nil
}

// serveUntil serves on ln until ctx is done, then drains in-flight
// streams for up to drain and stops: a clean exit (0) either way.
func serveUntil(ctx context.Context, cmd *cobra.Command, emu *emulator.Server, ln net.Listener, drain time.Duration) error {
	engineCtx, stopEngine := context.WithCancel(context.Background())
	defer stopEngine()
	go func() { _ = emu.Run(engineCtx) }()
	defer emu.Close()
	srv := &http.Server{Handler: emu.Handler(), ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	c, capacity := emu.SimConfig(), emu.Capacity()
	fmt.Fprintf(cmd.OutOrStdout(), "thinkcap serve: http://%s model %s (%s on %d× %s, %d replica(s)): %d KV blocks of %d tokens = %d tokens per replica, max concurrency %.2fx at max_model_len %d; time scale %g\n",
		ln.Addr(), strings.Join(emu.ServedModelNames(), ", "), c.Model.Name, c.TensorParallelSize, c.GPU.Name, c.Replicas,
		capacity.NumGPUBlocks, capacity.BlockSize, capacity.KVCacheTokens, capacity.MaxConcurrency, c.MaxModelLen, emu.TimeScale())

	select {
	case err := <-served:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	dctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	// New requests get 503 from now; emu.Shutdown logs what it drained.
	drained := make(chan struct{})
	go func() { _ = emu.Shutdown(dctx); close(drained) }()
	if err := srv.Shutdown(dctx); err != nil {
		_ = srv.Close() // the drain timeout passed: close the remaining streams
	}
	<-drained
	return nil
}

// serveAPIKeys are --api-key's keys, else VLLM_API_KEY's, as vllm serve
// reads them (vllm/entrypoints/openai/cli_args.py, vllm/envs.py).
func serveAPIKeys(flag []string) []string {
	if len(flag) > 0 {
		return flag
	}
	if k := os.Getenv("VLLM_API_KEY"); k != "" {
		return []string{k}
	}
	return nil
}
