package calibrate

import (
	"math"

	"github.com/thinkcap/thinkcap/analysis"
)

// A Row is one linear equation of a fit: A·x ≈ B with weight W, where x
// is the parameters (Params' order). Both fits write the relative error of
// a prediction this way: a prediction is linear in the parameters given
// the batches the engine ran (sim.StepParam), so A is its gradient over
// the measured value.
type Row struct {
	A []float64
	B float64
	W float64
}

// Solver is the one least-squares solver of every fit: held to each
// parameter's physical range (Param.Lower, Param.Upper: an efficiency at
// most what a real kernel reaches, an overhead at least 0 or a measured
// floor), optionally pulled towards a prior (Ridge) and each coefficient
// towards its parent (Tie), and robust to outliers (Huber).
type Solver struct {
	// Ridge is the weight of the pull of each free parameter towards its
	// prior, as a fraction of the rows' total weight (0: none). A
	// parameter whose prior is 0 is measured against its Param.Scale.
	Ridge float64
	// Tie is the weight, in the same units, of the pull of each free
	// parameter towards its parent's (Param.Parent: an FP8 expert
	// kernel's efficiency towards the experts', the experts' towards the
	// dense layers'): where the points tell the two apart the fit
	// separates them, where few or none do they stay together, so a
	// held-out family is priced by its parent's evidence rather than by
	// the few points of another family that happened to set the child.
	Tie float64
	// Physical holds every parameter to its declared physical range
	// (Param.Lower, Param.Upper); without it the bounds are only an
	// efficiency at most 1 and an overhead at least 0 (a run directory's
	// calibration, which fits three coefficients of the user's own server).
	Physical bool
	// HuberDelta and HuberPasses make the least squares a Huber fit,
	// iteratively reweighted: a row whose residual exceeds HuberDelta
	// weighs HuberDelta/|residual| in the next pass, so errors count by
	// their square inside the band and by their size beyond it. Passes of
	// 0 or 1: plain least squares.
	HuberDelta  float64
	HuberPasses int
}

// Solve fits the parameters to rows from x0, moving only those free marks
// (the others stay at x0).
func (s Solver) Solve(rows []Row, x0, prior []float64, free []bool) ([]float64, error) {
	K := len(x0)
	lower, upper := bounds(s.Physical)
	w := make([]float64, len(rows))
	for i := range rows {
		w[i] = rows[i].W
	}
	passes := max(s.HuberPasses, 1)
	var x []float64
	for pass := range passes {
		a := make([][]float64, 0, len(rows)+K)
		b := make([]float64, 0, len(rows)+K)
		for i, r := range rows {
			sw := math.Sqrt(w[i])
			row := make([]float64, K)
			for k := range K {
				row[k] = sw * r.A[k]
			}
			a, b = append(a, row), append(b, sw*r.B)
		}
		if s.Ridge > 0 {
			lambda := s.Ridge * totalWeight(w)
			for k := range K {
				if !free[k] {
					continue
				}
				scale := math.Abs(prior[k])
				if scale == 0 {
					scale = Params[k].Scale
				}
				row := make([]float64, K)
				row[k] = math.Sqrt(lambda) / scale
				a, b = append(a, row), append(b, math.Sqrt(lambda)*prior[k]/scale)
			}
		}
		if s.Tie > 0 {
			lambda := s.Tie * totalWeight(w)
			for k := range K {
				pk := parents[k]
				if !free[k] || pk < 0 {
					continue
				}
				scale := math.Abs(prior[pk])
				if scale == 0 {
					scale = Params[k].Scale
				}
				row := make([]float64, K)
				row[k], row[pk] = math.Sqrt(lambda)/scale, -math.Sqrt(lambda)/scale
				a, b = append(a, row), append(b, 0)
			}
		}
		var err error
		if x, err = analysis.LeastSquaresBox(a, b, x0, lower, upper, free); err != nil {
			return nil, err
		}
		if pass == passes-1 {
			break // the last solve is the fit: no weights after it
		}
		for i, r := range rows {
			res := r.B
			for k := range K {
				res -= r.A[k] * x[k]
			}
			w[i] = r.W
			if e := math.Abs(res); e > s.HuberDelta {
				w[i] = r.W * s.HuberDelta / e
			}
		}
	}
	return x, nil
}

func totalWeight(w []float64) float64 {
	t := 0.0
	for _, v := range w {
		t += v
	}
	return t
}
