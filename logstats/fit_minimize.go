package logstats

import (
	"math"

	"gonum.org/v1/gonum/optimize"
)

// nelderMead minimises f from start with gonum's Nelder–Mead simplex method
// and the standard coefficients (reflection 1, expansion 2, contraction ½,
// shrink ½: what gonum picks for two dimensions anyway, set here so that a
// one-dimensional f gets them too), starting from a simplex of steps of
// size step along each axis. It stops once the best value has not fallen by
// more than tol·(1 + |f|) for stallIterations iterations in a row, or after
// maxEval evaluations, and returns the best point and its value. A NaN value
// counts as +Inf, so the search stays where f is defined.
func nelderMead(f func([]float64) float64, start []float64, step, tol float64, maxEval int) ([]float64, float64) {
	p := optimize.Problem{Func: func(x []float64) float64 {
		if v := f(x); !math.IsNaN(v) {
			return v
		}
		return math.Inf(1)
	}}
	settings := &optimize.Settings{
		FuncEvaluations: maxEval,
		Converger:       &optimize.FunctionConverge{Absolute: tol, Relative: tol, Iterations: stallIterations},
	}
	method := &optimize.NelderMead{Reflection: 1, Expansion: 2, Contraction: 0.5, Shrink: 0.5, SimplexSize: step}
	res, err := optimize.Minimize(p, start, settings, method)
	if err != nil || res == nil {
		return start, math.NaN()
	}
	return res.X, res.F
}

// stallIterations is how many iterations without a real improvement end a
// search.
const stallIterations = 20
