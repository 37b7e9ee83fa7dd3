package verify

import (
	"bufio"
	"fmt"
	"os"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// Options are verify's checks and files as the command gives them.
type Options struct {
	Tolerance   string // --tolerance: pass/fail bounds (analysis.ParseTolerances)
	MinRequests int    // --min-requests: fewest successful measured requests a verdict rests on
	Report      string // --report: a self-contained HTML file ("" none)
	PlotDir     string // --plot-dir: the report's plots as PNG files ("" none)
}

// Tolerances are the bounds --tolerance gives, the options checked.
func (o *Options) Tolerances() (map[string]float64, error) {
	tol, err := analysis.ParseTolerances(o.Tolerance)
	if err != nil {
		return nil, fmt.Errorf("--tolerance: %w", err)
	}
	if o.MinRequests < 0 {
		return nil, fmt.Errorf("--min-requests %d: must be 0 or more", o.MinRequests)
	}
	return tol, nil
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
	f, err := os.Create(path)
	if err != nil {
		return inputerr.New(err)
	}
	bw := bufio.NewWriter(f)
	if err := WriteReport(bw, out); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
