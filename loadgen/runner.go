package loadgen

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/ratelimit"

	"github.com/thinkcap/thinkcap/workload"
)

// Doer sends one request and measures it; *Client is the real one.
type Doer interface {
	Do(ctx context.Context, req Request) Measurement
}

// RunConfig is one load test's traffic and pacing.
type RunConfig struct {
	// Requests in issue order. In open loop each is sent at the start plus
	// its ArrivalS: the schedule is a pure function of the traffic, so a
	// run can be split across machines and merged exactly.
	Requests []workload.Request
	// Concurrency > 0 runs closed loop: that many requests always in
	// flight, arrival times ignored.
	Concurrency int
	// MaxInFlight caps an open-loop run's requests in flight (0: no cap); a
	// request that waits for a slot is late, and its lag is recorded.
	MaxInFlight int
	// MaxRate caps an open loop's sending rate in requests per second (0:
	// no cap), a ceiling over a replayed log's bursts: a request it holds
	// back is late, and its lag is recorded.
	MaxRate float64
	// WorkerStart, if set, delays the k-th closed-loop worker's start: a
	// ramp of the concurrency (workload.Ramp.WorkerStart).
	WorkerStart func(k int) time.Duration
	// Duration stops issuing new requests after this long (0: none).
	Duration time.Duration
	// Warmup is how many first requests are sent but left out of the
	// statistics (they are still written, with the rest, to the results).
	Warmup int
	// WarmupDuration likewise leaves out requests scheduled in the run's
	// first WarmupDuration.
	WarmupDuration time.Duration
	// Build turns a request record into what the client sends (prompt text,
	// length control).
	Build func(workload.Request) Request
	// Continue builds a follow-up request (one whose After names an earlier
	// request: phase 2 of a two-phase budget, an escalation retry) from its
	// predecessor's request and measurement. Follow-ups are sent as soon as
	// their predecessor finishes, on the same goroutine; nil sends them as
	// Build makes them.
	Continue func(child workload.Request, parent Request, pm *Measurement) Request
	// OnResult, if set, is called for every finished request, warm-up ones
	// included, from the request's goroutine: write results incrementally
	// here so an interrupted run keeps what it had.
	OnResult func(res *workload.Result, m *Measurement, warmup bool)
	// MaxConsecutiveFailures > 0 is the circuit breaker: after that many
	// consecutive connection failures, or as many consecutive HTTP errors
	// of one code no retry changes (401, 403, 404), the run stops sending,
	// cancels what is in flight and says why in Outcome.Aborted. 0: off.
	MaxConsecutiveFailures int
	// OnAbort, if set, is called once with the reason when the breaker
	// trips, so the user hears it before the in-flight requests drain.
	OnAbort func(reason string)
}

// Outcome is what a run measured.
type Outcome struct {
	Start, End time.Time
	// Results of the measured requests (warm-up excluded), in issue order.
	Results []workload.Result
	// FromSent holds the same requests' latencies measured from the time
	// each was actually sent rather than scheduled: the difference is
	// coordinated omission.
	FromSent []workload.Result
	// Issued counts every request sent, warm-up included.
	Issued int
	// Lag is how late requests were sent after their scheduled time, in
	// seconds (open loop only).
	LagP50S, LagP99S, LagMaxS float64
	// Late counts requests sent more than LateThreshold after schedule.
	Late int
	// Aborted is why the circuit breaker stopped the run ("" when it did
	// not): requests never sent have no record.
	Aborted string
}

// LateThreshold is how late a send must be to count as late.
const LateThreshold = 10 * time.Millisecond

// Run drives the load and returns when every issued request has finished
// (or ctx is cancelled: in-flight requests then end as cancelled records).
func Run(ctx context.Context, doer Doer, cfg RunConfig) Outcome {
	r := &runner{cfg: cfg, doer: doer, results: make([]slot, len(cfg.Requests))}
	r.index()
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	r.breaker = &breaker{max: cfg.MaxConsecutiveFailures, trip: func(reason string) {
		r.aborted.Store(reason)
		// Stops the schedule and cancels what is in flight: those end as
		// cancelled records, the rest are never sent.
		abort(errAborted)
		if cfg.OnAbort != nil {
			cfg.OnAbort(reason)
		}
	}}
	r.start = time.Now()
	if cfg.Concurrency > 0 {
		r.closedLoop(ctx)
	} else {
		r.openLoop(ctx)
	}
	r.wg.Wait()
	o := r.outcome(time.Now())
	if reason, ok := r.aborted.Load().(string); ok {
		o.Aborted = reason
	}
	return o
}

