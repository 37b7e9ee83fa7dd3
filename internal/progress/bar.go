// Package progress shows how far long work has got: a bar on a terminal
// (never in pipes, CI logs or tests), else, where the work asks for it, a
// plain line every interval.
package progress

import (
	"io"
	"os"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// Bar shows a bar on out for work that runs longer than a second, and only
// when out is a terminal. A nil *Bar is valid and shows nothing.
type Bar struct {
	out   io.Writer
	label string
	// Unit is what is counted: requests unless set.
	Unit  string
	start time.Time
	p     *mpb.Progress
	bar   *mpb.Bar
	last  time.Time // of the previous update, for the ETA's moving average
	// Status, if set, is shown after the bar and refreshed with it (a load
	// test's failures, in-flight requests, rates and live KV usage).
	Status func() string
}

// New is a bar labelled label on out, nil when out is not a terminal.
func New(out io.Writer, label string) *Bar {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &Bar{out: out, label: label, Unit: "requests", start: time.Now()}
}

// Counting sets what the bar counts (requests unless set); nil-safe, so
// that progress.New(out, "sizing").Counting("candidates") reads as one.
func (p *Bar) Counting(unit string) *Bar {
	if p != nil {
		p.Unit = unit
	}
	return p
}

// Update reports done of total; it is cheap until the bar appears.
func (p *Bar) Update(done, total int) {
	if p == nil {
		return
	}
	if p.bar == nil {
		if time.Since(p.start) < time.Second {
			return
		}
		p.p = mpb.New(mpb.WithOutput(p.out), mpb.WithWidth(40))
		appended := []decor.Decorator{decor.Percentage(), decor.Name(" "), decor.EwmaETA(decor.ET_STYLE_GO, 30)}
		if p.Status != nil {
			appended = append(appended, decor.Any(func(decor.Statistics) string { return "  " + p.Status() }))
		}
		p.bar = p.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(p.label+" "), decor.CountersNoUnit("%d / %d "+p.Unit)),
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

// Done removes the bar.
func (p *Bar) Done() {
	if p == nil || p.p == nil {
		return
	}
	if !p.bar.Completed() {
		p.bar.Abort(false)
	}
	p.p.Wait()
}
