package workload

import (
	"math"
	"slices"
	"testing"
)

// TestCDFMatchesSamples: CDF is the distribution of the samples themselves,
// rounding, clamping and spikes included.
func TestCDFMatchesSamples(t *testing.T) {
	const n = 200_000
	for _, spec := range []string{
		"constant:7", "uniform:3..9", "uniform:0..100,min=20,max=60",
		"lognormal:p50=40,sigma=1,max=300", "lognormal:p50=400,p99=8000,min=5,max=4096,spike=0@0.3",
		"gamma:shape=0.7,scale=30", "gamma:mean=900,cv=1,spike=0@0.25,spike=4096@0.1,max=4096",
		"empirical:p0=0,p30=0,p60=10.5,p70=20,p100=20", "exponential:mean=5", "normal:mean=10,sd=8,max=25",
	} {
		t.Run(spec, func(t *testing.T) {
			xs, d := samples(t, spec, n)
			hi := xs[len(xs)-1]
			for _, x := range []float64{-1, 0, 0.5, 1, 2, 5, 10, 10.5, 11, 20, 59.9, 60, 299, 300, 1000, 4095, 4096, hi} {
				want := float64(countLE(xs, x)) / n
				got, ok := CDF(d, x)
				if !ok {
					t.Fatal("no CDF")
				}
				if math.Abs(got-want) > 0.004 {
					t.Errorf("CDF(%v) = %.4f, sample fraction %.4f", x, got, want)
				}
			}
		})
	}
	if _, ok := CDF(Constant(1), math.NaN()); ok {
		t.Error("CDF(NaN) is ok")
	}
}

func countLE(sorted []float64, x float64) int {
	i, found := slices.BinarySearch(sorted, math.Nextafter(x, math.Inf(1)))
	_ = found
	return i
}
