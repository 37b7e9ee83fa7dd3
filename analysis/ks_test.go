package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/internal/approx"
	"gonum.org/v1/gonum/stat"
)

// TestKolmogorovSurvival checks P(K > λ) against the classical table of
// critical values (λ = 1.2238, 1.3581, 1.6276 for α = 0.10, 0.05, 0.01) and
// against both series summed to 200 terms in float64 (which is what scipy's
// kstwobign.sf gives: 0.9639452436648751 at 0.5).
func TestKolmogorovSurvival(t *testing.T) {
	tests := []struct {
		lambda, want, tol float64
	}{
		{0, 1, 0},
		{-1, 1, 0},
		{0.3, 0.9999906941986655, 1e-12},
		{0.5, 0.9639452436648751, 1e-12},
		{1.0, 0.26999967167735456, 1e-12},
		{1.1799, 0.12351204971188676, 1e-12},
		{1.18, 0.1234538094297657, 1e-12},
		{1.2238, 0.10, 1e-4},
		{1.3581, 0.05, 1e-5},
		{1.6276, 0.01, 1e-5},
		{2.0, 0.0006709252557796953, 1e-15},
		{3.0, 3.045995948942526e-08, 1e-15},
		{40, 0, 0},
	}
	for _, tt := range tests {
		if got := KolmogorovSurvival(tt.lambda); math.Abs(got-tt.want) > tt.tol {
			t.Errorf("KolmogorovSurvival(%v) = %v, want %v ± %v", tt.lambda, got, tt.want, tt.tol)
		}
	}
	if !math.IsNaN(KolmogorovSurvival(math.NaN())) {
		t.Error("NaN λ did not give NaN")
	}
	// Monotone and within [0, 1], across the switch between the series.
	prev := 1.0
	for l := 0.0; l < 5; l += 0.001 {
		q := KolmogorovSurvival(l)
		if q > prev+1e-15 || q < 0 || q > 1 {
			t.Fatalf("P(K > %v) = %v after %v", l, q, prev)
		}
		prev = q
	}
}

func TestKSTwoSample(t *testing.T) {
	t.Run("identical samples", func(t *testing.T) {
		x := []float64{5, 1, 3, 3, 9}
		r, err := KSTwoSample(x, slices.Clone(x))
		if err != nil || r.D != 0 || r.PValue != 1 {
			t.Errorf("got %+v, %v; want D=0, p=1", r, err)
		}
	})
	t.Run("hand computed", func(t *testing.T) {
		// ECDFs of x = 1 2 3 4 and y = 3 4 5 6 7 at 1, 2, 3, 4, 5:
		// x: .25 .5 .75 1 1; y: 0 0 .2 .4 .6; the gap peaks at 4: 1 - .4.
		// nₑ = 4·5/9, λ = √(20/9)·0.6 = 0.8944272, P(K > λ) = 0.4004710362.
		r, err := KSTwoSample([]float64{4, 3, 2, 1}, []float64{7, 6, 5, 4, 3})
		if err != nil {
			t.Fatal(err)
		}
		if !approx.Equal(r.D, 0.6) || math.Abs(r.PValue-0.4004710362084578) > 1e-12 {
			t.Errorf("got %+v, want D=0.6, p=0.40047", r)
		}
	})
	t.Run("ties across samples", func(t *testing.T) {
		// Both ECDFs jump at 2: x to 1, y to 2/3, so D = 1/3 (measured after
		// all copies of the tie, never between them).
		r, _ := KSTwoSample([]float64{2, 2}, []float64{1, 2, 3})
		if !approx.Equal(r.D, 1.0/3) {
			t.Errorf("D = %v, want 1/3", r.D)
		}
	})
	t.Run("shifted normals", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y, z := make([]float64, 1000), make([]float64, 1000), make([]float64, 1000)
		for i := range x {
			x[i], y[i], z[i] = rng.NormFloat64(), rng.NormFloat64()+0.5, rng.NormFloat64()
		}
		shifted, _ := KSTwoSample(x, y)
		// The population D of N(0,1) against N(0.5,1) is 2Φ(0.25)-1 = 0.197.
		if shifted.D < 0.15 || shifted.D > 0.25 || shifted.PValue > 1e-10 {
			t.Errorf("shifted: %+v, want D ≈ 0.2 and a tiny p", shifted)
		}
		same, _ := KSTwoSample(x, z)
		if same.PValue < 0.01 {
			t.Errorf("same distribution: %+v, want a large p", same)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, c := range [][2][]float64{{nil, {1}}, {{1}, {}}, {{math.NaN()}, {1}}} {
			if _, err := KSTwoSample(c[0], c[1]); err == nil {
				t.Errorf("KSTwoSample(%v, %v) did not fail", c[0], c[1])
			}
		}
	})
}

// TestKSStatisticMatchesGonum compares D with gonum's implementation on
// random samples with many ties (small integers, like token counts).
func TestKSStatisticMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for range 300 {
		x, y := make([]float64, 1+rng.IntN(60)), make([]float64, 1+rng.IntN(60))
		for i := range x {
			x[i] = float64(rng.IntN(20))
		}
		for i := range y {
			y[i] = float64(rng.IntN(25))
		}
		r, err := KSTwoSample(x, y)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(x)
		slices.Sort(y)
		if want := stat.KolmogorovSmirnov(x, nil, y, nil); !approx.Equal(r.D, want) {
			t.Fatalf("D = %v, gonum says %v\nx=%v\ny=%v", r.D, want, x, y)
		}
		ix, iy := toInt32(x), toInt32(y)
		if d := ksStatistic(ix, iy); !approx.Equal(d, r.D) {
			t.Fatalf("int32 D = %v, float64 D = %v", d, r.D)
		}
	}
}

// TestKSStatisticExact: D is the largest |i/n − j/m|, each fraction
// rounded once, so disjoint samples give exactly 1 and two samples a third
// apart 1 − 2/3 as float64 computes it (0.33333333333333337, which the
// drift golden prints). gonum's statistic adds 1/n once per value and drifts
// in the last digits (0.9999999999999996 for 24 and 24 disjoint values,
// 1.0000000000000007 for 100 and 1000, 0.33333333333333304 for the golden's
// third), which `drift -o json` would print: why ks.go keeps its own walk.
func TestKSStatisticExact(t *testing.T) {
	for _, tt := range []struct {
		n, m  int
		shift float64 // y is x's values moved up by shift
		want  float64
	}{
		{24, 24, 1e6, 1},
		{100, 1000, 1e6, 1},
		{49, 51, 1e6, 1},
		{3, 3, 1, 0.33333333333333337},   // 1 − 2/3 in float64
		{24, 24, 8, 0.33333333333333337}, // 1 − 16/24
	} {
		x, y := make([]float64, tt.n), make([]float64, tt.m)
		for i := range x {
			x[i] = float64(i)
		}
		for i := range y {
			y[i] = float64(i) + tt.shift
		}
		r, err := KSTwoSample(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if r.D != tt.want {
			t.Errorf("n=%d m=%d shift %v: D = %v, want exactly %v", tt.n, tt.m, tt.shift, r.D, tt.want)
		}
	}
}

func toInt32(v []float64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}
