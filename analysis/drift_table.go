package analysis

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// WriteDriftTable writes r for a terminal: thinking tokens per class in both
// logs, then the KS test and accuracy, then the alerts (or a line saying
// there are none). Only write errors are returned.
func WriteDriftTable(w io.Writer, r *DriftReport) error {
	if r == nil {
		return errors.New("write drift table: nil report")
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "thinkcap drift: %s base requests, %s new requests\n\n",
		formatInt(int64(r.Overall.Base.Count)), formatInt(int64(r.Overall.New.Count)))
	rows := driftRows(r)
	for _, write := range []func(io.Writer, []driftRow) error{writeDriftTokens, writeDriftTests} {
		if err := write(ew, rows); err != nil {
			return fmt.Errorf("write drift table: %w", err)
		}
		fmt.Fprintln(ew)
	}
	if len(r.Alerts) == 0 {
		fmt.Fprintf(ew, "no alert: no class with at least %s requests in each log rose more than %s in mean thinking tokens without an accuracy gain above %s points\n",
			formatInt(int64(r.MinCount)), formatPercent(r.Threshold), formatFixed(100*r.AccuracyTolerance, 1))
	} else {
		fmt.Fprintf(ew, "ALERT: %d cost regression(s)\n", len(r.Alerts))
		for _, a := range r.Alerts {
			fmt.Fprintf(ew, "  %s\n", a.Message)
		}
	}
	if ew.err != nil {
		return fmt.Errorf("write drift table: %w", ew.err)
	}
	return nil
}

// driftRow is one comparison of the report with its label.
type driftRow struct {
	mode, category string
	c              *DriftComparison
}

// driftRows lists the classes, then the overall comparison.
func driftRows(r *DriftReport) []driftRow {
	rows := make([]driftRow, 0, len(r.Classes)+1)
	for i := range r.Classes {
		c := &r.Classes[i]
		rows = append(rows, driftRow{classLabel(c.Mode), classLabel(c.Category), &c.DriftComparison})
	}
	return append(rows, driftRow{"overall", "", &r.Overall})
}

// writeDriftTokens prints counts, means and p99s of thinking tokens.
func writeDriftTokens(w io.Writer, rows []driftRow) error {
	t := newLabeledTable(w, 2, "mode", "category", "base n", "new n",
		"base mean", "new mean", "change", "base p99", "new p99", "change")
	for _, r := range rows {
		b, n := r.c.Base, r.c.New
		cells := []string{r.mode, r.category, formatInt(int64(b.Count)), formatInt(int64(n.Count)),
			sideTokens(b, b.ThinkMean), sideTokens(n, n.ThinkMean), signedPercent(r.c.ThinkMeanChange),
			sideTokens(b, b.ThinkP99), sideTokens(n, n.ThinkP99), signedPercent(r.c.ThinkP99Change)}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}

// writeDriftTests prints the KS test, accuracy and the alert flag.
func writeDriftTests(w io.Writer, rows []driftRow) error {
	t := newLabeledTable(w, 2, "mode", "category", "KS D", "p-value",
		"base accuracy", "new accuracy", "change", "alert")
	for _, r := range rows {
		d, p := noValue, noValue
		if r.c.KS != nil {
			d, p = formatFixed(r.c.KS.D, 3), formatPValue(r.c.KS.PValue)
		}
		change := noValue
		if r.c.AccuracyChange != nil {
			change = signedFixed(100**r.c.AccuracyChange, 1) + " pt"
		}
		alert := ""
		if r.c.Alert {
			alert = "ALERT"
		}
		cells := []string{r.mode, r.category, d, p,
			optionalPercent(r.c.Base.Accuracy), optionalPercent(r.c.New.Accuracy), change, alert}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}

// sideTokens prints a token statistic of one side, noValue when it has no
// records.
func sideTokens(s DriftSide, v float64) string {
	if s.Count == 0 {
		return noValue
	}
	return formatTokens(v)
}

// signedPercent prints a relative change with its sign: +40.0%, -3.1%.
func signedPercent(f *float64) string {
	if f == nil {
		return noValue
	}
	return signedFixed(100**f, 1) + "%"
}

// signedFixed is formatFixed with a plus sign on positive values.
func signedFixed(v float64, decimals int) string {
	s := formatFixed(v, decimals)
	if s != noValue && s[0] != '-' && s != formatFixed(0, decimals) {
		s = "+" + s
	}
	return s
}

// formatPValue prints a p-value: three decimals down to 0.001, scientific
// notation below, where only the order of magnitude matters.
func formatPValue(p float64) string {
	switch {
	case p == 0:
		return "0"
	case p < 0.001:
		return strconv.FormatFloat(p, 'e', 1, 64)
	default:
		return formatFixed(p, 3)
	}
}
