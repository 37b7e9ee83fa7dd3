package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
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
	servedName     string
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

Requests that force their length (ignore_eos, or min_tokens = max_tokens)
generate max_tokens; others draw their thinking and answer lengths from
--traffic. --time-scale 10 runs ten times faster than real time; /version
reports the scale.`,
		Example: `  thinkcap serve --model qwen3-8b --gpu h100-sxm --port 8000
  curl -N localhost:8000/v1/chat/completions -d '{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"hi"}],"max_tokens":20,"stream":true}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, &o) },
	}
	fs := cmd.Flags()
	o.dep.register(fs)
	fs.StringVar(&o.host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&o.port, "port", 8000, "port to listen on (0: any free port)")
	fs.StringVar(&o.servedName, "served-model-name", "", "model name in the API (default: the model's Hugging Face id)")
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

func runServe(cmd *cobra.Command, o *serveOptions) error {
	if o.port < 0 || o.port > 65535 {
		return badInput(fmt.Errorf("--port %d: want 0..65535", o.port))
	}
	if !(o.timeScale > 0) {
		return badInput(fmt.Errorf("--time-scale %g: want a positive number", o.timeScale))
	}
	if o.drainTimeout < 0 {
		return badInput(fmt.Errorf("--drain-timeout %v is negative", o.drainTimeout))
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
	emu, err := emulator.New(emulator.Config{
		Sim: cfg, ModelName: o.servedName, TimeScale: o.timeScale,
		ReasoningField: o.reasoningField, NoReasoningParser: o.noParser,
		Traffic:  trafficSampler(classes, uint64(o.dep.seed)),
		FailRate: o.failRate, AbortRate: o.abortRate, HeaderDelay: o.headerDelay, Seed: uint64(o.dep.seed),
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
		ln.Addr(), emu.ModelName(), c.Model.Name, c.TensorParallelSize, c.GPU.Name, c.Replicas,
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
	go func() { _ = emu.Shutdown(dctx) }() // new requests get 503 from now
	if err := srv.Shutdown(dctx); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "thinkcap serve: drain timeout %v passed: closing the remaining streams\n", drain)
		_ = srv.Close()
	}
	return nil
}

// trafficSampler draws (think, answer) from the traffic profile's classes
// by share, each length from its own seeded stream.
func trafficSampler(classes []workload.Class, seed uint64) func() (int, int) {
	classRand := workload.NewStream(seed, "serve/class")
	think := workload.NewStream(seed, "serve/think")
	answer := workload.NewStream(seed, "serve/answer")
	total := 0.0
	for _, c := range classes {
		total += max(c.Share, 0)
	}
	return func() (int, int) {
		u := classRand.Float64() * total
		k := len(classes) - 1
		for i, c := range classes {
			if u < max(c.Share, 0) {
				k = i
				break
			}
			u -= max(c.Share, 0)
		}
		c := classes[k]
		t, a := 0, 0
		if c.Think != nil {
			t = c.Think.Sample(think)
		}
		if c.Answer != nil {
			a = c.Answer.Sample(answer)
		}
		return t, a
	}
}
