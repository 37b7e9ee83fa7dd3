package analysis

import (
	"math"
	randv1 "math/rand"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/quick"

	"github.com/thinkcap/thinkcap/internal/approx"
)

func TestQuantile(t *testing.T) {
	oneToTen := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	inf := math.Inf(1)
	// Expected values are numpy.percentile(x, 100*p) (method="linear"),
	// computed by hand: rank h = (n-1)p, x[⌊h⌋] + frac(h)·(x[⌊h⌋+1] - x[⌊h⌋]).
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"p90 of four", []float64{1, 2, 3, 4}, 0.9, 3.7},
		{"median of four", []float64{1, 2, 3, 4}, 0.5, 2.5},
		{"p25 of four", []float64{1, 2, 3, 4}, 0.25, 1.75},
		{"min", []float64{1, 2, 3, 4}, 0, 1},
		{"max", []float64{1, 2, 3, 4}, 1, 4},
		{"uneven gaps", []float64{15, 20, 35, 40, 50}, 0.4, 29},
		{"exact rank", []float64{15, 20, 35, 40, 50}, 0.5, 35},
		{"p90 of ten", oneToTen, 0.9, 9.1},
		{"p99 of ten", oneToTen, 0.99, 9.91},
		{"single value", []float64{7}, 0.99, 7},
		{"ties", []float64{2, 2, 2, 5}, 0.5, 2},
		{"negative", []float64{-3, -1}, 0.25, -2.5},
		{"p below 0 clamps", oneToTen, -0.5, 1},
		{"p above 1 clamps", oneToTen, 1.5, 10},
		{"empty", nil, 0.5, math.NaN()},
		{"NaN p", oneToTen, math.NaN(), math.NaN()},
		{"infinite max at p=1", []float64{0, inf}, 1, inf},
		{"finite min next to infinity", []float64{0, inf}, 0, 0},
		// b-a overflows; the weighted form does not.
		{"gap beyond MaxFloat64", []float64{-math.MaxFloat64, math.MaxFloat64}, 0.5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quantile(tt.sorted, tt.p); !approx.Equal(got, tt.want) {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	oneToHundred := make([]float64, 100)
	for i := range oneToHundred {
		oneToHundred[i] = float64(100 - i) // descending: Describe must sort
	}
	tests := []struct {
		name   string
		values []float64
		want   Stat
	}{
		{"nil", nil, Stat{}},
		{"empty", []float64{}, Stat{}},
		{"only NaN and Inf", []float64{math.NaN(), math.Inf(1), math.Inf(-1)}, Stat{}},
		{"one", []float64{0.25}, Stat{Mean: 0.25, P50: 0.25, P90: 0.25, P99: 0.25}},
		{"four unsorted", []float64{4, 1, 3, 2}, Stat{Mean: 2.5, P50: 2.5, P90: 3.7, P99: 3.97}},
		{"hundred", oneToHundred, Stat{Mean: 50.5, P50: 50.5, P90: 90.1, P99: 99.01}},
		{"non-finite dropped", []float64{math.NaN(), 3, math.Inf(1), 1}, Stat{Mean: 2, P50: 2, P90: 2.8, P99: 2.98}},
		// The sum overflows to +Inf; the mean must not.
		{"huge values", []float64{math.MaxFloat64, math.MaxFloat64}, Stat{
			Mean: math.MaxFloat64, P50: math.MaxFloat64, P90: math.MaxFloat64, P99: math.MaxFloat64}},
		// sum/n of three 0.1s is 0.10000000000000002: the mean is clamped.
		{"mean stays in range", []float64{0.1, 0.1, 0.1}, Stat{Mean: 0.1, P50: 0.1, P90: 0.1, P99: 0.1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.values)
			got := Describe(tt.values)
			if !approx.Equal(got.Mean, tt.want.Mean) || !approx.Equal(got.P50, tt.want.P50) ||
				!approx.Equal(got.P90, tt.want.P90) || !approx.Equal(got.P99, tt.want.P99) {
				t.Errorf("Describe(%v) = %+v, want %+v", in, got, tt.want)
			}
			if !slices.EqualFunc(in, tt.values, approx.Equal) {
				t.Errorf("Describe modified its input: %v, was %v", tt.values, in)
			}
		})
	}
	// Exact, not near: a mean above the maximum is the bug being guarded.
	if got := Describe([]float64{0.1, 0.1, 0.1}).Mean; got != 0.1 {
		t.Errorf("mean of three 0.1s = %v, want exactly 0.1", got)
	}
}

// checkOrdered reports the first broken invariant of Describe's output for
// values: min ≤ mean ≤ max and min ≤ p50 ≤ p90 ≤ p99 ≤ max.
func checkOrdered(t *testing.T, values []float64) bool {
	t.Helper()
	s := Describe(values)
	lo, hi := slices.Min(values), slices.Max(values)
	ok := lo <= s.Mean && s.Mean <= hi &&
		lo <= s.P50 && s.P50 <= s.P90 && s.P90 <= s.P99 && s.P99 <= hi
	if !ok {
		t.Errorf("Describe(%d values in [%v, %v]) = %+v: not ordered", len(values), lo, hi, s)
	}
	return ok
}

// TestDescribeOrderedSeeded checks the ordering invariants on the shapes
// thinkcap sees: uniform, exponential and long-tailed log-normal values,
// constant runs, and heavy ties.
func TestDescribeOrderedSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() float64{
		"uniform":     rng.Float64,
		"exponential": rng.ExpFloat64,
		"lognormal":   func() float64 { return math.Exp(6 + 1.5*rng.NormFloat64()) },
		"ties":        func() float64 { return float64(rng.IntN(3)) },
		"constant":    func() float64 { return 0.1 },
		"signed":      func() float64 { return 1e6 * rng.NormFloat64() },
	}
	for name, gen := range gens {
		for range 200 {
			values := make([]float64, 1+rng.IntN(300))
			for i := range values {
				values[i] = gen()
			}
			if !checkOrdered(t, values) {
				t.Fatalf("%s: invariant broken", name)
			}
		}
	}
}

// TestDescribeOrderedQuick lets testing/quick pick the values, which
// includes huge magnitudes whose sum overflows. Seeded, so a failure repeats.
func TestDescribeOrderedQuick(t *testing.T) {
	f := func(head float64, tail []float64) bool {
		return checkOrdered(t, append([]float64{head}, tail...))
	}
	cfg := &quick.Config{MaxCount: 2000, Rand: randv1.New(randv1.NewSource(1))}
	if err := quick.Check(f, cfg); err != nil {
		t.Error(err)
	}
}

// TestQuantileMonotone checks that a higher p never gives a lower quantile,
// the property that the clamp in Quantile protects against rounding.
func TestQuantileMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		values := make([]float64, 1+rng.IntN(50))
		for i := range values {
			values[i] = math.Exp(10 * rng.NormFloat64())
		}
		slices.Sort(values)
		prev := math.Inf(-1)
		for i := 0; i <= 1000; i++ {
			q := Quantile(values, float64(i)/1000)
			if q < prev {
				t.Fatalf("Quantile(p=%v) = %v < %v at the previous p", float64(i)/1000, q, prev)
			}
			prev = q
		}
	}
}
