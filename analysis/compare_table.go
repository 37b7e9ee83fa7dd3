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
	byName := map[string]Metric{}
	for _, m := range Metrics() {
		byName[m.Name] = m
	}
	t := newTable(w, "metric", "predicted", "measured", "error", "tolerance", "result")
	for _, mc := range c.Metrics {
		if mc.Predicted == 0 && mc.Measured == 0 && mc.Pass == nil {
			continue
		}
		m := byName[mc.Name]
		label := m.Label
		if m.Unit != "" && m.Unit != "%" {
			label += " (" + m.Unit + ")"
		}
		errCell, tolCell, verdict := noValue, "", ""
		if mc.Error != nil {
			errCell = fmt.Sprintf("%+.1f%%", 100**mc.Error)
		}
		if mc.Tolerance != nil {
			tolCell = fmt.Sprintf("±%s%%", formatCompact(100**mc.Tolerance))
			verdict = "pass"
			if !*mc.Pass {
				verdict = "FAIL"
			}
		}
		row := []string{label, formatValue(m.Unit, mc.Predicted), formatValue(m.Unit, mc.Measured), errCell, tolCell, verdict}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// formatValue prints a metric's value in its unit.
func formatValue(unit string, v float64) string {
	switch unit {
	case "ms":
		return formatMS(v)
	case "%":
		return formatPercent(v)
	case "":
		return formatCompact(v)
	}
	return formatCompact(v)
}
