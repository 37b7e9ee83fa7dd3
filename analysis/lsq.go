package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LeastSquaresBounded solves min Σ_i (b_i − a_i·x)² subject to x_k ≥
// lower_k, for the columns marked free; the others stay at x0: it is
// LeastSquaresBox without upper bounds.
func LeastSquaresBounded(a [][]float64, b, x0, lower []float64, free []bool) ([]float64, error) {
	upper := make([]float64, len(x0))
	for k := range upper {
		upper[k] = math.Inf(1)
	}
	return LeastSquaresBox(a, b, x0, lower, upper, free)
}

// LeastSquaresBox solves min Σ_i (b_i − a_i·x)² subject to lower_k ≤ x_k ≤
// upper_k, for the columns marked free; the others stay at x0. It solves
// the free columns by QR (gonum), clamps the most violated to its bound
// and solves again until no bound is violated; then it releases the
// clamped column whose bound holds the objective back most (the gradient
// pushes it into the box) and solves again (Lawson and Hanson's
// active-set method), until no clamped column would move off its bound.
// Rows are rows of a (weights are the caller's: scale a row and its b).
func LeastSquaresBox(a [][]float64, b, x0, lower, upper []float64, free []bool) ([]float64, error) {
	if len(upper) != len(x0) {
		return nil, errors.New("least squares: x0 and upper differ in length")
	}
	clamped := make([]int, len(x0)) // -1: at lower, +1: at upper
	for range 4 * len(x0) {
		x, err := leastSquaresClamped(a, b, x0, lower, upper, free, clamped)
		if err != nil {
			return nil, err
		}
		// Release the clamped column the objective most wants back inside:
		// ∂/∂x_k of ½‖b − Ax‖² = −a_kᵀ(b − Ax), negative at a lower bound
		// it wants to rise from, positive at an upper one.
		worst, worstBy := -1, 1e-12
		for k := range x {
			if clamped[k] == 0 {
				continue
			}
			g := 0.0
			for i, row := range a {
				r := b[i]
				for j := range row {
					r -= row[j] * x[j]
				}
				g -= row[k] * r
			}
			if by := g * float64(clamped[k]); by > worstBy {
				worst, worstBy = k, by
			}
		}
		if worst < 0 {
			return x, nil
		}
		clamped[worst] = 0
		x0 = x
	}
	return leastSquaresClamped(a, b, x0, lower, upper, free, clamped)
}

// leastSquaresClamped is one pass of LeastSquaresBox: the columns
// clamped stay at their bound, the others are solved and clamped when they
// leave the box (clamped records which bound).
func leastSquaresClamped(a [][]float64, b, x0, lower, upper []float64, free []bool, clamped []int) ([]float64, error) {
	n := len(x0)
	if len(lower) != n || len(free) != n {
		return nil, errors.New("least squares: x0, lower and free differ in length")
	}
	if len(b) != len(a) {
		return nil, fmt.Errorf("least squares: %d rows but %d right-hand sides (b)", len(a), len(b))
	}
	x := append([]float64(nil), x0...)
	active := append([]bool(nil), free...)
	for k := range active {
		switch {
		case !active[k]:
		case clamped[k] < 0:
			active[k], x[k] = false, lower[k]
		case clamped[k] > 0:
			active[k], x[k] = false, upper[k]
		}
	}
	for {
		var cols []int
		for k := range n {
			if active[k] {
				cols = append(cols, k)
			}
		}
		if len(cols) == 0 {
			return x, nil
		}
		if len(a) < len(cols) {
			return nil, fmt.Errorf("least squares: %d rows cannot fit %d unknowns", len(a), len(cols))
		}
		A := mat.NewDense(len(a), len(cols), nil)
		rhs := mat.NewVecDense(len(a), nil)
		for i, row := range a {
			if len(row) != n {
				return nil, fmt.Errorf("least squares: row %d has %d columns, want %d", i, len(row), n)
			}
			r := b[i]
			for k := range n {
				if !active[k] {
					r -= row[k] * x[k]
				}
			}
			rhs.SetVec(i, r)
			for j, k := range cols {
				A.Set(i, j, row[k])
			}
		}
		var sol mat.VecDense
		if err := sol.SolveVec(A, rhs); err != nil {
			return nil, fmt.Errorf("least squares: %w", err)
		}
		worst, worstBy, side := -1, 0.0, 0
		for j, k := range cols {
			v := sol.AtVec(j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("least squares: singular system (a coefficient the data does not determine)")
			}
			x[k] = v
			if by := lower[k] - v; by > worstBy {
				worst, worstBy, side = k, by, -1
			}
			if by := v - upper[k]; by > worstBy {
				worst, worstBy, side = k, by, 1
			}
		}
		if worst < 0 {
			return x, nil
		}
		x[worst], active[worst], clamped[worst] = lower[worst], false, side
		if side > 0 {
			x[worst] = upper[worst]
		}
	}
}
