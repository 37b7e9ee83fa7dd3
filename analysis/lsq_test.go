package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func lsqNear(t *testing.T, what string, got, want []float64, eps float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > eps*(1+math.Abs(want[i])) {
			t.Errorf("%s: x[%d] = %v, want %v (all %v)", what, i, got[i], want[i], got)
		}
	}
}

func unbounded(n int) []float64 {
	l := make([]float64, n)
	for i := range l {
		l[i] = math.Inf(-1)
	}
	return l
}

func allFree(n int) []bool {
	f := make([]bool, n)
	for i := range f {
		f[i] = true
	}
	return f
}

func TestLeastSquaresBoundedExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 20 {
		want := []float64{r.NormFloat64() * 10, r.NormFloat64(), r.NormFloat64() * 1e-3}
		a := make([][]float64, 50)
		b := make([]float64, 50)
		for i := range a {
			a[i] = []float64{1, r.Float64() * 100, r.Float64() * 1e4}
			for k := range want {
				b[i] += a[i][k] * want[k]
			}
		}
		x0 := []float64{5, 5, 5}
		x0Copy := append([]float64(nil), x0...)
		aCopy := append([]float64(nil), a[0]...)
		bCopy := append([]float64(nil), b...)
		got, err := LeastSquaresBounded(a, b, x0, unbounded(3), allFree(3))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		lsqNear(t, "exact", got, want, 1e-8)
		// A lower bound below the answer changes nothing.
		lower := []float64{want[0] - 1, want[1] - 1, want[2] - 1}
		got, err = LeastSquaresBounded(a, b, x0, lower, allFree(3))
		if err != nil {
			t.Fatal(err)
		}
		lsqNear(t, "inactive bounds", got, want, 1e-8)
		// The inputs are left alone.
		for i := range x0 {
			if x0[i] != x0Copy[i] || a[0][i] != aCopy[i] {
				t.Fatalf("inputs modified: x0 %v a[0] %v", x0, a[0])
			}
		}
		for i := range b {
			if b[i] != bCopy[i] {
				t.Fatal("b modified")
			}
		}
	}
}

func TestLeastSquaresBoundedNoisy(t *testing.T) {
	// An inconsistent system: the answer satisfies the normal equations
	// AᵀA x = Aᵀb, which the test solves by Cramer's rule.
	a := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}}
	b := []float64{1, 3, 2, 5, 4}
	// AᵀA = [[5, 10], [10, 30]], Aᵀb = [15, 38]: det 50,
	// x = ((15·30 − 10·38)/50, (5·38 − 10·15)/50) = (1.4, 0.8).
	got, err := LeastSquaresBounded(a, b, []float64{0, 0}, unbounded(2), allFree(2))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "noisy", got, []float64{1.4, 0.8}, 1e-12)
}

