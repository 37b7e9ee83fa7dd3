package loadtest

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/thinkcap/thinkcap/internal/progress"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// loadProgress is a load test's progress, counted from the runner's
// callbacks and shown as a bar on a terminal, else as a line every
// interval (pipes, CI logs).
type loadProgress struct {
	total  int
	target float64 // the schedule's rate, 0 in closed loop
	span   time.Duration
	start  time.Time
	latest func() (loadgen.Sample, bool)

	sent     atomic.Int64 // requests handed to the client
	returned atomic.Int64 // of those, finished
	done     atomic.Int64 // records written, cancelled follow-ups included
	failed   atomic.Int64
}

// show starts showing progress on out and returns the function that stops
// it; label names the work on the bar.
func (p *loadProgress) show(out io.Writer, label string, interval time.Duration) (stop func()) {
	p.start = time.Now()
	return progress.Show(out, label, interval, p.total, func() int { return int(p.done.Load()) }, p.status)
}

// count counts a written record: m is nil for a request never sent (a
// cancelled follow-up).
func (p *loadProgress) count(res *workload.Result, m *loadgen.Measurement) {
	if m != nil {
		p.returned.Add(1)
	}
	if !res.OK() {
		p.failed.Add(1)
	}
	p.done.Add(1)
}

// status is what is shown beside the bar, or after the counts on a plain
// line: failures, requests in flight, the achieved and target rates, the
// ETA (on the plain line: the bar shows its own), and the server's
// running, waiting and KV usage from the latest scrape when there is one.
func (p *loadProgress) status(line bool) string {
	elapsed := time.Since(p.start)
	done := p.done.Load()
	rate := float64(done) / max(elapsed.Seconds(), 1e-3)
	s := fmt.Sprintf("failed %d, in flight %d, %.1f req/s", p.failed.Load(), max(p.sent.Load()-p.returned.Load(), 0), rate)
	if p.target > 0 {
		s += fmt.Sprintf(" (target %.1f)", p.target)
	}
	if eta, ok := p.eta(elapsed, done); ok && line {
		s += ", ETA " + shortDuration(eta)
	}
	if p.latest != nil {
		if smp, ok := p.latest(); ok {
			if smp.Has(loadgen.FieldRunning) {
				s += fmt.Sprintf("; running %.0f", smp.Running)
			}
			if smp.Has(loadgen.FieldWaiting) {
				s += fmt.Sprintf(", waiting %.0f", smp.Waiting)
			}
			if smp.Has(loadgen.FieldKVUsage) {
				s += fmt.Sprintf(", KV %.0f%%", 100*smp.KVUsage)
			}
		}
	}
	return s
}

// eta extrapolates the achieved rate, and in open loop waits at least for
// the rest of the schedule.
func (p *loadProgress) eta(elapsed time.Duration, done int64) (time.Duration, bool) {
	left := int64(p.total) - done
	if done <= 0 || left <= 0 {
		return 0, done > 0
	}
	eta := time.Duration(float64(elapsed) * float64(left) / float64(done))
	if p.target > 0 && p.span-elapsed > eta {
		eta = p.span - elapsed
	}
	return eta, true
}

// shortDuration is d to the second, as a person reads a wait: 45s, 2m05s,
// 1h02m (4.5s under ten seconds).
func shortDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
