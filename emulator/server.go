package emulator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thinkcap/thinkcap/sim"
)

// Server is the emulated vLLM server: HTTP handlers in front of one engine
// goroutine (Run) that owns the simulator.
type Server struct {
	cfg      Config
	simCfg   sim.Config
	rule     thinkingRule // how the model answers the thinking controls
	capacity sim.Capacity
	eng      *engine
	metrics  *metrics
	handler  http.Handler
	created  int64 // unix seconds, the "created" of every body

	stats atomic.Pointer[sim.LiveStats]

	mu  sync.Mutex // guards rng and cfg.Traffic
	rng *rand.Rand

	active   atomic.Int64 // requests being served
	draining atomic.Bool
	running  atomic.Bool
	stop     chan struct{} // closed by Close
	stopOnce sync.Once
	runDone  chan struct{}
}

// New prepares a server; call Run to start its engine.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	live, err := sim.NewLive(cfg.Sim)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	s := &Server{
		cfg: cfg, simCfg: live.Config(), capacity: live.Capacity(), rule: ruleFor(cfg.Sim.Model),
		created: time.Now().Unix(),
		rng:     rand.New(rand.NewPCG(cfg.Seed, 0x7468696e6b636170)),
		stop:    make(chan struct{}),
		runDone: make(chan struct{}),
	}
	s.eng = &engine{
		live: live, scale: cfg.TimeScale, start: time.Now(),
		submitc: make(chan *job), cancelc: make(chan *job),
	}
	st := live.Stats()
	s.stats.Store(&st)
	s.metrics = newMetrics(s)
	s.handler = accessLog(cfg.Log, requireAPIKey(cfg.APIKeys, s.routes()))
	return s, nil
}

// Handler serves vLLM's routes.
func (s *Server) Handler() http.Handler { return s.handler }

// SimConfig is the resolved deployment; Capacity one replica's KV capacity.
func (s *Server) SimConfig() sim.Config { return s.simCfg }

// Capacity is one replica's KV capacity.
func (s *Server) Capacity() sim.Capacity { return s.capacity }

// ModelName is the first served model name: the one responses carry.
func (s *Server) ModelName() string { return s.cfg.ServedModelNames[0] }

// ServedModelNames are the names requests may use, the first first.
func (s *Server) ServedModelNames() []string { return append([]string(nil), s.cfg.ServedModelNames...) }

// serves reports whether name is one of the served model names.
func (s *Server) serves(name string) bool {
	for _, n := range s.cfg.ServedModelNames {
		if n == name {
			return true
		}
	}
	return false
}

// TimeScale is the simulated seconds per wall second.
func (s *Server) TimeScale() float64 { return s.cfg.TimeScale }

// Stats is the engine's state as last published.
func (s *Server) Stats() sim.LiveStats { return *s.stats.Load() }

// Run drives the engine until ctx is done or Close is called. It may be
// called once.
func (s *Server) Run(ctx context.Context) error {
	if !s.running.CompareAndSwap(false, true) {
		return errors.New("emulator: run called twice")
	}
	defer close(s.runDone)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	if s.cfg.Log != nil && !s.cfg.DisableLogStats {
		go s.logStats(ctx, s.cfg.LogStatsInterval)
	}
	s.eng.run(ctx, func(st sim.LiveStats) { s.stats.Store(&st) })
	return nil
}

// Close stops the engine: requests in flight end with an error. It waits
// for Run to return.
func (s *Server) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	if s.running.Load() {
		<-s.runDone
	}
}

// Shutdown drains: new requests are refused with 503 while the ones in
// flight finish, until none is left (nil) or ctx is done (its error). It
// logs how many it drained, or how many were still running when ctx
// ended. It does not stop the engine: call Close after.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	start, inFlight := time.Now(), s.active.Load()
	s.cfg.Log.Infof("Shutting down: draining %d in-flight streams", inFlight)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for s.active.Load() > 0 {
		select {
		case <-ctx.Done():
			left := s.active.Load()
			s.cfg.Log.Warnf("Drain timeout after %.2fs: drained %d streams, closing the %d still running",
				time.Since(start).Seconds(), max(inFlight-left, 0), left)
			return ctx.Err()
		case <-tick.C:
		}
	}
	s.cfg.Log.Infof("Drained %d streams in %.2fs", inFlight, time.Since(start).Seconds())
	return nil
}

// Active is the number of requests being served.
func (s *Server) Active() int { return int(s.active.Load()) }

// chance draws one seeded Bernoulli(p) for fault injection.
func (s *Server) chance(p float64) bool {
	if p <= 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Float64() < p
}

// uniform draws a seeded integer in [0, n).
func (s *Server) uniform(n int) int {
	if n <= 1 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.IntN(n)
}

// traffic draws one (think, answer) pair for thinking mode m.
func (s *Server) traffic(m Thinking) (think, answer int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	think, answer = s.cfg.Traffic(m)
	return max(think, 0), max(answer, 0)
}

// submit hands j to the engine and waits until it is in; false when the
// server stopped first.
func (s *Server) submit(j *job) bool {
	select {
	case s.eng.submitc <- j:
	case <-s.stop:
		return false
	}
	select {
	case <-j.ack:
		return true
	case <-s.stop:
		return false
	}
}

// cancel aborts j in the engine (the client went away); a finished job is
// left alone by sim.Live.
func (s *Server) cancel(j *job) {
	select {
	case s.eng.cancelc <- j:
	case <-s.stop:
	}
}
