package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// WriteComparison prints a comparison as a table: metric, predicted,
// measured, error and, for checked metrics, the tolerance (relative, plus
// the absolute slack and the time scale that stretched it), the bound it
// makes in the metric's unit, and the verdict. Latencies print in
// milliseconds, KV usage in percent, no data as "-". Unchecked metrics with
// nothing on either side (TTFA of a run without answers) are left out.
func WriteComparison(w io.Writer, c *analysis.Comparison) error {
	var rows [][]string
	for _, r := range ComparisonRows(c) {
		rows = append(rows, []string{r.Label, r.Predicted, r.Interval, r.Measured, r.Error, r.Tolerance, r.Bound, r.Result})
	}
	return writeRows(newTable(w, "metric", "predicted", "interval", "measured", "error", "tolerance", "bound", "result"), rows)
}

// formatValue prints a metric's value in its unit: milliseconds for
// latencies (given in seconds), percent for KV usage, compactly otherwise.
func formatValue(unit string, v float64) string {
	if math.IsNaN(v) {
		return numfmt.NoValue // no data
	}
	switch unit {
	case "ms":
		return numfmt.MS(v)
	case "%":
		return numfmt.Percent(v)
	}
	return numfmt.Compact(v)
}

// ComparisonRow is one metric of a Comparison with its cells formatted as
// WriteComparison prints them, also for reports in other formats (HTML)
// that must agree with the text table.
type ComparisonRow struct {
	Name string
	// Label is the table's label, with the unit for latencies and rates:
	// "TTFT p99 (ms)".
	Label               string
	Predicted, Measured string
	// Error is signed percent ("+3.2%"), "-" when the measured value is 0.
	Error string
	// Tolerance ("±25.0%", "±10.0% + 1 ms ×20": the relative bound, the
	// absolute slack and the time scale that stretched it), Bound (the
	// bound they make, in the metric's unit: "±22.0", "-" without a
	// measurement) and Result ("pass", "FAIL", "no data") are empty for
	// metrics that are not checked.
	Tolerance, Bound, Result string
	Checked, Pass, NoData    bool
	// Interval is the prediction's interval ("12.1 – 19.8"), "-" without
	// one; a metric passed by it has Result "pass (in interval)".
	Interval string
}

// formatSlack prints a metric's absolute slack in its unit, with the time
// scale that stretched it: "20 ms", "1 ms ×20", "1.0 pt", "2".
func formatSlack(unit string, slack, timeScale float64) string {
	var s string
	switch unit {
	case "ms":
		s = strconv.FormatFloat(1000*slack, 'g', 4, 64) + " ms"
	case "%":
		s = numfmt.Fixed(100*slack, 1) + " pt"
	default:
		s = strconv.FormatFloat(slack, 'g', 4, 64)
		if unit != "" {
			s += " " + unit
		}
	}
	if timeScale != 1 {
		s += " ×" + strconv.FormatFloat(timeScale, 'g', 4, 64)
	}
	return s
}

// ComparisonRows formats c's metrics in table order, leaving out those
// WriteComparison leaves out: zero on both sides and not checked.
func ComparisonRows(c *analysis.Comparison) []ComparisonRow {
	byName := map[string]analysis.Metric{}
	for _, m := range analysis.Metrics() {
		byName[m.Name] = m
	}
	var rows []ComparisonRow
	for _, mc := range c.Metrics {
		nothing := func(v float64) bool { return v == 0 || math.IsNaN(v) }
		if nothing(mc.Predicted) && nothing(mc.Measured) && mc.Tolerance == nil {
			continue
		}
		m, known := byName[mc.Name]
		if !known {
			m = analysis.Metric{Name: mc.Name, Label: mc.Name}
		}
		row := ComparisonRow{
			Name: mc.Name, Label: m.Label,
			Predicted: formatValue(m.Unit, mc.Predicted), Measured: formatValue(m.Unit, mc.Measured),
			Error: numfmt.NoValue, Interval: numfmt.NoValue,
		}
		if r := mc.Interval; r != nil {
			row.Interval = formatRange(*r, func(v float64) string { return formatValue(m.Unit, v) })
		}
		if m.Unit != "" && m.Unit != "%" {
			row.Label += " (" + m.Unit + ")"
		}
		if mc.Error != nil {
			row.Error = fmt.Sprintf("%+.1f%%", 100**mc.Error)
		}
		if mc.Tolerance != nil {
			row.Checked = true
			row.Tolerance = fmt.Sprintf("±%s%%", numfmt.Compact(100**mc.Tolerance))
			row.Bound = numfmt.NoValue
			if b := mc.Bound; b != nil {
				if b.Slack != 0 {
					row.Tolerance += " + " + formatSlack(m.Unit, b.Slack, b.TimeScale)
				}
				if !math.IsNaN(b.Absolute) {
					row.Bound = "±" + formatValue(m.Unit, b.Absolute)
				}
			}
			switch {
			case mc.Pass == nil:
				row.NoData, row.Result = true, analysis.VerdictNoData
			case *mc.Pass && mc.PassedBy == "interval":
				row.Pass, row.Result = true, "pass (in interval)"
			case *mc.Pass:
				row.Pass, row.Result = true, "pass"
			default:
				row.Result = "FAIL"
			}
		}
		rows = append(rows, row)
	}
	return rows
}
