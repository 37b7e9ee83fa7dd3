package main

import (
	"io"

	progressbar "github.com/thinkcap/thinkcap/internal/progress"
)

// progress is internal/progress's bar as the commands use it: set unit
// (what is counted) before the first update.
type progress struct {
	bar  *progressbar.Bar
	unit string
}

// newProgress is a progress bar on out for the work labelled label: nil,
// showing nothing, when out is not a terminal.
func newProgress(out io.Writer, label string) *progress {
	b := progressbar.New(out, label)
	if b == nil {
		return nil
	}
	return &progress{bar: b, unit: b.Unit}
}

// update reports done of total; it is cheap until the bar appears.
func (p *progress) update(done, total int) {
	if p == nil {
		return
	}
	p.bar.Unit = p.unit
	p.bar.Update(done, total)
}

// done removes the bar.
func (p *progress) done() {
	if p != nil {
		p.bar.Done()
	}
}
