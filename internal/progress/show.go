package progress

import (
	"fmt"
	"io"
	"time"
)

// Show starts showing the progress of total units of work, done() of them
// finished, and returns the function that stops it: a Bar labelled label
// on a terminal, refreshed five times a second with status(false) beside
// it; elsewhere a line "thinkcap: D / T requests, status(true)" every
// interval (none when interval is 0). status's argument says whether it
// is the plain line, which has no bar to show the ETA.
func Show(out io.Writer, label string, interval time.Duration, total int, done func() int, status func(line bool) string) (stop func()) {
	quit, exited := make(chan struct{}), make(chan struct{})
	bar := New(out, label)
	if bar == nil && interval <= 0 {
		return func() {}
	}
	if bar != nil {
		bar.Status = func() string { return status(false) }
		interval = 200 * time.Millisecond
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
				bar.Update(done(), total)
			} else {
				fmt.Fprintf(out, "thinkcap: %d / %d requests, %s\n", done(), total, status(true))
			}
		}
	}()
	return func() {
		close(quit)
		<-exited
		bar.Update(done(), total) // the bar ends on the final count
		bar.Done()
	}
}
