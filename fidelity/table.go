package fidelity

import (
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/report"
)

// metricLabels are the metrics as the tables name them.
var metricLabels = map[string]string{MetricTPOT: "TPOT/ITL", MetricTTFT: "TTFT", MetricThroughput: "throughput"}

// WriteTable prints the scoreboard: the errors per metric, per regime and
// per deployment, the fits when calibrating, the records skipped with
// their reasons, and with rows every point.
func WriteTable(w io.Writer, sb *Scoreboard, rows bool) error {
	fmt.Fprintf(w, "thinkcap fidelity: %d of %d corpus records replayed, from %d sources; errors are mean absolute relative errors,\n",
		sb.Points, sb.Records, sb.Sources)
	fmt.Fprintf(w, "cross-validated (cv): each deployment predicted by coefficients fitted without it (cv family, fam.: without its model family;\n")
	fmt.Fprintf(w, "cv source: without its source); bias: median of predicted/measured - 1\n\n")
	t := report.NewLabeledTable(w, 1, overallHeader...)
	for _, row := range overallRows(sb) {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, optimisticLine(sb))
	fmt.Fprintln(w, countingExcludedLine(sb))
	fmt.Fprintln(w)
	if err := writeRegimes(w, "regime", sb.Regimes); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := writeRegimes(w, "deployment", sb.Deployments); err != nil {
		return err
	}
	if len(sb.Coverage) > 0 {
		fmt.Fprintln(w)
		if err := writeCoverage(w, sb.Coverage); err != nil {
			return err
		}
	}
	if len(sb.Fits) > 0 {
		fmt.Fprintln(w)
		if err := writeFits(w, sb); err != nil {
			return err
		}
	}
	if len(sb.Excluded) > 0 {
		fmt.Fprintln(w)
		t := report.NewLabeledTable(w, 2, excludedHeader...)
		for _, row := range excludedRows(sb) {
			if err := t.Append(row); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if len(sb.Skipped) > 0 {
		fmt.Fprintln(w)
		t := report.NewLabeledTable(w, 1, "not replayed", "records")
		for _, s := range sb.Skipped {
			if err := t.Append([]string{s.Reason, fmt.Sprint(s.Records)}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if rows {
		fmt.Fprintln(w)
		return writeRows(w, sb)
	}
	return nil
}

// overallHeader and overallRows are the errors per metric over the corpus.
// cv error holds each deployment out, cv family each model family
// (profiles.Model.Lineage), cv source each source; bias is the median signed error.
var overallHeader = []string{"metric", "points", "error", "cv error", "cv family", "cv source", "bias"}

func overallRows(sb *Scoreboard) [][]string {
	var rows [][]string
	for _, m := range Metrics3 {
		n := 0
		for _, r := range sb.Rows {
			if _, ok := r.Metrics[m]; ok {
				n++
			}
		}
		rows = append(rows, []string{metricLabels[m], fmt.Sprint(n), pct(sb.MAPE, m), pct(sb.CVMAPE, m),
			pct(sb.CVFamilyMAPE, m), pct(sb.CVSourceMAPE, m), signedPct(sb.Bias, m)})
	}
	return rows
}

// optimisticLine is the share of saturated throughput points predicted
// more than OptimisticMargin above the measurement.
func optimisticLine(sb *Scoreboard) string {
	return fmt.Sprintf("optimistic share: %.1f%% of saturated throughput points predicted more than %.0f%% above the measurement",
		100*sb.OptimisticShare, 100*OptimisticMargin)
}

// signedPct is a signed error as a percentage, "-" when no point has it.
func signedPct(m map[string]float64, metric string) string {
	v, ok := m[metric]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

func writeRegimes(w io.Writer, label string, rs []Regime) error {
	t := report.NewLabeledTable(w, 2, regimeHeader(label)...)
	for _, r := range rs {
		if err := t.Append(regimeRow(label, r)); err != nil {
			return err
		}
	}
	return t.Render()
}

// regimeHeader and regimeRow are one slice of the corpus's errors per
// metric: in-sample, cross-validated leave-one-deployment-out (cv) and
// leave-one-model-family-out (fam.), and the bias.
func regimeHeader(label string) []string {
	h := []string{label, "", "points"}
	for _, m := range []string{"TPOT", "TTFT", "thr."} {
		h = append(h, m, m+" cv", m+" fam.", m+" bias")
	}
	return h
}

func regimeRow(label string, r Regime) []string {
	kind := r.Kind
	if label == "deployment" {
		kind = ""
	}
	row := []string{kind, r.Name, fmt.Sprint(r.Points)}
	for _, m := range Metrics3 {
		row = append(row, pct(r.MAPE, m), pct(r.CVMAPE, m), pct(r.CVFamilyMAPE, m), signedPct(r.Bias, m))
	}
	return row
}

// excludedHeader and excludedRows are what the scoreboard does not score,
// by rule: records not replayed, then metrics of replayed points.
var excludedHeader = []string{"not scored", "rule", "count", "why"}

func excludedRows(sb *Scoreboard) [][]string {
	rows := make([][]string, len(sb.Excluded))
	for i, e := range sb.Excluded {
		what := metricLabels[e.Metric]
		if e.Metric == MetricRecord {
			what = "record"
		}
		rows[i] = []string{what, e.Rule, fmt.Sprint(e.Count), e.Reason}
	}
	return rows
}

// countingExcludedLine is the errors with the excluded figures counted.
func countingExcludedLine(sb *Scoreboard) string {
	return fmt.Sprintf("counting the TTFTs the exclusion rules leave out: TPOT/ITL %s, TTFT %s, throughput %s",
		pct(sb.MAPECountingExcluded, MetricTPOT), pct(sb.MAPECountingExcluded, MetricTTFT), pct(sb.MAPECountingExcluded, MetricThroughput))
}

func writeFits(w io.Writer, sb *Scoreboard) error {
	header := []string{"coefficient"}
	for _, f := range sb.Fits {
		header = append(header, f.Generation)
	}
	t := report.NewLabeledTable(w, 1, header...)
	add := func(name string, v func(i int) string) error {
		row := []string{name}
		for i := range sb.Fits {
			row = append(row, v(i))
		}
		return t.Append(row)
	}
	if err := add("points (deployments)", func(i int) string {
		return fmt.Sprintf("%d (%d)", sb.Fits[i].Points, sb.Fits[i].Deployments)
	}); err != nil {
		return err
	}
	for _, p := range calibrate.Params {
		if err := add(p.Key, func(i int) string {
			s := sb.Fits[i].Step
			return fmt.Sprintf("%.4g", *p.Value(&s))
		}); err != nil {
			return err
		}
	}
	return t.Render()
}

func writeRows(w io.Writer, sb *Scoreboard) error {
	rows := append([]Row(nil), sb.Rows...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	t := report.NewLabeledTable(w, 1, "point", "conc.", "TPOT ms", "pred.", "err", "TTFT ms", "pred.", "err", "tok/s", "pred.", "err")
	for _, r := range rows {
		row := []string{r.ID, fmt.Sprintf("%.0f", r.Concurrency)}
		for _, m := range Metrics3 {
			v, ok := r.Metrics[m]
			if !ok {
				row = append(row, "-", "-", "-")
				continue
			}
			row = append(row, fmt.Sprintf("%.4g", v.Measured), fmt.Sprintf("%.4g", v.Predicted), fmt.Sprintf("%+.1f%%", 100*v.Err))
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// pct is a metric's error as a percentage, "-" when no point has it.
func pct(m map[string]float64, metric string) string {
	v, ok := m[metric]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// writeCoverage is the model intervals' coverage, one row per regime and
// a column per metric.
func writeCoverage(w io.Writer, cov []Coverage) error {
	header, rows := coverageTable(cov)
	t := report.NewLabeledTable(w, 2, header...)
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// coverageTable groups the coverage cells by regime, a column per metric.
func coverageTable(cov []Coverage) (header []string, rows [][]string) {
	conf := cov[0].Confidence
	type key struct{ kind, name string }
	var order []key
	cells := map[key]map[string]Coverage{}
	for _, c := range cov {
		k := key{c.Kind, c.Name}
		if cells[k] == nil {
			cells[k] = map[string]Coverage{}
			order = append(order, k)
		}
		cells[k][c.Metric] = c
	}
	slices.SortStableFunc(order, func(a, b key) int {
		rank := map[string]int{"all": 0, "concurrency": 1, "phase": 2, "generation": 3}
		return rank[a.kind] - rank[b.kind]
	})
	header = []string{fmt.Sprintf("%.0f%% model interval covers", 100*conf), "", "TPOT", "TTFT", "throughput"}
	for _, k := range order {
		row := []string{k.kind, k.name}
		for _, m := range Metrics3 {
			if c, ok := cells[k][m]; ok {
				row = append(row, fmt.Sprintf("%.1f%% of %d", 100*c.Covered, c.Points))
			} else {
				row = append(row, "-")
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}
