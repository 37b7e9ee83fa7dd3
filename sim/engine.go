package sim

import (
	"math"

	"github.com/thinkcap/thinkcap/internal/histogram"
	"github.com/thinkcap/thinkcap/internal/splitmix"
)

// never is the time of an event that will not happen.
const never = math.MaxInt64

// engine is one vLLM replica: an EngineCore with its scheduler, KV cache and
// a step-time model, advancing in integer nanoseconds. It does not know
// about other replicas or the arrival process; the cluster drives it.
type engine struct {
	id int

	// Configuration, resolved.
	layout           KVLayout
	bs               int
	maxModelLen      int
	maxNumSeqs       int
	maxBatchedTokens int
	longPrefill      int
	lookahead        int // speculative look-ahead slots per running request
	draftSlots       int // input-budget slots per request for the drafter
	specK            int
	dropEagleBlock   bool
	prefixCaching    bool // shared prompt prefixes hit (full-attention layouts)
	resumeHits       bool // prefix caching on: a request's own cached blocks hit on resume
	priority         bool
	reserveFullISL   bool // admit a waiting request only when its whole sequence fits (kvcache.go admissible)
	// admitLag: async scheduling (vllm/v1/engine/core.py
	// step_with_batch_queue, two batches in flight) schedules the next
	// step when the current one starts, so a request that reaches the
	// engine while a step runs joins the step after the next one. cutoff
	// is the latest engine arrival the step being scheduled can take.
	admitLag bool
	cutoff   int64

	stepModel stepTimer
	sampler   *AcceptanceSampler
	rngState  uint64 // the replica's own random stream (splitmix64)
	apiState  uint64 // its API server's, for the front end's time (frontend.go)
	due       int64  // nextEvent as the cluster's heap last saw it
	// horizon is the cluster's next event that could change this
	// replica's future (an arrival, a front-end hand-over; with follow-ups,
	// a closed loop or a result callback, another replica's event): a
	// decode stretch ends before it (decodejump.go). nil: no stretches.
	horizon func(*engine) int64
	jump    decodeJump
	heapAt  int // index in the cluster's engineHeap

	pool     *blockPool
	prefixes map[string]*prefixEntry
	running  []*seq
	waiting  *startedQueue
	// api is the replica's API server (frontend.go); inFront counts the
	// requests in it or in transit from it, which the router counts as
	// this replica's.
	api     apiServer
	inFront int
	// tokenizerFree is when the LLM class's tokenizer has tokenised every
	// prompt given so far (frontend.go).
	tokenizerFree int64

	// The step in flight.
	now       int64
	stepStart int64
	inFlight  bool
	stepEnd   int64
	batch     Batch
	done      []*seq // requests finished by the step just completed

	preemptions int64
	steps       int64
	stretched   int64 // of which in decode stretches
	stats       occupancy
	timeline    *timeline
	itl         *histogram.Durations

	// finished is called for each request that completes, at its time.
	finished func(e *engine, s *seq)
	// onTokens, if set, is told of every output a step produces (the live
	// emulator streams them); nil in batch runs.
	onTokens func(s *seq, out int, t int64)
	// onStep, if set, sees every step scheduled (Options.OnStep).
	onStep func(replica int, startNs, durNs int64, b *Batch)
}

// uniform is the next number in [0, 1) of the replica's random stream:
// splitmix64, a few nanoseconds, drawn once per decoding request per step
// under speculative decoding.
func (e *engine) uniform() float64 { return splitmix.Float64(&e.rngState) }

// stepTimer prices one engine step; *StepModel is the real one, tests use
// simpler ones.
type stepTimer interface {
	StepTime(b *Batch) int64
}

// nextEvent is when the engine next needs attention: the end of the step in
// flight, now if work is waiting, or never.
func (e *engine) nextEvent() int64 {
	if e.inFlight {
		return e.stepEnd
	}
	if e.waiting.len() > 0 || len(e.running) > 0 {
		return e.now
	}
	return never
}

// enqueue adds an arrived request to the waiting queue at time t.
func (e *engine) enqueue(s *seq, t int64) {
	if !e.inFlight && t > e.now {
		e.idle(t)
	}
	if s.prefixTokens > 0 && e.prefixCaching && s.prefixID != "" {
		p := e.prefixes[s.prefixID]
		if p == nil {
			p = &prefixEntry{group: e.pool.newGroup()}
			e.prefixes[s.prefixID] = p
		}
		s.prefix = p
	}
	e.waiting.pushBack(s)
}