// errAborted is the cause of the run's context when the breaker trips.
var errAborted = errors.New("run aborted by the circuit breaker")

type runner struct {
	cfg      RunConfig
	doer     Doer
	start    time.Time
	wg       sync.WaitGroup
	issued   atomic.Int64
	results  []slot
	roots    []int         // requests the schedule sends, in order
	children map[int][]int // request → its follow-ups
	followUp []bool        // request i is a follow-up
	breaker  *breaker
	aborted  atomic.Value // string: why the breaker tripped
}

// index separates the scheduled requests from follow-ups. A follow-up
// whose predecessor is unknown or later is sent as a scheduled request.
func (r *runner) index() {
	byID := map[string]int{}
	r.followUp = make([]bool, len(r.cfg.Requests))
	for i, q := range r.cfg.Requests {
		if p, ok := byID[q.After]; ok && q.After != "" {
			if r.children == nil {
				r.children = map[int][]int{}
			}
			r.children[p] = append(r.children[p], i)
			r.followUp[i] = true
		} else {
			r.roots = append(r.roots, i)
		}
		if q.ID != "" {
			byID[q.ID] = i
		}
	}
}

// slot is one request's outcome; only its own goroutine writes it.
type slot struct {
	done      bool
	scheduled time.Time // the chain's scheduled time
	res, sent workload.Result
	lag       time.Duration
}

func (r *runner) deadlineReached(now time.Time) bool {
	return r.cfg.Duration > 0 && now.Sub(r.start) >= r.cfg.Duration
}

// openLoop sends each request at its scheduled time, sleeping until then.
func (r *runner) openLoop(ctx context.Context) {
	var sem chan struct{}
	if r.cfg.MaxInFlight > 0 {
		sem = make(chan struct{}, r.cfg.MaxInFlight)
	}
	// The ceiling is a limiter without slack: a burst in the schedule is
	// spread at MaxRate, never let through because the run was idle.
	var limit ratelimit.Limiter
	if r.cfg.MaxRate > 0 {
		limit = ratelimit.New(1, ratelimit.Per(time.Duration(float64(time.Second)/r.cfg.MaxRate)), ratelimit.WithoutSlack)
	}
	for _, i := range r.roots {
		scheduled := r.start.Add(time.Duration(r.cfg.Requests[i].ArrivalS * float64(time.Second)))
		if r.deadlineReached(scheduled) {
			return
		}
		if !SleepUntil(ctx, scheduled) {
			return
		}
		if limit != nil {
			limit.Take()
		}
		if sem != nil {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if sem != nil {
				defer func() { <-sem }()
			}
			r.send(ctx, i, scheduled)
		}()
	}
}

// closedLoop keeps Concurrency requests in flight: each worker sends the
// next request as soon as its previous one ends.
func (r *runner) closedLoop(ctx context.Context) {
	var next atomic.Int64
	for k := range min(r.cfg.Concurrency, len(r.roots)) {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if r.cfg.WorkerStart != nil && !SleepUntil(ctx, r.start.Add(r.cfg.WorkerStart(k))) {
				return
			}
			for {
				i := int(next.Add(1) - 1)
				now := time.Now()
				if i >= len(r.cfg.Requests) || ctx.Err() != nil || r.deadlineReached(now) {
					return
				}
				r.send(ctx, i, now)
			}
		}()
	}
}

// send issues request i scheduled at the given time, records it, then
// sends its follow-ups, whose latencies count from the same scheduled time:
// what the user waited.
func (r *runner) send(ctx context.Context, i int, scheduled time.Time) {
	r.sendAs(ctx, i, r.cfg.Build(r.cfg.Requests[i]), scheduled)
}

