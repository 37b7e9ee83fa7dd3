package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/emulator"
	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// serveOptions are the deployment flags and the traffic profile, which
// runServe resolves, the flags it parses (names, log level), and the
// emulator's own flags, bound to its options.
type serveOptions struct {
	dep      deploymentFlags
	traffic  string
	names    []string
	logLevel string
	emulator.ServeOptions
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
	fs.StringVar(&o.Host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&o.Port, "port", 8000, "port to listen on (0: any free port)")
	fs.StringSliceVar(&o.names, "served-model-name", nil, "names the API answers to, the first listed first (default: --model as given); several: space-separated, comma-separated or repeated")
	fs.StringSliceVar(&o.APIKeys, "api-key", nil, "require one of these keys (Authorization: Bearer KEY) on /v1, as vllm serve --api-key; default $VLLM_API_KEY")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug (adds an access line per request), info, warning, error or critical")
	fs.BoolVar(&o.DisableLogStats, "disable-log-stats", false, "do not log the periodic throughput and KV cache line")
	fs.DurationVar(&o.LogStatsInterval, "log-stats-interval", 10*time.Second, "how often to log the throughput and KV cache line (vLLM's VLLM_LOG_STATS_INTERVAL)")
	fs.Float64Var(&o.TimeScale, "time-scale", 1, "simulated seconds per wall second (>1 runs faster than real time)")
	fs.StringVar(&o.traffic, "traffic", defaultTraffic, "traffic profile whose think/answer lengths requests without forced lengths get")
	fs.StringVar(&o.ReasoningField, "reasoning-field", emulator.ReasoningField, "reasoning (vLLM ≥ 0.11) or reasoning_content (older servers)")
	fs.BoolVar(&o.NoReasoningParser, "no-reasoning-parser", false, "emit thinking inline in the content between <think> and </think>")
	fs.Float64Var(&o.FailRate, "fail-rate", 0, "fraction of requests answered 500 or 503 (fault injection)")
	fs.Float64Var(&o.AbortRate, "abort-rate", 0, "fraction of streams whose connection is dropped mid-way (fault injection)")
	fs.DurationVar(&o.HeaderDelay, "header-delay", 0, "sleep before the response headers (fault injection)")
	fs.DurationVar(&o.DrainTimeout, "drain-timeout", 30*time.Second, "on SIGTERM, how long in-flight streams may finish")
	return cmd
}

func runServe(cmd *cobra.Command, o *serveOptions, args []string) error {
	if err := o.parse(cmd, args); err != nil { // before any profile is read
		return err
	}
	cat, err := o.dep.catalog()
	if err != nil {
		return err
	}
	if o.Sim, err = o.dep.config(cat); err != nil {
		return err
	}
	if o.Traffic, err = lookupTraffic(cat, o.traffic); err != nil {
		return inputerr.Field("Traffic", err)
	}
	o.ModelPath, o.Seed, o.Out = o.dep.model, uint64(o.dep.seed), cmd.OutOrStdout()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return emulator.Serve(ctx, o.ServeOptions)
}

// parse reads the flags that need it (--served-model-name with the
// arguments after it, --log-level) into the emulator's options and checks
// them all, reporting every problem.
func (o *serveOptions) parse(cmd *cobra.Command, args []string) error {
	var problems inputerr.List
	var err error
	o.ServedModelNames, err = emulator.ParseServedNames(cmd.Flags().Changed("served-model-name"), o.names, args)
	problems.Add(err)
	o.LogLevel, err = emulator.ParseLogLevel(o.logLevel)
	problems.Field("LogLevel", err)
	o.APIKeysGiven = cmd.Flags().Changed("api-key")
	problems.Add(o.Validate())
	return problems.Err()
}
