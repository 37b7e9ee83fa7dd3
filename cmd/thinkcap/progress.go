package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/thinkcap/thinkcap/loadgen"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// progress shows a bar on stderr for work that runs longer than a second,
// and only when stderr is a terminal (never in pipes, CI logs or tests).
type progress struct {
	out   io.Writer
	label string
	unit  string // what is counted: requests unless set
	start time.Time
	p     *mpb.Progress
	bar   *mpb.Bar
	last  time.Time // of the previous update, for the ETA's moving average
	// status, if set, is shown after the bar and refreshed with it (a load
	// test's failures, in-flight requests, rates and live KV usage).
	status func() string
}

func newProgress(out io.Writer, label string) *progress {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{out: out, label: label, unit: "requests", start: time.Now()}
}

// update reports done of total; it is cheap until the bar appears.
func (p *progress) update(done, total int) {
	if p == nil {
		return
	}
	if p.bar == nil {
		if time.Since(p.start) < time.Second {
			return
		}
		p.p = mpb.New(mpb.WithOutput(p.out), mpb.WithWidth(40))
		appended := []decor.Decorator{decor.Percentage(), decor.Name(" "), decor.EwmaETA(decor.ET_STYLE_GO, 30)}
		if p.status != nil {
			appended = append(appended, decor.Any(func(decor.Statistics) string { return "  " + p.status() }))
		}
		p.bar = p.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(p.label+" "), decor.CountersNoUnit("%d / %d "+p.unit)),
			mpb.AppendDecorators(appended...),
		)
	}
	// EwmaSetCurrent, not SetCurrent: the ETA decorator averages the
	// time per unit and stays blank without it.
	now := time.Now()
	if p.last.IsZero() {
		p.last = p.start
	}
	p.bar.EwmaSetCurrent(int64(done), now.Sub(p.last))
	p.last = now
}

// done removes the bar.
func (p *progress) done() {
	if p == nil || p.p == nil {
		return
	}
	if !p.bar.Completed() {
		p.bar.Abort(false)
	}
	p.p.Wait()
}

// loadProgress is a load test's progress, counted from the runner's
// callbacks and shown as a bar on a terminal, else as a line every
// interval (pipes, CI logs).
type loadProgress struct {
	total  int
	target float64 // the schedule's rate, 0 in closed loop
	span   time.Duration
	start  time.Time
	latest func() (loadgen.Sample, bool)

	showETA bool // in the status: the bar shows its own

	sent     atomic.Int64 // requests handed to the client
	returned atomic.Int64 // of those, finished
	done     atomic.Int64 // records written, cancelled follow-ups included
	failed   atomic.Int64
}

// show starts showing progress on out and returns the function that stops
// it; label names the work on the bar.
func (p *loadProgress) show(out io.Writer, label string, interval time.Duration) (stop func()) {
	p.start = time.Now()
	quit, exited := make(chan struct{}), make(chan struct{})
	bar := newProgress(out, label)
	if bar == nil && interval <= 0 {
		return func() {}
	}
	if bar != nil {
		bar.status = p.status
		interval = 200 * time.Millisecond
	} else {
		p.showETA = true
	}
	go func() {
		defer close(exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			if bar != nil {
				bar.update(int(p.done.Load()), p.total)
			} else {
				fmt.Fprintf(out, "thinkcap: %s\n", p.line())
			}
		}
	}()
	return func() {
		close(quit)
		<-exited
		bar.update(int(p.done.Load()), p.total) // the bar ends on the final count
		bar.done()
	}
}

// line is the plain progress line: counts, then status.
func (p *loadProgress) line() string {
	return fmt.Sprintf("%d / %d requests, %s", p.done.Load(), p.total, p.status())
}

// status is what the bar shows beside it: failures, requests in flight,
// the achieved and target rates, the ETA, and the server's running,
// waiting and KV usage from the latest scrape when there is one.
func (p *loadProgress) status() string {
	elapsed := time.Since(p.start)
	done := p.done.Load()
	rate := float64(done) / max(elapsed.Seconds(), 1e-3)
	line := fmt.Sprintf("failed %d, in flight %d, %.1f req/s", p.failed.Load(), max(p.sent.Load()-p.returned.Load(), 0), rate)
	if p.target > 0 {
		line += fmt.Sprintf(" (target %.1f)", p.target)
	}
	if eta, ok := p.eta(elapsed, done); ok && p.showETA {
		line += ", ETA " + shortDuration(eta)
	}
	if p.latest != nil {
		if s, ok := p.latest(); ok {
			if s.Has(loadgen.FieldRunning) {
				line += fmt.Sprintf("; running %.0f", s.Running)
			}
			if s.Has(loadgen.FieldWaiting) {
				line += fmt.Sprintf(", waiting %.0f", s.Waiting)
			}
			if s.Has(loadgen.FieldKVUsage) {
				line += fmt.Sprintf(", KV %.0f%%", 100*s.KVUsage)
			}
		}
	}
	return line
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
