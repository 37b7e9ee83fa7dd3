package emulator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/workload"
)

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
	level := o.LogLevel
	if level == 0 {
		level = LevelInfo
	}
	classes, err := workload.ClassesFromTraffic(o.Traffic)
	if err != nil {
		return nil, inputerr.Field("Traffic", err)
	}
	sampler, err := NewClassSampler(classes, o.Seed)
	if err != nil {
		return nil, inputerr.Field("Traffic", err)
	}
	emu, err := New(Config{
		Sim: o.Sim, ModelPath: o.ModelPath, ServedModelNames: o.ServedModelNames, TimeScale: o.TimeScale,
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