// idle moves the clock of an idle engine to t.
func (e *engine) idle(t int64) {
	e.observe(e.now, t)
	e.now = t
}

// fire handles the engine's next event: it completes the step in flight,
// then schedules the next one at the same instant.
func (e *engine) fire() {
	e.cutoff = never // an idle engine's loop schedules what arrives at once
	if e.inFlight {
		e.now = e.stepEnd
		e.inFlight = false
		e.complete()
		if e.admitLag {
			// This step was scheduled when the one just ended started.
			e.cutoff = e.stepStart
		}
	}
	if e.waiting.len() == 0 && len(e.running) == 0 {
		return
	}
	e.decodeStretch()
	idle := len(e.running) == 0
	scheduled := e.schedule()
	if !scheduled && idle && e.cutoff != never {
		// Nothing running and nothing the lagged step could take: that
		// step holds nothing, and the one scheduled now takes what has
		// arrived. (vLLM's lagged step may still hold the wasted decode of
		// a request that finished in the step just ended, which is not
		// modelled: docs/model-limits.md.)
		e.cutoff = never
		scheduled = e.schedule()
	}
	if !scheduled {
		if len(e.running) == 0 && e.waiting.len() > 0 {
			// The head of the queue can never fit an empty cache; capacity
			// checks make this unreachable, but never spin on it.
			s := e.waiting.pop()
			s.rejected, s.rejectReason = true, "the request never fits the KV cache"
			e.finished(e, s)
		}
		return
	}
	dt := e.stepModel.StepTime(&e.batch)
	e.steps++
	e.stepStart = e.now
	e.inFlight = true
	e.stepEnd = e.now + dt
	if e.onStep != nil {
		e.onStep(e.id, e.now, dt, &e.batch)
	}
	e.observe(e.now, e.stepEnd)
}

// complete applies the outputs of the step that just ended
// (Scheduler.update_from_output): scheduled tokens are computed; a request
// that caught up with its sequence samples one token, plus the accepted
// draft tokens under speculative decoding, whose rejected tail is rolled
// back; finished requests leave the running list in order.
func (e *engine) complete() {
	t := e.now
	// Requests that also produced a token in the previous step share one
	// inter-token latency: count them, add once.
	sameITL := int64(0)
	kept := e.running[:0]
	for _, s := range e.running {
		if s.newTokens == 0 {
			kept = append(kept, s)
			continue
		}
		s.computed += s.newTokens
		s.newTokens = 0
		if s.holdsPrefix && s.shared < s.prefixBlocks(e.bs) {
			e.shareComputedPrefix(s)
		}
		if s.computed < s.numTokens {
			kept = append(kept, s) // a prefill chunk that did not reach the end
			continue
		}
		out := 1
		if s.drafts > 0 {
			a := e.sampler.Accepted(e.uniform())
			if a > s.drafts {
				a = s.drafts
			}
			out += a
			s.computed -= s.drafts - a
			s.drafts = 0
		}
		out = min(out, s.output-s.generated)
		s.generated += out
		s.numTokens += out
		if e.onTokens != nil {
			e.onTokens(s, out, t)
		}
		switch {
		case s.firstToken < 0:
			s.firstToken = t
		case s.lastToken == e.stepStart:
			sameITL++
		default:
			e.itl.Add(t - s.lastToken)
		}
		s.lastToken = t
		if s.firstAnswer < 0 && s.generated > s.think {
			s.firstAnswer = t
		}
		if s.generated < s.output {
			kept = append(kept, s)
			continue
		}
		s.running = false
		e.release(s, false)
		e.done = append(e.done, s)
	}
	clear(e.running[len(kept):])
	e.running = kept
	e.itl.AddN(t-e.stepStart, sameITL)
	for i, s := range e.done {
		e.finished(e, s)
		e.done[i] = nil
	}
	e.done = e.done[:0]
}

// observe accounts the engine's state over [from, to): time-weighted means,
// peaks and timeline samples.
func (e *engine) observe(from, to int64) {
	if to <= from {
		return
	}
	used := e.pool.used()
	e.stats.add(to-from, used, len(e.running), e.waiting.len())
	if e.timeline != nil {
		e.timeline.sample(from, to, e.id, e.pool.usage(), len(e.running), e.waiting.len(), e.preemptions)
	}
}
