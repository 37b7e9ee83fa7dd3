package emulator

import (
	"sync"

	"github.com/thinkcap/thinkcap/workload"
)

// step is one engine step's output for one request, at simulated time t.
type step struct {
	think, answer int
	t             int64
}

// maxPendingSteps bounds the steps a slow client leaves unread: beyond it
// new outputs are merged into the last pending step (one bigger chunk), so
// the engine never blocks and memory does not grow with tokens.
const maxPendingSteps = 256

// sink is one request's mailbox between the engine goroutine (the writer,
// through sim.TokenSink) and its HTTP handler (the reader). The engine
// never blocks on it: it appends under a short lock and signals notify,
// which has room for one wake-up.
type sink struct {
	srv    *Server
	job    *job
	notify chan struct{}

	mu      sync.Mutex
	pending []step
	result  *workload.Result

	// Engine-only state, for the per-step metrics.
	arrival, firstT, lastT int64
	emitted                int
	queued                 bool
}

func newSink(s *Server, j *job) *sink {
	return &sink{srv: s, job: j, notify: make(chan struct{}, 1), firstT: -1}
}

// Tokens implements sim.TokenSink (engine goroutine).
func (k *sink) Tokens(think, answer int, t int64) {
	k.srv.metrics.observeStep(k, think+answer, t)
	k.mu.Lock()
	if n := len(k.pending); n >= maxPendingSteps {
		last := &k.pending[n-1]
		last.think += think
		last.answer += answer
		last.t = t
	} else {
		k.pending = append(k.pending, step{think, answer, t})
	}
	k.mu.Unlock()
	// The last step's Finished follows at once in the same engine event:
	// wait for it, so that the finish reason rides on the last token chunk.
	if k.emitted += think + answer; k.emitted < k.job.req.OutputTokens() {
		k.signal()
	}
}

// Finished implements sim.TokenSink (engine goroutine).
func (k *sink) Finished(res workload.Result) {
	res.ID = k.job.id
	k.srv.metrics.observeFinished(k, &res)
	if k.srv.cfg.OnResult != nil {
		k.srv.cfg.OnResult(res)
	}
	k.mu.Lock()
	k.result = &res
	k.mu.Unlock()
	k.signal()
}

// signal wakes the handler once the engine has published the state this
// event produced (engine goroutine), so that a client that saw its last
// token never scrapes a /metrics from before it.
func (k *sink) signal() {
	if !k.queued {
		k.queued = true
		k.srv.eng.wake = append(k.srv.eng.wake, k)
	}
}

// wakeUp signals the handler (engine goroutine, after publishing).
func (k *sink) wakeUp() {
	k.queued = false
	select {
	case k.notify <- struct{}{}:
	default:
	}
}

// take returns the pending steps (appended to buf) and the result when the
// request has finished.
func (k *sink) take(buf []step) ([]step, *workload.Result) {
	k.mu.Lock()
	defer k.mu.Unlock()
	buf = append(buf, k.pending...)
	k.pending = k.pending[:0]
	return buf, k.result
}

// finished is the result, nil while the request runs; it leaves the
// pending steps alone.
func (k *sink) finished() *workload.Result {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.result
}
