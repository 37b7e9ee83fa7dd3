package calibrate

import (
	"maps"
	"slices"
)

// aggregateRow is one linear equation of a fit to aggregates: the
// relative error of one metric at one point,
// (pred(x0) + grad·(x − x0)) / measured − 1.
type aggregateRow struct {
	obs    int // index into the observations
	metric string
	// Row's A is grad / measured, its B 1 − (pred(x0) − grad·x0) / measured.
	Row
	pair Pair // measured beside predicted at x0
}

// at is the row's linear prediction at x as a Pair.
func (r *aggregateRow) at(x []float64) Pair {
	rel := 1 - r.B
	for k := range x {
		rel += r.A[k] * x[k]
	}
	return Pair{Statistic: r.pair.Statistic, Measured: r.pair.Measured, Predicted: r.pair.Measured * rel}
}

// aggregateRows are the fit equations of observation i from its trace at
// x0: one per metric it measured, with the same statistic.
func aggregateRows(i int, o *Observation, tr *Trace, x0 []float64) []aggregateRow {
	var rows []aggregateRow
	// In metric order: the solver's sums would otherwise follow a map's
	// random order and the fit differ in its last digits between runs.
	prs := Pairs(&o.Aggregates, &tr.Pred)
	for _, m := range slices.Sorted(maps.Keys(prs)) {
		pr := prs[m]
		gm := m
		if pr.ITL {
			gm = GradITL
		}
		g, ok := tr.Grad[gm]
		if !ok {
			continue
		}
		// The gradient is the mean's; a median or p99 moves with it in
		// proportion (the steady state's shape is kept).
		scale := 1.0
		if mean := tr.Pred.Mean(gm); mean > 0 && pr.Statistic != "mean" && pr.Statistic != "" {
			scale = pr.Predicted / mean
		}
		a := make([]float64, len(g))
		dot := 0.0
		for k := range g {
			a[k] = g[k] * scale / pr.Measured
			dot += g[k] * scale * x0[k]
		}
		rows = append(rows, aggregateRow{obs: i, metric: m, Row: Row{A: a, B: 1 - (pr.Predicted-dot)/pr.Measured, W: o.Weights[m]}, pair: pr})
	}
	return rows
}
