package calibrate

import (
	"errors"
	"maps"
	"math"
	"slices"

	"github.com/thinkcap/thinkcap/profiles"
)

// predictionMove is how far the fit's move from x to y shifts the
// predictions: the mean relative change over the rows' linear models. A
// parameter the points hardly see can swing without moving a prediction,
// and a point whose step sits on a roofline's kink can jump while the rest
// stay: convergence is judged on what the fit is for, the predictions as
// a whole.
func predictionMove(rows []aggregateRow, x, y []float64) float64 {
	if len(rows) == 0 {
		return 0
	}
	m := 0.0
	for i := range rows {
		d := 0.0
		for k := range x {
			d += rows[i].A[k] * (y[k] - x[k])
		}
		m += math.Abs(d)
	}
	return m / float64(len(rows))
}

func maxMove(a, b []float64) float64 {
	m := 0.0
	for k := range a {
		d := math.Abs(b[k] - a[k])
		if a[k] != 0 {
			d /= math.Abs(a[k])
		}
		m = max(m, d)
	}
	return m
}

// linearCV is the largest relative move of a parameter for which a
// cross-validated prediction comes from the points' linear models (their
// rows) rather than a new simulation: well inside the range in which the
// batches the traces saw still hold.
const linearCV = 0.05

// CrossValidate predicts every deployment of the groups by coefficients
// fitted without it (the group's rows less the deployment's, solved from
// the group's fit); a deployment alone in its generation is predicted by
// the others (fallback: the rows of every other generation). The
// prediction is the points' linear model when the coefficients moved
// little, else a new simulation. It returns each observation's
// cross-validated pairs, by observation index.
func (f *AggregateFit) CrossValidate(groups []*Group, fallback *Group) ([]map[string]Pair, error) {
	return f.CrossValidateBy(groups, fallback, func(i int) string { return f.obs[i].Deployment })
}

// CrossValidateBy is CrossValidate with the points held out together
// named by heldOut (an observation index's key: its deployment, its
// model's family, its source): every point of a key is predicted by
// coefficients fitted without any point of that key. The pooled fit is
// solved again without the key's rows, and the key's generation pulled
// towards that (the fit as Fit makes it, less the key); where the key is
// all of its generation, the pooled fit less the key predicts it. Points
// whose key leaves nothing to fit keep no pairs.
func (f *AggregateFit) CrossValidateBy(groups []*Group, fallback *Group, heldOut func(obs int) string) ([]map[string]Pair, error) {
	cv := make([]map[string]Pair, len(f.obs))
	pooled := map[string][]float64{}
	pooledWithout := func(d string) ([]float64, error) {
		if x, ok := pooled[d]; ok {
			return x, nil
		}
		train := rowsWithout(fallback.rows, heldOut, d)
		if len(train) == 0 {
			return nil, nil
		}
		x, err := f.solvePooled(train, fallback)
		pooled[d] = x
		return x, err
	}
	for _, g := range groups {
		keys := map[string]bool{}
		for _, i := range g.Obs {
			keys[heldOut(i)] = true
		}
		for _, d := range slices.Sorted(maps.Keys(keys)) {
			xp, err := pooledWithout(d)
			if err != nil {
				return nil, err
			}
			if xp == nil {
				continue
			}
			x, own := xp, false
			if train := rowsWithout(g.rows, heldOut, d); len(keys) > 1 && len(train) > 0 {
				if x, err = f.solveGroup(train, g, xp); err != nil {
					return nil, err
				}
				own = true
			}
			var idx []int
			for _, i := range g.Obs {
				if heldOut(i) == d {
					idx = append(idx, i)
					cv[i] = map[string]Pair{}
				}
			}
			if f.LinearOnly || own && maxMove(g.x, x) < linearCV {
				for _, r := range g.rows {
					if heldOut(r.obs) == d {
						cv[r.obs][r.metric] = r.at(x)
					}
				}
				continue
			}
			preds, err := f.simulateAll(idx, func(o *Observation) profiles.StepCoefficients { return WithParams(o.Config.GPU.Step, x) })
			if err != nil {
				return nil, err
			}
			for k, i := range idx {
				for m, pr := range Pairs(&f.obs[i].Aggregates, &preds[k]) {
					cv[i][m] = pr
				}
			}
		}
	}
	return cv, nil
}

// rowsWithout is rows less those of the points heldOut names d.
func rowsWithout(rows []aggregateRow, heldOut func(obs int) string, d string) []aggregateRow {
	var out []aggregateRow
	for _, r := range rows {
		if heldOut(r.obs) != d {
			out = append(out, r)
		}
	}
	return out
}

// simulateAll is the points' predictions at their coefficients, by
// Simulate where the points have it, else by traceAll.
func (f *AggregateFit) simulateAll(idx []int, coef func(o *Observation) profiles.StepCoefficients) ([]Aggregates, error) {
	if slices.ContainsFunc(idx, func(i int) bool { return f.obs[i].Simulate == nil }) {
		trs, err := f.traceAll(idx, coef)
		if err != nil {
			return nil, err
		}
		out := make([]Aggregates, len(trs))
		for k, tr := range trs {
			out[k] = tr.Pred
		}
		return out, nil
	}
	preds, errs := eachParallel(f, idx, func(o *Observation) (Aggregates, error) { return o.Simulate(coef(o)) })
	return preds, errors.Join(errs...)
}
