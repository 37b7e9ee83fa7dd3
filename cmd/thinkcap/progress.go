package main

import (
	"io"
	"os"
	"time"

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
	p.bar.SetCurrent(int64(done))
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
