package workload

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

func TestGammaStatistics(t *testing.T) {
	const n = 200_000
	tests := []struct {
		spec        string
		shape, scal float64
	}{
		{"gamma:shape=2,scale=400", 2, 400},
		{"gamma:mean=800,cv=1.5", 1 / 2.25, 800 * 2.25}, // shape < 1: the boosted sampler
		{"gamma:mean=5000,cv=0.1", 100, 50},
		{"gamma:scale=10,mean=50", 5, 10},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			xs, d := samples(t, tt.spec, n)
			wantMean := tt.shape * tt.scal
			if m := mean(xs); !within(m, wantMean, 0.02) {
				t.Errorf("sample mean %.1f, want %.1f", m, wantMean)
			}
			if !within(d.Mean(), wantMean, 1e-9) {
				t.Errorf("Mean() = %v, want %v", d.Mean(), wantMean)
			}
			for _, p := range []float64{0.5, 0.9, 0.99} {
				want := tt.scal * mathext.GammaIncRegInv(tt.shape, p)
				got := quantile(xs, p)
				// Rounding to whole tokens moves a small quantile by up to 0.5.
				if math.Abs(got-want) > 0.03*want+0.5 {
					t.Errorf("p%v = %.1f, want %.1f", 100*p, got, want)
				}
			}
		})
	}
}

func TestGammaClampedMean(t *testing.T) {
	for _, spec := range []string{"gamma:shape=2,scale=400,max=1000", "gamma:mean=800,cv=1.5,min=100,max=3000"} {
		xs, d := samples(t, spec, 200_000)
		if m := mean(xs); !within(d.Mean(), m, 0.01) {
			t.Errorf("%s: Mean() = %.1f, sample mean %.1f", spec, d.Mean(), m)
		}
	}
}

func TestGammaTinyAndHugeShape(t *testing.T) {
	for _, spec := range []string{"gamma:shape=0.01,scale=1e5", "gamma:shape=1e6,scale=0.001", "gamma:mean=1e9,cv=10"} {
		xs, d := samples(t, spec, 10_000)
		if xs[0] < 0 || xs[len(xs)-1] > MaxTokens {
			t.Errorf("%s: samples in [%v, %v]", spec, xs[0], xs[len(xs)-1])
		}
		if m := d.Mean(); math.IsNaN(m) || m < 0 || m > MaxTokens {
			t.Errorf("%s: Mean() = %v", spec, m)
		}
	}
}
