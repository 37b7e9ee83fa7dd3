package size

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// ErrNoCandidate is a search none of whose candidates meets the SLOs: a
// failed check, not bad input.
var ErrNoCandidate = errors.New("no candidate meets the SLOs")

// Verdict is nil when a candidate passed, else ErrNoCandidate.
func (r *Result) Verdict() error {
	if r.Best == nil {
		return ErrNoCandidate
	}
	return nil
}

// WritePlotFile writes WritePlot's PNG to path (--plot).
func WritePlotFile(path string, r *Result, slo analysis.SLO) error {
	return writePlotFile(path, func(w io.Writer) error { return WritePlot(w, r, slo) })
}

// writePlotFile writes a plot to path (--plot): a file that cannot be
// created is the user's input.
func writePlotFile(path string, plot func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return inputerr.Field("Plot", err)
	}
	if err := plot(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", inputerr.Name("Plot"), err)
	}
	return f.Close()
}