func (r *runner) sendAs(ctx context.Context, i int, built Request, scheduled time.Time) {
	r.issued.Add(1)
	req := r.cfg.Requests[i]
	kids := r.children[i]
	if len(kids) > 0 {
		built.SaveText = true // a continuation needs the trace
	}
	m := r.doer.Do(ctx, built)
	r.breaker.observe(&m)
	res := m.Result(req, scheduled, r.start)
	// "From sent" counts from when the request was written: a dial the
	// warm pool could not spare is the client's time (connect_s), not
	// the server's.
	sent := m.Result(req, m.Written(), r.start)
	if len(kids) > 0 && m.OK() && r.cfg.Requests[kids[0]].SessionID == "" {
		// A gateway's follow-up answers for this call; a session's next
		// turn is a request of its own.
		res.Continued, sent.Continued = true, true
	}
	s := &r.results[i]
	s.res, s.sent, s.done, s.scheduled = res, sent, true, scheduled
	if !m.Sent.IsZero() && !r.followUp[i] {
		s.lag = max(m.Sent.Sub(scheduled), 0)
	}
	if r.cfg.OnResult != nil {
		r.cfg.OnResult(&res, &m, r.warmup(i, scheduled))
	}
	for _, k := range kids {
		if !m.OK() || ctx.Err() != nil {
			r.cancelled(k, req.ID, scheduled)
			continue
		}
		at := scheduled
		if turn := &r.cfg.Requests[k]; turn.SessionID != "" {
			// A session's next turn: the user's (or tool's) think time after
			// this answer, then a request measured from its own sending.
			if !SleepUntil(ctx, time.Now().Add(time.Duration(turn.ThinkTimeS*float64(time.Second)))) {
				r.cancelled(k, req.ID, scheduled)
				continue
			}
			at = time.Now()
		}
		next := r.cfg.Build(r.cfg.Requests[k])
		if r.cfg.Continue != nil {
			next = r.cfg.Continue(r.cfg.Requests[k], built, &m)
		}
		r.sendAs(ctx, k, next, at)
	}
}

// warmup reports whether request i, scheduled at the given time, is in the
// warm-up left out of the statistics.
func (r *runner) warmup(i int, scheduled time.Time) bool {
	return i < r.cfg.Warmup || scheduled.Sub(r.start) < r.cfg.WarmupDuration
}

// cancelled records a follow-up that is not sent because its predecessor
// failed, and its own follow-ups.
func (r *runner) cancelled(i int, after string, scheduled time.Time) {
	res := workload.Result{Request: r.cfg.Requests[i], Status: workload.StatusCancelled,
		Error: "predecessor " + after + " did not complete"}
	s := &r.results[i]
	s.res, s.sent, s.done, s.scheduled = res, res, true, scheduled
	if r.cfg.OnResult != nil {
		r.cfg.OnResult(&res, nil, r.warmup(i, scheduled))
	}
	for _, k := range r.children[i] {
		r.cancelled(k, r.cfg.Requests[i].ID, scheduled)
	}
}

func (r *runner) outcome(end time.Time) Outcome {
	o := Outcome{Start: r.start, End: end, Issued: int(r.issued.Load())}
	var lags []float64
	for i := range r.results {
		s := &r.results[i]
		if !s.done || r.warmup(i, s.scheduled) {
			continue
		}
		o.Results = append(o.Results, s.res)
		o.FromSent = append(o.FromSent, s.sent)
		if r.cfg.Concurrency == 0 && !r.followUp[i] {
			lags = append(lags, s.lag.Seconds())
			if s.lag > LateThreshold {
				o.Late++
			}
		}
	}
	if len(lags) > 0 {
		sort.Float64s(lags)
		o.LagP50S = lags[len(lags)/2]
		o.LagP99S = lags[min(len(lags)-1, len(lags)*99/100)]
		o.LagMaxS = lags[len(lags)-1]
	}
	return o
}

// SleepUntil waits until t or until ctx is done, and reports whether t
// came. Timers on Linux wake within tens of microseconds, well inside the
// 2 ms lag target at 500 req/s.
func SleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
