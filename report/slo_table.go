package report

import (
	"fmt"
	"io"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// WriteSLOs prints the SLOs checked against a prediction: each as given,
// the predicted value in ms, its interval where the summary has one, and
// whether it is met.
func WriteSLOs(w io.Writer, rs []analysis.SLOResult) error {
	if len(rs) == 0 {
		return nil
	}
	header := []string{"SLO", "predicted"}
	intervals := false
	for _, r := range rs {
		intervals = intervals || r.IntervalS != nil
	}
	if intervals {
		header = append(header, "interval")
	}
	t := newLabeledTable(w, 1, append(header, "result")...)
	for _, r := range rs {
		value, result := numfmt.NoValue, "met"
		if r.ValueS != nil {
			value = numfmt.MS(*r.ValueS) + " ms"
		}
		switch {
		case r.ValueS == nil:
			result = "missed (no data)"
		case !r.Met:
			result = "missed"
		}
		row := []string{r.SLO, value}
		if intervals {
			row = append(row, sloInterval(r.IntervalS))
		}
		if err := t.Append(append(row, result)); err != nil {
			return fmt.Errorf("write SLOs: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("write SLOs: %w", err)
	}
	return nil
}

// sloInterval prints an interval in ms, numfmt.NoValue without one.
func sloInterval(r *analysis.Range) string {
	if r == nil {
		return numfmt.NoValue
	}
	if s := formatRange(*r, numfmt.MS); s != numfmt.NoValue {
		return s + " ms"
	}
	return numfmt.NoValue
}
