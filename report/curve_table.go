package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// WriteCurveTable writes r for a terminal: per category, a table of budget,
// items, accuracy, mean tokens and accuracy per thousand tokens, the knee
// marked, and the recommended budget above it (or, when accuracy is still
// rising at the largest budget, that there is no knee in the tested
// range). Only write errors are returned.
func WriteCurveTable(w io.Writer, r *logstats.CurveReport) error {
	if r == nil {
		return errors.New("write curve table: nil report")
	}
	return writeReport(w, "write curve table", func(w io.Writer) error {
		for i := range r.Categories {
			c := &r.Categories[i]
			if i > 0 {
				fmt.Fprintln(w)
			}
			if c.NoKnee {
				fmt.Fprintf(w, "category %s: no knee within the tested budgets: accuracy still rising at budget %s (try larger budgets)\n",
					logstats.ClassLabel(c.Category), numfmt.Int(int64(c.RecommendedBudget)))
			} else {
				fmt.Fprintf(w, "category %s: recommended budget %s\n", logstats.ClassLabel(c.Category), numfmt.Int(int64(c.RecommendedBudget)))
			}
			if err := writeCurve(w, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeCurve prints one category's points.
func writeCurve(w io.Writer, c *logstats.CategoryCurve) error {
	rows := make([][]string, len(c.Points))
	for i, p := range c.Points {
		knee := ""
		switch {
		case i == c.KneeIndex() && c.NoKnee:
			knee = "<- most accurate"
		case i == c.KneeIndex():
			knee = "<- knee"
		}
		rows[i] = []string{numfmt.Int(int64(p.Budget)), numfmt.Int(int64(p.Items)), numfmt.Percent(p.Accuracy),
			numfmt.Tokens(p.MeanTokens), numfmt.Fixed(p.AccuracyPer1KTokens, 3), knee}
	}
	return writeRows(newLabeledTable(w, 0, "budget", "items", "accuracy", "mean tokens", "acc/1k tok", "knee"), rows)
}
