package sim

import (
	"github.com/thinkcap/thinkcap/workload"
)

// Live runs the simulator on a clock the caller advances, for an emulator
// that serves real HTTP clients: it submits requests as they arrive,
// advances the model to the wall clock (scaled), and streams every token
// when the engine step that produced it completes. Times are the
// simulator's nanoseconds. Live is not safe for concurrent use: one
// goroutine drives it.
type Live struct {
	c     *cluster
	reqs  map[*seq]liveRequest // requests not finished yet
	stats LiveStats
}

// liveRequest is a submitted request's record and where its outputs go.
type liveRequest struct {
	req  workload.Request
	sink TokenSink
}

// TokenSink receives one live request's outputs.
type TokenSink interface {
	// Tokens reports outputs of one engine step at time t: think tokens
	// first, then answer tokens (several with speculative decoding).
	Tokens(think, answer int, t int64)
	// Finished reports the request's result record: ok, rejected (it can
	// never fit max_model_len or the cache) or cancelled.
	Finished(res workload.Result)
}

// LiveStats is what a vLLM server's /metrics would show now.
type LiveStats struct {
	Running, Waiting int
	KVUsage          float64 // mean over replicas, 0..1
	Preemptions      int64
	PromptTokens     int64 // prompts of requests that produced a first token
	GenerationTokens int64
	// PrefixQueries and PrefixHits are vLLM's prefix-cache counters, in
	// tokens: the prompts looked up at first scheduling and what the cache
	// held of them.
	PrefixQueries, PrefixHits int64
	Finished                  int64
}

// NewLive prepares a deployment for live requests.
func NewLive(cfg Config) (*Live, error) {
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	capacity, err := ComputeCapacity(&cfg)
	if err != nil {
		return nil, err
	}
	c, err := newCluster(&cfg, capacity, nil, Options{})
	if err != nil {
		return nil, err
	}
	l := &Live{c: c, reqs: map[*seq]liveRequest{}}
	for _, e := range c.engines {
		e.finished = l.finished
		e.onTokens = l.tokens
	}
	return l, nil
}

// Config is the resolved deployment; Capacity its KV capacity.
func (l *Live) Config() Config { return *l.c.cfg }

// Capacity is one replica's KV capacity.
func (l *Live) Capacity() Capacity { return l.c.capacity }

// Handle names a submitted request for Cancel.
type Handle struct{ s *seq }

// Submit adds a request arriving at t. One that cannot fit max_model_len
// finishes at once as rejected.
func (l *Live) Submit(r workload.Request, t int64, sink TokenSink) Handle {
	l.AdvanceTo(t)
	s := &seq{
		arrival: t, rootArrival: t, priority: r.Priority,
		prompt: r.PromptTokens, think: r.ThinkTokens, output: r.OutputTokens(),
		numTokens: r.PromptTokens, prefixID: r.PrefixID, prefixTokens: r.PrefixTokens,
		firstScheduled: -1, firstToken: -1, firstAnswer: -1, lastToken: -1,
	}
	l.reqs[s] = liveRequest{req: r, sink: sink}
	if reason := admissible(&r, l.c.cfg.MaxModelLen); reason != "" {
		s.rejected, s.rejectReason = true, reason
		l.report(s)
		return Handle{}
	}
	e := l.c.route()
	s.replica = e.id
	l.c.toEngine(e, s, t)
	return Handle{s}
}

// Cancel aborts a request (the client went away) at time t: it leaves the
// queue or the batch, its blocks are freed, and it finishes cancelled.
func (l *Live) Cancel(h Handle, t int64) {
	s := h.s
	if s == nil {
		return
	}
	lr, live := l.reqs[s]
	if !live {
		return
	}
	l.AdvanceTo(t)
	e := l.c.engines[s.replica]
	if !l.c.leaveFront(e, s, t) && !e.waiting.remove(s) {
		for i, x := range e.running {
			if x == s {
				e.running = append(e.running[:i], e.running[i+1:]...)
				e.release(s, false)
				break
			}
		}
	}
	s.running, s.newTokens, s.drafts = false, 0, 0
	delete(l.reqs, s)
	l.stats.Finished++
	lr.sink.Finished(workload.Result{Request: lr.req, Status: workload.StatusCancelled, Replica: s.replica})
}

// NextEvent is when the model next needs to run, or never when idle.
func (l *Live) NextEvent() int64 {
	t := l.c.nextFront()
	for _, e := range l.c.engines {
		t = min(t, e.nextEvent())
	}
	return t
}

// AdvanceTo runs every engine event due at or before t.
func (l *Live) AdvanceTo(t int64) {
	for {
		te, ei := int64(never), -1
		for i, e := range l.c.engines {
			if n := e.nextEvent(); n < te {
				te, ei = n, i
			}
		}
		if tt := l.c.nextFront(); tt <= te && tt <= t {
			l.c.front()
			continue
		}
		if ei < 0 || te > t {
			break
		}
		l.c.engines[ei].fire()
	}
	for _, e := range l.c.engines {
		if !e.inFlight && e.now < t && e.waiting.len() == 0 && len(e.running) == 0 {
			e.idle(t)
		}
	}
}

// Stats is the state now, as vLLM's gauges and counters would show it.
func (l *Live) Stats() LiveStats {
	st := l.stats
	st.Running, st.Waiting, st.KVUsage, st.Preemptions = 0, 0, 0, 0
	for _, e := range l.c.engines {
		st.Running += len(e.running)
		st.Waiting += e.waiting.len()
		st.KVUsage += e.pool.usage() / float64(len(l.c.engines))
		st.Preemptions += e.preemptions
	}
	return st
}

func (l *Live) tokens(s *seq, out int, t int64) {
	before := s.generated - out
	think := max(0, min(s.generated, s.think)-before)
	if before == 0 {
		l.stats.PromptTokens += int64(s.prompt)
		l.stats.PrefixQueries += int64(s.prompt)
		l.stats.PrefixHits += int64(s.cachedTokens)
	}
	l.stats.GenerationTokens += int64(out)
	if lr, ok := l.reqs[s]; ok {
		lr.sink.Tokens(think, out-think, t)
	}
}

func (l *Live) finished(_ *engine, s *seq) { l.report(s) }

// report finishes a request: its result record goes to its sink.
func (l *Live) report(s *seq) {
	lr, ok := l.reqs[s]
	if !ok {
		return
	}
	delete(l.reqs, s)
	l.stats.Finished++
	lr.sink.Finished(resultOf(&lr.req, s))
}
