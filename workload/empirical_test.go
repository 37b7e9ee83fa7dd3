package workload

import (
	"math"
	"testing"
)

func TestEmpiricalStatistics(t *testing.T) {
	const n = 200_000
	spec := "empirical:p0=10,p25=100,p50=400,p90=2000,p99=8000,p100=12000"
	xs, d := samples(t, spec, n)
	for _, c := range []struct{ p, want float64 }{
		{0.25, 100}, {0.5, 400}, {0.9, 2000}, {0.99, 8000}, {0.7, 400 + (70-50)/(90-50.0)*1600},
	} {
		if got := quantile(xs, c.p); !within(got, c.want, 0.02) {
			t.Errorf("p%v = %v, want %v", 100*c.p, got, c.want)
		}
	}
	if xs[0] < 10 || xs[len(xs)-1] > 12000 {
		t.Errorf("samples in [%v, %v], want within [10, 12000]", xs[0], xs[len(xs)-1])
	}
	// The mean of a piecewise-uniform table: each segment's mass times its
	// midpoint.
	want := 0.25*55 + 0.25*250 + 0.40*1200 + 0.09*5000 + 0.01*10000
	if !within(d.Mean(), want, 1e-12) {
		t.Errorf("Mean() = %v, want %v", d.Mean(), want)
	}
	if m := mean(xs); !within(m, want, 0.01) {
		t.Errorf("sample mean %v, want %v", m, want)
	}
}

// TestEmpiricalPointMass: two equal values make a point mass, which the CDF,
// the mean and the sampler all see.
func TestEmpiricalPointMass(t *testing.T) {
	const n = 200_000
	xs, d := samples(t, "empirical:p0=0,p30=0,p60=100,p70=4096,p100=4096", n)
	zeros, caps := 0, 0
	for _, x := range xs {
		switch x {
		case 0:
			zeros++
		case 4096:
			caps++
		}
	}
	// P(0) = 0.30 plus the sliver of [0, 100] that rounds to 0.
	if got := float64(zeros) / n; math.Abs(got-0.30-0.3*0.5/100) > 0.005 {
		t.Errorf("mass at 0 = %.4f, want 0.30", got)
	}
	if got := float64(caps) / n; math.Abs(got-0.30) > 0.005 {
		t.Errorf("mass at 4096 = %.4f, want 0.30", got)
	}
	e := d.(*empiricalDist)
	for _, c := range []struct{ x, want float64 }{
		{-1, 0}, {0, 0.3}, {50, 0.45}, {100, 0.6}, {4095, 0.7 - 0.1/3996}, {4096, 1}, {5000, 1},
	} {
		if got := e.cdf(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("cdf(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	want := 0.3*50 + 0.1*2098 + 0.3*4096
	if !within(d.Mean(), want, 1e-12) {
		t.Errorf("Mean() = %v, want %v", d.Mean(), want)
	}
	// Clamping below the point mass at 4096 moves it to the cap.
	_, c := samples(t, "empirical:p0=0,p30=0,p60=100,p70=4096,p100=4096,min=10,max=1000", 10)
	wantC := 0.3*10 + (0.3*0.1*10 + 0.3*0.9*55) + 0.1*(900.0/3996*550+3096.0/3996*1000) + 0.3*1000
	if !within(c.Mean(), wantC, 1e-9) {
		t.Errorf("clamped Mean() = %v, want %v", c.Mean(), wantC)
	}
}
