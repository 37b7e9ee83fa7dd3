package workload

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSpikeMasses(t *testing.T) {
	const n = 200_000
	tests := []struct {
		spec  string
		body  string
		atoms map[float64]float64 // value → mass (body's own mass there excluded)
	}{
		{"lognormal:p50=400,p99=8000,max=4096,spike=4096@0.1", "lognormal:p50=400,p99=8000,max=4096", map[float64]float64{4096: 0.1}},
		{"gamma:mean=900,cv=1,spike=0@0.3,spike=4096@0.1", "gamma:mean=900,cv=1", map[float64]float64{0: 0.3, 4096: 0.1}},
		{"constant:7,spike=0@0.5", "constant:7", map[float64]float64{0: 0.5}},
		{"empirical:p0=10,p100=20,spike=1000@0.05", "empirical:p0=10,p100=20", map[float64]float64{1000: 0.05}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			xs, d := samples(t, tt.spec, n)
			body, err := ParseDist(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[float64]int{}
			for _, x := range xs {
				counts[x]++
			}
			total := 0.0
			for v, m := range tt.atoms {
				total += m
				// The body adds its own mass at v (the clamp puts the tail
				// at 4096): P(v) = m + (1 − Σm)·P_body(v), estimated below.
				got := float64(counts[v]) / n
				if got < m-0.005 {
					t.Errorf("mass at %v = %.4f, want at least %v", v, got, m)
				}
			}
			// The mean is exact: spikes plus the body's share.
			want := (1 - total) * body.Mean()
			for v, m := range tt.atoms {
				want += v * m
			}
			if !within(d.Mean(), want, 1e-12) {
				t.Errorf("Mean() = %v, want %v", d.Mean(), want)
			}
			if m := mean(xs); !within(m, d.Mean(), 0.02) {
				t.Errorf("sample mean %.1f, Mean() %.1f", m, d.Mean())
			}
		})
	}
	// Exact masses where the body cannot reach the spikes.
	xs, _ := samples(t, "uniform:100..200,spike=0@0.3,spike=4096@0.1", n)
	var zero, cap_ int
	for _, x := range xs {
		switch x {
		case 0:
			zero++
		case 4096:
			cap_++
		}
	}
	if z, c := float64(zero)/n, float64(cap_)/n; math.Abs(z-0.3) > 0.004 || math.Abs(c-0.1) > 0.003 {
		t.Errorf("masses at 0 and 4096 = %.4f, %.4f; want 0.3, 0.1", z, c)
	}
}

// TestDistDeterministic: the same seed gives the same samples, for every kind.
func TestDistDeterministic(t *testing.T) {
	for _, spec := range []string{
		"gamma:shape=0.5,scale=100", "gamma:shape=3,scale=100", "empirical:p0=1,p50=10,p100=100",
		"lognormal:p50=400,p99=8000,spike=0@0.3", "uniform:1..10,spike=3@0.2,spike=4@0.2",
	} {
		d, err := ParseDist(spec)
		if err != nil {
			t.Fatal(err)
		}
		a, b := rand.New(rand.NewPCG(7, 8)), rand.New(rand.NewPCG(7, 8))
		for i := range 1000 {
			if x, y := d.Sample(a), d.Sample(b); x != y {
				t.Fatalf("%s: draw %d differs: %d vs %d", spec, i, x, y)
			}
		}
	}
}
