package analysis

import (
	"cmp"
	"math"
	"slices"
)

// nelderMead minimises f from start with the Nelder–Mead simplex method
// (the standard coefficients: reflection 1, expansion 2, contraction ½,
// shrink ½), starting from a simplex of steps of size step along each axis.
// It stops when the function values of the simplex agree to tol, or after
// maxEval evaluations, and returns the best point and its value.
//
// gonum's optimize package has the same method, but importing it pulls in a
// dependency that this module does not carry; the fits need only two
// dimensions and a smooth function, which this handles in a few dozen lines.
func nelderMead(f func([]float64) float64, start []float64, step, tol float64, maxEval int) ([]float64, float64) {
	dim := len(start)
	type vertex struct {
		x []float64
		f float64
	}
	eval := func(x []float64) float64 {
		v := f(x)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	simplex := make([]vertex, dim+1)
	for i := range simplex {
		x := slices.Clone(start)
		if i > 0 {
			x[i-1] += step
		}
		simplex[i] = vertex{x, eval(x)}
	}
	evals := dim + 1
	point := func(c []float64, toward []float64, t float64) []float64 {
		x := make([]float64, dim)
		for j := range x {
			x[j] = c[j] + t*(toward[j]-c[j])
		}
		return x
	}
	for evals < maxEval {
		// eval maps NaN to +Inf, so cmp.Compare sees no NaN.
		slices.SortFunc(simplex, func(a, b vertex) int { return cmp.Compare(a.f, b.f) })
		best, worst := simplex[0], simplex[dim]
		if math.Abs(worst.f-best.f) <= tol*(1+math.Abs(best.f)) {
			break
		}
		centroid := make([]float64, dim)
		for _, v := range simplex[:dim] {
			for j := range centroid {
				centroid[j] += v.x[j] / float64(dim)
			}
		}
		refl := point(centroid, worst.x, -1)
		fr := eval(refl)
		evals++
		switch {
		case fr < best.f:
			exp := point(centroid, worst.x, -2)
			if fe := eval(exp); fe < fr {
				simplex[dim] = vertex{exp, fe}
			} else {
				simplex[dim] = vertex{refl, fr}
			}
			evals++
		case fr < simplex[dim-1].f:
			simplex[dim] = vertex{refl, fr}
		default:
			// Contract toward the better of the worst and its reflection.
			toward, ft := worst.x, worst.f
			if fr < ft {
				toward, ft = refl, fr
			}
			con := point(centroid, toward, 0.5)
			fc := eval(con)
			evals++
			if fc < ft {
				simplex[dim] = vertex{con, fc}
				continue
			}
			for i := 1; i <= dim; i++ {
				x := point(best.x, simplex[i].x, 0.5)
				simplex[i] = vertex{x, eval(x)}
			}
			evals += dim
		}
	}
	best := simplex[0]
	for _, v := range simplex[1:] {
		if v.f < best.f {
			best = v
		}
	}
	return best.x, best.f
}
