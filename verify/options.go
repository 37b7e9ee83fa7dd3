package verify

import (
	"bufio"
	"fmt"
	"maps"
	"slices"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/outfile"
)

// Options are verify's checks and files.
type Options struct {
	// Tolerances are the pass/fail bounds by metric, a fraction of the
	// measured value (analysis.ParseTolerances reads them); nil:
	// analysis.DefaultTolerances(), empty: no checks.
	Tolerances  map[string]float64
	MinRequests int    // fewest successful measured requests a verdict rests on
	Report      string // a self-contained HTML file ("" none)
	PlotDir     string // the report's plots as PNG files ("" none)
}

// Validate reports every problem of the options, each naming its field.
func (o *Options) Validate() error {
	var problems inputerr.List
	for _, m := range slices.Sorted(maps.Keys(o.Tolerances)) {
		if b := o.Tolerances[m]; !(b >= 0) {
			problems.Field("Tolerances", fmt.Errorf("%s=%g: a bound is 0 or more", m, b))
		}
	}
	if o.MinRequests < 0 {
		problems.Fieldf("MinRequests", "%d: must be 0 or more", o.MinRequests)
	}
	return problems.Err()
}

// tolerances are the bounds checked: Tolerances, or the defaults.
func (o *Options) tolerances() map[string]float64 {
	if o.Tolerances == nil {
		return analysis.DefaultTolerances()
	}
	return o.Tolerances
}

// WriteFiles writes the report and the plots the options ask for.
func (o *Options) WriteFiles(out *Outcome) error {
	if o.Report != "" {
		if err := writeReportFile(o.Report, out); err != nil {
			return fmt.Errorf("%s: %w", inputerr.Name("Report"), err)
		}
	}
	if o.PlotDir != "" {
		if err := WritePlots(o.PlotDir, out); err != nil {
			return inputerr.Field("PlotDir", err)
		}
	}
	return nil
}

// writeReportFile writes WriteReport's HTML to path; a path that cannot be
// created is bad input.
func writeReportFile(path string, out *Outcome) error {
	return outfile.Write(path, func(w *bufio.Writer) error { return WriteReport(w, out) })
}
