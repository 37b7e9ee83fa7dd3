package emulator

import (
	"context"
	"math"
	"time"

	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// job is one request on its way into the engine.
type job struct {
	id    string
	req   workload.Request
	sink  *sink
	ack   chan struct{} // closed once Submit has returned
	h     sim.Handle    // engine goroutine only
	maxed bool          // the length was forced to max_tokens: finish "length"
}

// engine is the one goroutine that owns the sim.Live. Handlers talk to it
// over submitc and cancelc; it sleeps until the next engine event or the
// next message, mapped from simulated time to the wall clock (simulated ns
// = wall ns × scale since start), and advances the model to now.
type engine struct {
	live    *sim.Live
	scale   float64
	start   time.Time
	submitc chan *job
	cancelc chan *job
	last    int64   // the latest simulated time given to live
	wake    []*sink // handlers to wake after the next publish
}

// simNow is the simulated time of the wall clock now.
func (e *engine) simNow() int64 {
	t := int64(float64(time.Since(e.start)) * e.scale)
	e.last = max(e.last, t)
	return e.last
}

// wallUntil is how long to sleep until simulated time t.
func (e *engine) wallUntil(t int64) time.Duration {
	at := float64(t) / e.scale
	if at > math.MaxInt64/2 {
		return time.Duration(math.MaxInt64 / 2)
	}
	return time.Duration(at) - time.Since(e.start)
}

// run drives the engine until ctx is done; publish is called after every
// change so that /metrics reads a consistent snapshot without touching the
// Live.
func (e *engine) run(ctx context.Context, publish func(sim.LiveStats)) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		publish(e.live.Stats())
		for i, k := range e.wake {
			k.wakeUp()
			e.wake[i] = nil
		}
		e.wake = e.wake[:0]
		var wake <-chan time.Time
		if next := e.live.NextEvent(); next != math.MaxInt64 {
			d := e.wallUntil(next)
			if d <= 0 {
				// Behind the wall clock: catch up, but keep serving the
				// channels so that submissions never starve.
				select {
				case j := <-e.submitc:
					e.submit(j)
				case j := <-e.cancelc:
					e.live.Cancel(j.h, e.simNow())
				case <-ctx.Done():
					return
				default:
					e.live.AdvanceTo(e.simNow())
				}
				continue
			}
			timer.Reset(d)
			wake = timer.C
		}
		select {
		case j := <-e.submitc:
			e.submit(j)
		case j := <-e.cancelc:
			e.live.Cancel(j.h, e.simNow())
		case <-wake:
			e.live.AdvanceTo(e.simNow())
		case <-ctx.Done():
			return
		}
	}
}

// submit adds a job at its arrival (never before what the engine has seen:
// the simulated clock is monotone).
func (e *engine) submit(j *job) {
	// The arrival is the engine's receipt, microseconds after the
	// handler's: earlier times could precede events already fired.
	t := e.simNow()
	j.sink.arrival = t
	j.h = e.live.Submit(j.req, t, j.sink)
	close(j.ack)
}
