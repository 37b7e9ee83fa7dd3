package emulator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// ServeOptions are `thinkcap serve`'s settings, each named in errors by
// the flag that sets it. The command binds its flags to these fields.
type ServeOptions struct {
	Host string
	Port int
	// Names are --served-model-name's values (NamesGiven: the flag was
	// given) and MoreNames the arguments after it: vLLM's nargs="+".
	NamesGiven       bool
	Names, MoreNames []string
	// APIKeys are --api-key's keys (APIKeysGiven: the flag was given);
	// none given: $VLLM_API_KEY's, as vllm serve reads them
	// (vllm/entrypoints/openai/cli_args.py, vllm/envs.py).
	APIKeysGiven      bool
	APIKeys           []string
	LogLevel          string
	DisableLogStats   bool
	LogStatsInterval  time.Duration
	TimeScale         float64
	ReasoningField    string
	NoReasoningParser bool
	FailRate          float64
	AbortRate         float64
	HeaderDelay       time.Duration
	// DrainTimeout is how long in-flight streams may finish once ctx ends.
	DrainTimeout time.Duration

	// Sim is the deployment, ModelPath the model as given (--model),
	// Traffic the profile requests draw their lengths from and Seed the
	// deployment's seed.
	Sim       sim.Config
	ModelPath string
	Traffic   profiles.Traffic
	Seed      uint64
	// Out receives the ready line and the log lines.
	Out io.Writer
}

// Validate checks the flags' values on their own, the first problem named
// by its flag; Serve checks them again.
func (o *ServeOptions) Validate() error {
	if _, err := o.servedNames(); err != nil {
		return err
	}
	if _, err := ParseLogLevel(o.LogLevel); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	if o.APIKeysGiven && (len(o.APIKeys) == 0 || slices.Contains(o.APIKeys, "")) {
		return errors.New("--api-key: empty key (a client could send none and pass)")
	}
	if o.LogStatsInterval <= 0 {
		return fmt.Errorf("--log-stats-interval %v: want a positive duration", o.LogStatsInterval)
	}
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port %d: want 0..65535", o.Port)
	}
	if !(o.TimeScale > 0 && o.TimeScale <= 1e6) { // Config's bound
		return fmt.Errorf("--time-scale %g: want a positive number up to 1e6", o.TimeScale)
	}
	if o.DrainTimeout < 0 {
		return fmt.Errorf("--drain-timeout %v is negative", o.DrainTimeout)
	}
	// Config.Validate checks these too, but names no flag.
	for _, r := range []struct {
		flag string
		v    float64
	}{{"--fail-rate", o.FailRate}, {"--abort-rate", o.AbortRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			return fmt.Errorf("%s must be a fraction in [0, 1], got %g", r.flag, r.v)
		}
	}
	if o.HeaderDelay < 0 {
		return fmt.Errorf("--header-delay %v is negative", o.HeaderDelay)
	}
	if o.ReasoningField != ReasoningField && o.ReasoningField != ReasoningContentField {
		return fmt.Errorf("--reasoning-field %q: want %s or %s", o.ReasoningField, ReasoningField, ReasoningContentField)
	}
	return nil
}

// servedNames are --served-model-name's names, comma-separated or
// repeated in the flag, then the arguments after it, each once; arguments
// without the flag are an error. None given: nil (Config's default).
func (o *ServeOptions) servedNames() ([]string, error) {
	if !o.NamesGiven {
		if len(o.MoreNames) > 0 {
			return nil, fmt.Errorf("unexpected arguments %q: serve takes flags only (more served model names follow --served-model-name)", o.MoreNames)
		}
		return nil, nil
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range append(append([]string(nil), o.Names...), o.MoreNames...) {
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

func (o *ServeOptions) apiKeys() []string {
	if len(o.APIKeys) > 0 {
		return o.APIKeys
	}
	if k := os.Getenv("VLLM_API_KEY"); k != "" {
		return []string{k}
	}
	return nil
}

// newServer builds the server the options describe; every error is the
// options' (an inputerr.Error).
func (o *ServeOptions) newServer() (*Server, error) {
	if err := o.Validate(); err != nil {
		return nil, inputerr.New(err)
	}
	names, _ := o.servedNames()
	level, _ := ParseLogLevel(o.LogLevel)
	classes, err := workload.ClassesFromTraffic(o.Traffic)
	if err != nil {
		return nil, inputerr.Field("Traffic", err)
	}
	sampler, err := NewClassSampler(classes, o.Seed)
	if err != nil {
		return nil, inputerr.Field("Traffic", err)
	}
	emu, err := New(Config{
		Sim: o.Sim, ModelPath: o.ModelPath, ServedModelNames: names, TimeScale: o.TimeScale,
		ReasoningField: o.ReasoningField, NoReasoningParser: o.NoReasoningParser,
		Traffic:  sampler.Draw,
		FailRate: o.FailRate, AbortRate: o.AbortRate, HeaderDelay: o.HeaderDelay, Seed: o.Seed,
		Log:              NewLogger(o.Out, level),
		LogStatsInterval: o.LogStatsInterval, DisableLogStats: o.DisableLogStats,
		APIKeys: o.apiKeys(),
	})
	if err != nil {
		return nil, inputerr.New(err)
	}
	return emu, nil
}

// Serve builds the server, listens on Host:Port, prints the ready line to
// Out and serves until ctx is done; then it drains in-flight streams for
// up to DrainTimeout and stops, returning nil either way. Errors of the
// options (flags, the traffic profile, the address) are inputerr.Errors.
func Serve(ctx context.Context, o ServeOptions) error {
	emu, err := o.newServer()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(o.Port)))
	if err != nil {
		return inputerr.Field("Address", err)
	}
	engineCtx, stopEngine := context.WithCancel(context.Background())
	defer stopEngine()
	go func() { _ = emu.Run(engineCtx) }()
	defer emu.Close()
	srv := &http.Server{Handler: emu.Handler(), ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	writeReady(o.Out, ln.Addr(), emu)

	select {
	case err := <-served:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	dctx, cancel := context.WithTimeout(context.Background(), o.DrainTimeout)
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

// writeReady prints the line that says where the server listens and what
// it simulates (clients and tests wait for its http://).
func writeReady(w io.Writer, addr net.Addr, emu *Server) {
	c, capacity := emu.SimConfig(), emu.Capacity()
	gpus := fmt.Sprintf("%d× %s", c.TensorParallelSize*max(c.PipelineParallelSize, 1), c.GPU.Name)
	if c.PipelineParallelSize > 1 {
		gpus += fmt.Sprintf(" (PP %d)", c.PipelineParallelSize)
	}
	fmt.Fprintf(w, "thinkcap serve: http://%s model %s (%s on %s, %d replica(s)): %d KV blocks of %d tokens = %d tokens per replica, max concurrency %.2fx at max_model_len %d; time scale %g\n",
		addr, strings.Join(emu.ServedModelNames(), ", "), c.Model.Name, gpus, c.Replicas,
		capacity.NumGPUBlocks, capacity.BlockSize, capacity.KVCacheTokens, capacity.MaxConcurrency, c.MaxModelLen, emu.TimeScale())
}
