package fidelity

import (
	"maps"
	"slices"

	"github.com/thinkcap/thinkcap/calibrate"
)

// metricWeights are how much each metric's relative error counts in the
// fit: TPOT and throughput are the engine's steady state, what sizing
// rests on; TTFT adds the API server and the queue at the start of a
// closed loop, noisier in the sources, so it counts three quarters (its
// flagged spikes and prefix-cache hits are already left out: Point.excluded).
//
// A saturated throughput counts twice a TPOT: only a seventh of the points
// measure one (closed loops and bursts that report it), yet it is the
// figure `size` divides the traffic by, and the scoreboard holds its mean
// error to the same target as TPOT's; at one each it was fitted as an
// afterthought of the TPOTs. 2 is the least weight at which every target
// is met; the refits that chose it are in docs/fidelity-log.md.
var metricWeights = map[string]float64{MetricTPOT: 1, MetricThroughput: 2, MetricTTFT: 0.75}

// corpusSolver is the corpus fit's least squares. Its ridge (1e-4 of the
// rows' total weight) is enough to keep a parameter the points cannot see
// (or only together with another) where the profile put it, far too
// little to hold one they can. Its Huber band (15 %, four passes) makes
// errors count by their size beyond it, as the scoreboard's mean absolute
// error counts them, so that a few points far off cannot pull a whole
// generation; what the band and passes did to the corpus's errors is in
// docs/fidelity-log.md.
var corpusSolver = calibrate.Solver{Ridge: 1e-4, HuberDelta: 0.15, HuberPasses: 4}

// fitRow is one linear equation of the fit: the relative error of one
// metric at one point, (pred(x0) + grad·(x − x0)) / measured − 1.
type fitRow struct {
	point  int // index into the points
	metric string
	// Row's A is grad / measured, its B 1 − (pred(x0) − grad·x0) / measured.
	calibrate.Row
	pair Pair // measured beside predicted at x0
}

// at is the row's linear prediction at x as a Pair.
func (r *fitRow) at(x []float64) Pair {
	rel := 1 - r.B
	for k := range x {
		rel += r.A[k] * x[k]
	}
	return Pair{Statistic: r.pair.Statistic, Measured: r.pair.Measured, Predicted: r.pair.Measured * rel}
}

// rowsOf are the fit equations of point i from its trace at x0: one per
// metric the source measured, with the same statistic.
func rowsOf(i int, p *Point, tr *Trace, x0 []float64) []fitRow {
	var rows []fitRow
	// In metric order: the solver's sums would otherwise follow a map's
	// random order and the fit differ in its last digits between runs.
	prs := pairs(p.Record, &tr.Pred)
	for _, m := range slices.Sorted(maps.Keys(prs)) {
		pr := prs[m]
		gm := m
		if pr.itl {
			gm = gradITL
		}
		g, ok := tr.Grad[gm]
		if !ok || p.excluded(m) != "" {
			continue
		}
		// The gradient is the mean's; a median or p99 moves with it in
		// proportion (the steady state's shape is kept).
		scale := 1.0
		if mean := meanOf(gm, &tr.Pred); mean > 0 && pr.Statistic != "mean" && pr.Statistic != "" {
			scale = pr.Predicted / mean
		}
		a := make([]float64, len(g))
		dot := 0.0
		for k := range g {
			a[k] = g[k] * scale / pr.Measured
			dot += g[k] * scale * x0[k]
		}
		rows = append(rows, fitRow{point: i, metric: m, Row: calibrate.Row{A: a, B: 1 - (pr.Predicted-dot)/pr.Measured, W: metricWeights[m]}, pair: pr})
	}
	return rows
}

func meanOf(m string, p *Predicted) float64 {
	switch m {
	case MetricTPOT:
		return p.TPOT.Mean
	case gradITL:
		return p.ITL.Mean
	case MetricTTFT:
		return p.TTFT.Mean
	}
	return p.OutputThroughput
}

// solve fits the parameters to rows (corpusSolver), moving those free
// marks from x0.
func solve(rows []fitRow, x0, prior []float64, free []bool) ([]float64, error) {
	eqs := make([]calibrate.Row, len(rows))
	for i := range rows {
		eqs[i] = rows[i].Row
	}
	return corpusSolver.Solve(eqs, x0, prior, free)
}
