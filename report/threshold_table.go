package report

import (
	"fmt"
	"io"
	"math"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// WriteThresholds prints the thresholds as a pass/fail table: each as
// written, the measured value in the metric's display unit, and the result.
func WriteThresholds(w io.Writer, rs []analysis.ThresholdResult) error {
	if len(rs) == 0 {
		return nil
	}
	t := newLabeledTable(w, 1, "threshold", "measured", "result")
	for _, r := range rs {
		unit, _ := analysis.ThresholdUnit(r.Metric)
		result := "pass"
		switch {
		case math.IsNaN(r.Actual):
			result = "fail (no data)"
		case !r.Pass:
			result = "fail"
		}
		if err := t.Append([]string{r.Text, formatThresholdValue(r.Actual, unit), result}); err != nil {
			return fmt.Errorf("write thresholds: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("write thresholds: %w", err)
	}
	return nil
}

// formatThresholdValue prints a value in its metric's display unit.
func formatThresholdValue(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return numfmt.NoValue
	case unit == "ms":
		return numfmt.MS(v) + " ms"
	case unit == "%":
		return numfmt.Fixed(100*v, 2) + "%"
	case unit != "":
		return numfmt.Compact(v) + " " + unit
	}
	return numfmt.Compact(v)
}
