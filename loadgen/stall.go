package loadgen

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// DefaultStallTimeout is loadtest --stall-timeout's default: far beyond
// any gap between two chunks of a running request, even one preempted and
// readmitted, and far short of --request-timeout's 30 minutes.
const DefaultStallTimeout = 2 * time.Minute

// stallWatch cancels a stream that has been silent for limit since its
// latest event (ClientConfig.StallTimeout). The read loop only records
// each event's time, one atomic store; the timer measures the silence
// when it fires and re-arms for what is left of the limit, so a busy
// stream costs no timer reset per event.
type stallWatch struct {
	limit  time.Duration
	origin time.Time    // the first event
	last   atomic.Int64 // the latest event, ns after origin
	done   atomic.Bool
	timer  *time.Timer
}

// watchStalls starts the watch at a stream's first event, at.
func watchStalls(limit time.Duration, at time.Time, cancel context.CancelCauseFunc) *stallWatch {
	w := &stallWatch{limit: limit, origin: at}
	// Armed only once w.timer is set, so the callback always finds it.
	w.timer = time.AfterFunc(math.MaxInt64, func() { w.check(cancel) })
	w.timer.Reset(limit)
	return w
}

// event records an event that arrived at at.
func (w *stallWatch) event(at time.Time) { w.last.Store(int64(at.Sub(w.origin))) }

func (w *stallWatch) check(cancel context.CancelCauseFunc) {
	if w.done.Load() {
		return
	}
	silent := time.Since(w.origin) - time.Duration(w.last.Load())
	if silent >= w.limit {
		cancel(errStalled)
		return
	}
	w.timer.Reset(w.limit - silent)
}

// stop ends the watch; nil-safe, for a stream that never had an event.
func (w *stallWatch) stop() {
	if w != nil {
		w.done.Store(true)
		w.timer.Stop()
	}
}