func TestLeastSquaresBoundedFixed(t *testing.T) {
	// b = 1·c0 + 5·c1 + 2·c2 exactly, but c1 is fixed at 3: the fit of
	// c0 and c2 is to b − 3·c1, whose least-squares answer the test
	// computes from the normal equations.
	a := [][]float64{
		{1, 2, 0},
		{1, 1, 1},
		{1, 0, 2},
		{1, 3, 3},
		{1, 1, 4},
	}
	truth := []float64{1, 5, 2}
	b := make([]float64, len(a))
	for i, row := range a {
		for k := range row {
			b[i] += row[k] * truth[k]
		}
	}
	const fixed = 3.0
	// Normal equations for columns 0 and 2 against r = b − 3·c1.
	var s00, s02, s22, r0, r2 float64
	for i, row := range a {
		r := b[i] - fixed*row[1]
		s00 += row[0] * row[0]
		s02 += row[0] * row[2]
		s22 += row[2] * row[2]
		r0 += row[0] * r
		r2 += row[2] * r
	}
	det := s00*s22 - s02*s02
	want := []float64{(r0*s22 - s02*r2) / det, fixed, (s00*r2 - s02*r0) / det}

	// The fixed column's lower bound is above x0: fixed columns are not
	// clamped either.
	got, err := LeastSquaresBounded(a, b, []float64{-7, fixed, 9}, []float64{math.Inf(-1), 100, math.Inf(-1)}, []bool{true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "fixed column", got, want, 1e-10)
	if got[1] != fixed {
		t.Errorf("fixed x[1] = %v, want exactly %v", got[1], fixed)
	}
	// Hand-checked: the answer differs from the truth (the fit absorbs
	// the fixed column's error), so the test would catch a fit that
	// ignores x0.
	if math.Abs(want[0]-truth[0]) < 0.1 && math.Abs(want[2]-truth[2]) < 0.1 {
		t.Fatalf("degenerate test: %v", want)
	}

	// Fixing the column at its true value recovers the rest exactly.
	got, err = LeastSquaresBounded(a, b, []float64{0, 5, 0}, unbounded(3), []bool{true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "fixed at truth", got, truth, 1e-10)

	// Nothing free: x0 back, whatever the rows.
	got, err = LeastSquaresBounded(nil, nil, []float64{1, 2, 3}, unbounded(3), make([]bool, 3))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "nothing free", got, []float64{1, 2, 3}, 0)

	// Two rows are enough for two free unknowns out of three.
	got, err = LeastSquaresBounded(a[:2], b[:2], []float64{0, 5, 0}, unbounded(3), []bool{true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "square", got, truth, 1e-10)
}

func TestLeastSquaresBoundedClamp(t *testing.T) {
	// Columns 1, u and s with u = (1,−1,1,−1), e = (1,1,−1,−1), s = −u + e
	// and b = 10 − 2u − 0.5s = (8, 11, 9, 12): the unconstrained optimum
	// is (10, −2, −0.5), both slopes below their bound 0. Only the most
	// violated, x1, is clamped; refitting 1 and s then gives
	// x2 = Σ s·b / Σ s² = 4/8 = 0.5 ≥ 0 and x0 = mean(b) = 10. Clamping
	// both at once would give (10, 0, 0), clamping without refitting
	// (10, 0, −0.5).
	a := [][]float64{
		{1, 1, 0},
		{1, -1, 2},
		{1, 1, -2},
		{1, -1, 0},
	}
	b := []float64{8, 11, 9, 12}
	got, err := LeastSquaresBounded(a, b, []float64{0, 0, 0}, unbounded(3), allFree(3))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "unconstrained", got, []float64{10, -2, -0.5}, 1e-12)

	lower := []float64{math.Inf(-1), 0, 0}
	got, err = LeastSquaresBounded(a, b, []float64{0, 0, 0}, lower, allFree(3))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "clamped", got, []float64{10, 0, 0.5}, 1e-12)

	// A nonzero bound: x1 ≥ −1 moves −1·u to the right-hand side:
	// b + u = (9, 10, 10, 11) fitted by 1 and s: x2 = (20 − 20)/8 = 0,
	// x0 = 10.
	lower = []float64{math.Inf(-1), -1, -5}
	got, err = LeastSquaresBounded(a, b, []float64{0, 0, 0}, lower, allFree(3))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "clamped at -1", got, []float64{10, -1, 0}, 1e-12)
	if got[1] != -1 {
		t.Errorf("clamped x[1] = %v, want exactly the bound", got[1])
	}

	// A simple line through (0,3), (1,2), (2,1), (3,0): slope −1, and with
	// the slope at least 0 the intercept refits to the mean, 1.5.
	line := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	got, err = LeastSquaresBounded(line, []float64{3, 2, 1, 0}, []float64{0, 0}, []float64{math.Inf(-1), 0}, allFree(2))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "line", got, []float64{1.5, 0}, 1e-12)

	// Every free column clamped: the bounds come back.
	got, err = LeastSquaresBounded(line, []float64{-3, -2, -1, 0}, []float64{9, 9}, []float64{1, 2}, allFree(2))
	if err != nil {
		t.Fatal(err)
	}
	// Unconstrained (−3, 1): x0 is clamped to 1 first, the refit slope
	// −10/14 is then below 2 and clamped too.
	lsqNear(t, "all clamped", got, []float64{1, 2}, 0)
}

// TestLeastSquaresBoxUpper: the line through (0,3), (1,2), (2,1), (3,0)
// with its slope at most −2: the slope stays at its upper bound and the
// intercept refits to mean(b) + 2·mean(x) = 1.5 + 3 = 4.5; with the
// intercept at most 2 as well the slope refits free, Σ x(b − 2)/Σ x² =
// −8/14, inside its box.
func TestLeastSquaresBoxUpper(t *testing.T) {
	line := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	b := []float64{3, 2, 1, 0}
	inf := math.Inf(1)
	got, err := LeastSquaresBox(line, b, []float64{0, 0}, []float64{-inf, -inf}, []float64{inf, -2}, allFree(2))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "slope at its upper bound", got, []float64{4.5, -2}, 1e-12)
	got, err = LeastSquaresBox(line, b, []float64{0, 0}, []float64{-inf, -inf}, []float64{2, inf}, allFree(2))
	if err != nil {
		t.Fatal(err)
	}
	lsqNear(t, "intercept at its upper bound", got, []float64{2, -8.0 / 14}, 1e-12)
}

