package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// WriteDriftTable writes r for a terminal: thinking tokens per class in both
// logs, then the KS test and accuracy, then the alerts (or a line saying
// there are none). Only write errors are returned.
func WriteDriftTable(w io.Writer, r *logstats.DriftReport) error {
	if r == nil {
		return errors.New("write drift table: nil report")
	}
	return writeReport(w, "write drift table", func(w io.Writer) error {
		fmt.Fprintf(w, "thinkcap drift: %s base requests, %s new requests\n\n",
			numfmt.Int(int64(r.Overall.Base.Count)), numfmt.Int(int64(r.Overall.New.Count)))
		rows := classRows(r.Classes, func(c *logstats.DriftClass) (string, string, *logstats.DriftComparison) {
			return c.Mode, c.Category, &c.DriftComparison
		}, &r.Overall)
		for _, write := range []func(io.Writer, []classRow[logstats.DriftComparison]) error{writeDriftTokens, writeDriftTests} {
			if err := write(w, rows); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		if len(r.Alerts) == 0 {
			fmt.Fprintf(w, "no alert: no class with at least %s requests in each log rose more than %s in mean thinking tokens without an accuracy gain above %s points\n",
				numfmt.Int(int64(r.MinCount)), numfmt.Percent(r.Threshold), numfmt.Fixed(100*r.AccuracyTolerance, 1))
			return nil
		}
		fmt.Fprintf(w, "ALERT: %d cost regression(s)\n", len(r.Alerts))
		for _, a := range r.Alerts {
			fmt.Fprintf(w, "  %s\n", a.Message)
		}
		return nil
	})
}

// writeDriftTokens prints counts, means and p99s of thinking tokens.
func writeDriftTokens(w io.Writer, rows []classRow[logstats.DriftComparison]) error {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		c := r.v
		b, n := c.Base, c.New
		cells[i] = []string{r.mode, r.category, numfmt.Int(int64(b.Count)), numfmt.Int(int64(n.Count)),
			sideTokens(b, b.ThinkMean), sideTokens(n, n.ThinkMean), signedPercent(c.ThinkMeanChange),
			sideTokens(b, b.ThinkP99), sideTokens(n, n.ThinkP99), signedPercent(c.ThinkP99Change)}
	}
	return writeRows(newLabeledTable(w, 2, "mode", "category", "base n", "new n",
		"base mean", "new mean", "change", "base p99", "new p99", "change"), cells)
}

// writeDriftTests prints the KS test, accuracy and the alert flag.
func writeDriftTests(w io.Writer, rows []classRow[logstats.DriftComparison]) error {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		c := r.v
		d, p := numfmt.NoValue, numfmt.NoValue
		if c.KS != nil {
			d, p = numfmt.Fixed(c.KS.D, 3), formatPValue(c.KS.PValue)
		}
		change := numfmt.NoValue
		if c.AccuracyChange != nil {
			change = signedFixed(100**c.AccuracyChange, 1) + " pt"
		}
		alert := ""
		if c.Alert {
			alert = "ALERT"
		}
		cells[i] = []string{r.mode, r.category, d, p,
			optionalPercent(c.Base.Accuracy), optionalPercent(c.New.Accuracy), change, alert}
	}
	return writeRows(newLabeledTable(w, 2, "mode", "category", "KS D", "p-value",
		"base accuracy", "new accuracy", "change", "alert"), cells)
}

// sideTokens prints a token statistic of one side, numfmt.NoValue when it has no
// records.
func sideTokens(s logstats.DriftSide, v float64) string {
	if s.Count == 0 {
		return numfmt.NoValue
	}
	return numfmt.Tokens(v)
}

// signedPercent prints a relative change with its sign: +40.0%, -3.1%.
func signedPercent(f *float64) string {
	if f == nil {
		return numfmt.NoValue
	}
	return signedFixed(100**f, 1) + "%"
}

// signedFixed is numfmt.Fixed with a plus sign on positive values.
func signedFixed(v float64, decimals int) string {
	s := numfmt.Fixed(v, decimals)
	if s != numfmt.NoValue && s[0] != '-' && s != numfmt.Fixed(0, decimals) {
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
		return numfmt.Fixed(p, 3)
	}
}
