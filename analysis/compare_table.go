package analysis

import (
	"fmt"
	"io"
)

// WriteComparison prints a comparison as a table: metric, predicted,
// measured, error and, for checked metrics, the tolerance and the verdict.
// Latencies print in milliseconds, KV usage in percent. Metrics that are
// zero on both sides (TTFA of a run without answers) are left out.
func WriteComparison(w io.Writer, c *Comparison) error {
	t := newTable(w, "metric", "predicted", "measured", "error", "tolerance", "result")
	for _, r := range ComparisonRows(c) {
		if err := t.Append([]string{r.Label, r.Predicted, r.Measured, r.Error, r.Tolerance, r.Result}); err != nil {
			return err
		}
	}
	return t.Render()
}

// formatValue prints a metric's value in its unit: milliseconds for
// latencies (given in seconds), percent for KV usage, compactly otherwise.
func formatValue(unit string, v float64) string {
	switch unit {
	case "ms":
		return formatMS(v)
	case "%":
		return formatPercent(v)
	}
	return formatCompact(v)
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
	// Tolerance ("±25%") and Result ("pass", "FAIL") are empty for
	// metrics that are not checked.
	Tolerance, Result string
	Checked, Pass     bool
}

// ComparisonRows formats c's metrics in table order, leaving out those
// WriteComparison leaves out: zero on both sides and not checked.
func ComparisonRows(c *Comparison) []ComparisonRow {
	byName := map[string]Metric{}
	for _, m := range Metrics() {
		byName[m.Name] = m
	}
	var rows []ComparisonRow
	for _, mc := range c.Metrics {
		if mc.Predicted == 0 && mc.Measured == 0 && mc.Pass == nil {
			continue
		}
		m, known := byName[mc.Name]
		if !known {
			m = Metric{Name: mc.Name, Label: mc.Name}
		}
		row := ComparisonRow{
			Name: mc.Name, Label: m.Label,
			Predicted: formatValue(m.Unit, mc.Predicted), Measured: formatValue(m.Unit, mc.Measured),
			Error: noValue,
		}
		if m.Unit != "" && m.Unit != "%" {
			row.Label += " (" + m.Unit + ")"
		}
		if mc.Error != nil {
			row.Error = fmt.Sprintf("%+.1f%%", 100**mc.Error)
		}
		if mc.Tolerance != nil && mc.Pass != nil {
			row.Checked, row.Pass = true, *mc.Pass
			row.Tolerance = fmt.Sprintf("±%s%%", formatCompact(100**mc.Tolerance))
			row.Result = "pass"
			if !row.Pass {
				row.Result = "FAIL"
			}
		}
		rows = append(rows, row)
	}
	return rows
}