func TestLeastSquaresBoundedBoundsProperty(t *testing.T) {
	// Random problems with random bounds: the answer never violates a
	// bound of a free column, and a column left above its bound is not at
	// a point the residual could improve on alone (the partial derivative
	// of the residual vanishes there).
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := 2 + r.IntN(4)
		rows := n + 1 + r.IntN(20)
		a := make([][]float64, rows)
		b := make([]float64, rows)
		for i := range a {
			a[i] = make([]float64, n)
			for k := range a[i] {
				a[i][k] = r.NormFloat64()
			}
			b[i] = r.NormFloat64() * 3
		}
		lower := make([]float64, n)
		for k := range lower {
			lower[k] = r.NormFloat64() - 0.5
		}
		x, err := LeastSquaresBounded(a, b, make([]float64, n), lower, allFree(n))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for k := range x {
			if x[k] < lower[k]-1e-12 {
				t.Fatalf("trial %d: x[%d] = %v below %v", trial, k, x[k], lower[k])
			}
			if x[k] == lower[k] {
				continue
			}
			var grad float64
			for i, row := range a {
				res := b[i]
				for j := range row {
					res -= row[j] * x[j]
				}
				grad += row[k] * res
			}
			if math.Abs(grad) > 1e-8*float64(rows) {
				t.Fatalf("trial %d: x[%d] = %v above its bound but gradient %v", trial, k, x[k], grad)
			}
		}
	}
}

func TestLeastSquaresBoundedErrors(t *testing.T) {
	good := [][]float64{{1, 0}, {0, 1}, {1, 1}}
	gb := []float64{1, 2, 3}
	for _, c := range []struct {
		name  string
		a     [][]float64
		b     []float64
		x0    []float64
		lower []float64
		free  []bool
		want  string
	}{
		{"too few rows", [][]float64{{1, 2, 3}, {4, 5, 6}}, []float64{1, 2}, make([]float64, 3), unbounded(3), allFree(3), "2 rows cannot fit 3"},
		{"no rows", nil, nil, make([]float64, 2), unbounded(2), allFree(2), "0 rows"},
		{"lower length", good, gb, make([]float64, 2), unbounded(3), allFree(2), "length"},
		{"free length", good, gb, make([]float64, 2), unbounded(2), allFree(1), "length"},
		{"short row", [][]float64{{1, 0}, {0}, {1, 1}}, gb, make([]float64, 2), unbounded(2), allFree(2), "row 1"},
		{"long row", [][]float64{{1, 0}, {0, 1}, {1, 1, 1}}, gb, make([]float64, 2), unbounded(2), allFree(2), "row 2"},
		{"short b", good, gb[:2], make([]float64, 2), unbounded(2), allFree(2), "b"},
		{"long b", good, append(gb, 4), make([]float64, 2), unbounded(2), allFree(2), "b"},
		{"duplicate columns", [][]float64{{1, 1, 2}, {2, 2, 1}, {3, 3, 5}, {4, 4, 0}}, []float64{1, 2, 3, 4}, make([]float64, 3), unbounded(3), allFree(3), "least squares"},
		{"zero column", [][]float64{{1, 0}, {2, 0}, {3, 0}}, gb, make([]float64, 2), unbounded(2), allFree(2), "least squares"},
	} {
		var x []float64
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", c.name, p)
				}
			}()
			x, err = LeastSquaresBounded(c.a, c.b, c.x0, c.lower, c.free)
		}()
		if err == nil {
			t.Errorf("%s: no error, x = %v", c.name, x)
			continue
		}
		if x != nil {
			t.Errorf("%s: x %v with error %v", c.name, x, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q lacks %q", c.name, err, c.want)
		}
	}
	// A duplicate column that is fixed is no longer singular.
	x, err := LeastSquaresBounded([][]float64{{1, 1, 2}, {2, 2, 1}, {3, 3, 5}, {4, 4, 0}}, []float64{4, 5, 11, 8},
		[]float64{0, 1, 0}, unbounded(3), []bool{true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	// b = 1·c0 + 1·c1 + 1·c2 with c0 = c1: x0 = 1 after moving c1 over.
	lsqNear(t, "fixed duplicate", x, []float64{1, 1, 1}, 1e-12)
}
