package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseDistCanonical(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"400", "constant:400"},
		{" 0 ", "constant:0"},
		{"12.0", "constant:12"},
		{"constant:7", "constant:7"},
		{"Constant:7,max=5", "constant:5"},
		{"constant:7,min=9", "constant:9"},
		{"uniform:10..20", "uniform:10..20"},
		{"uniform: 10 .. 20 , max=15", "uniform:10..20,max=15"},
		{"uniform:5..5", "uniform:5..5"},
		{"lognormal:p50=400,p99=8000", "lognormal:p50=400,p99=8000"},
		{"lognormal:p99=8000,median=400", "lognormal:p50=400,p99=8000"},
		{"LogNormal:median=1500,sigma=1.2", "lognormal:p50=1500,sigma=1.2"},
		{"lognormal:mean=900,sigma=0.8", "lognormal:mean=900,sigma=0.8"},
		{"lognormal:sigma=1,p90=100,max=32768,min=1", "lognormal:sigma=1,p90=100,min=1,max=32768"},
		{"lognormal:mean=900,p99=8000", "lognormal:mean=900,p99=8000"},
		{"exponential:mean=500", "exponential:mean=500"},
		{"exponential:mean=2.5e3,max=4096", "exponential:mean=2500,max=4096"},
		{"normal:mean=500,sd=100", "normal:mean=500,sd=100"},
		{"normal:sd=100,mean=0,min=1", "normal:mean=0,sd=100,min=1"},
		{"gamma:shape=2,scale=400", "gamma:shape=2,scale=400"},
		{"Gamma:cv=1.5,mean=800,max=4096", "gamma:mean=800,cv=1.5,max=4096"},
		{"gamma:scale=10,mean=50", "gamma:scale=10,mean=50"},
		{"empirical:p0=10,p50=400,p100=8000", "empirical:p0=10,p50=400,p100=8000"},
		{"empirical:p100=9,median=5,p0=1,p99.9=8.5,max=7", "empirical:p0=1,p50=5,p99.9=8.5,p100=9,max=7"},
		{"empirical:p0=0,p1e1=0,p100=3", "empirical:p0=0,p10=0,p100=3"},
		{"constant:400,spike=0@0.3", "constant:400,spike=0@0.3"},
		{"lognormal:spike=4096@0.1,p50=400,p99=8000,max=4096,spike=0@0.3",
			"lognormal:p50=400,p99=8000,max=4096,spike=0@0.3,spike=4096@0.1"},
		{"uniform:spike = 7 @ 0.5, 1..3", "uniform:1..3,spike=7@0.5"},
		{"gamma:mean=900,cv=1,spike=0@0.25", "gamma:mean=900,cv=1,spike=0@0.25"},
		{"empirical:p0=1,p100=2,spike=5@0.01", "empirical:p0=1,p100=2,spike=5@0.01"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			d, err := ParseDist(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			again, err := ParseDist(d.String())
			if err != nil || again.String() != d.String() {
				t.Errorf("round trip: %v, %v", again, err)
			}
		})
	}
}

func TestParseDistErrors(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"", "empty spec (valid kinds: constant, uniform, lognormal, exponential, normal, gamma, empirical)"},
		{"weibull:k=2", `unknown kind "weibull" (valid kinds: constant, uniform, lognormal, exponential, normal, gamma, empirical)`},
		{"lots", `unknown kind "lots"`},
		{"-5", "value: want an integer in [0, 1000000000], got -5"},
		{"1.5", "want an integer"},
		{"nan", "value: want a finite number"},
		{"constant", "constant needs parameters"},
		{"lognormal:", "lognormal needs parameters"},
		{"constant:x", `value: want a finite number, got "x"`},
		{"uniform:10", "uniform needs a range A..B"},
		{"uniform:20..10", "range 20..10 is empty"},
		{"uniform:a..10", "range: want a finite number"},
		{"uniform:1..2,3..4", `parameter "3..4" is not key=value`},
		{"uniform:1..2,,max=3", "empty parameter"},
		{"lognormal:p50=400", "lognormal needs exactly two of p50 (median), mean, sigma, p90, p99, got 1"},
		{"lognormal:p50=400,p90=800,p99=900", "got 3"},
		{"lognormal:p50=400,median=500", "parameter p50 given twice"},
		{"lognormal:p50=400,p99=300", "p99 (300) must be above p50 (400)"},
		{"lognormal:p50=0,p99=300", "p50: want a number in (0, 1e+09], got 0"},
		{"lognormal:p50=400,sigma=0", "sigma: want a number in (0, 10]"},
		{"lognormal:p50=400,sigma=11", "sigma: want a number in (0, 10]"},
		{"lognormal:mean=400,p50=500", "mean (400) must be above p50 (500)"},
		{"lognormal:mean=10,p99=1e8", "no lognormal has mean 10 and p99 1e+08"},
		{"lognormal:p50=400,p99=inf", "p99: want a finite number"},
		{"lognormal:p50=400,p99=8000,k=1", `unknown parameter "k" for lognormal (valid: p50, mean, sigma, p90, p99, min, max)`},
		{"lognormal:400,8000", `parameter "8000" is not key=value`},
		{"lognormal:400", "lognormal takes key=value parameters"},
		{"exponential:rate=2", `unknown parameter "rate" for exponential (valid: mean, min, max)`},
		{"exponential:max=10", "exponential needs mean"},
		{"exponential:mean=-1", "mean: want a number in (0, 1e+09]"},
		{"normal:mean=100", "normal needs mean and sd"},
		{"normal:mean=-100,sd=5", "mean: want a number in [0, 1000000000]"},
		{"normal:mean=100,sd=0", "sd: want a number in (0, 1e+09]"},
		{"uniform:1..9,min=5,max=3", "min (5) is above max (3)"},
		{"uniform:1..9,max=3.5", "max: want an integer"},
		{"uniform:1..9,min=-1", "min: want an integer"},
		{"gamma:shape=2", "gamma needs exactly two of shape, scale, mean, cv, got 1"},
		{"gamma:shape=2,cv=0.7", "shape and cv both set the shape"},
		{"gamma:shape=0,scale=1", "shape: want a number in (0, 1e+06]"},
		{"gamma:mean=100,cv=11", "cv: want a number in (0, 10]"},
		{"gamma:mean=100,scale=1e9", "the parameters give shape 1e-07"},
		{"gamma:shape=1e6,scale=1e6", "the parameters give mean 1e+12"},
		{"gamma:k=2", `unknown parameter "k" for gamma (valid: shape, scale, mean, cv, min, max)`},
		{"empirical:p0=1,p50=2", "empirical needs p0 and p100"},
		{"empirical:p10=1,p100=2", "empirical needs p0 and p100"},
		{"empirical:p100=1", "empirical needs p0 and p100"},
		{"empirical:p0=1,p50=3,p100=2", "p100 (2) is below p50 (3): values must not decrease"},
		{"empirical:p0=1,p10=2,p10.0=2,p100=3", "percentile 10 given twice"},
		{"empirical:p0=1,p101=2,p100=3", `unknown parameter "p101" for empirical`},
		{"empirical:p0=1,q5=2,p100=3", `unknown parameter "q5"`},
		{"empirical:p0=-1,p100=3", "p0: want a number in [0, 1000000000]"},
		{"empirical:p0=1,p100=3,min=4,max=2", "min (4) is above max (2)"},
		{"400,spike=0@0.3", `unknown kind "400,spike=0@0.3"`},
		{"constant:spike=0@0.3", "constant needs parameters"},
		{"lognormal:p50=400,p99=8000,spike=0", "spike: want VALUE@MASS"},
		{"lognormal:p50=400,p99=8000,spike=0@1", "spike mass: want a probability in (0, 1), got 1"},
		{"lognormal:p50=400,p99=8000,spike=0@0", "spike mass: want a probability in (0, 1), got 0"},
		{"lognormal:p50=400,p99=8000,spike=1.5@0.1", "spike value: want an integer"},
		{"lognormal:p50=400,p99=8000,spike=x@0.1", "spike value: want a finite number"},
		{"lognormal:p50=400,p99=8000,spike=0@nan", "spike mass: want a finite number"},
		{"lognormal:p50=400,p99=8000,spike=0@0.6,spike=9@0.4", "spike masses add up to 1: want less than 1"},
		{"lognormal:p50=400,p99=8000,spike=0@0.1,spike=0@0.2", "spike at 0 given twice"},
		{"lognormal:p50=400,,spike=0@0.1", "empty parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			d, err := ParseDist(tt.spec)
			if err == nil {
				t.Fatalf("no error; got %v", d)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not contain %q", msg, tt.want)
			}
			if !strings.HasPrefix(msg, "distribution ") || !strings.Contains(msg, tt.spec) {
				t.Errorf("error %q does not show the spec", msg)
			}
		})
	}
}

// samples draws n samples of d from a fixed seed, sorted.
func samples(t *testing.T, spec string, n int) ([]float64, Dist) {
	t.Helper()
	d, err := ParseDist(spec)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	for i := range xs {
		x := d.Sample(r)
		if x < 0 {
			t.Fatalf("negative sample %d", x)
		}
		xs[i] = float64(x)
	}
	slices.Sort(xs)
	return xs, d
}

// quantile is the empirical p-quantile of sorted xs.
func quantile(xs []float64, p float64) float64 { return xs[int(p*float64(len(xs)-1))] }

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func within(got, want, relTol float64) bool { return math.Abs(got-want) <= relTol*math.Abs(want) }

func TestDistStatistics(t *testing.T) {
	const n = 200_000
	tests := []struct {
		spec   string
		checks map[string]float64 // "p50", "p90", "p99", "mean" → expected
		tol    float64
	}{
		{"lognormal:p50=400,p99=8000", map[string]float64{"p50": 400, "p99": 8000}, 0.03},
		{"lognormal:median=1500,sigma=1.2", map[string]float64{"p50": 1500, "p90": 1500 * math.Exp(1.2*z90)}, 0.03},
		{"lognormal:mean=900,sigma=0.8", map[string]float64{"mean": 900}, 0.02},
		{"lognormal:p90=1000,p99=3000", map[string]float64{"p90": 1000, "p99": 3000}, 0.03},
		{"lognormal:mean=900,p99=8000", map[string]float64{"mean": 900, "p99": 8000}, 0.05},
		{"lognormal:mean=900,p50=500", map[string]float64{"mean": 900, "p50": 500}, 0.03},
		{"exponential:mean=500", map[string]float64{"mean": 500, "p50": 500 * math.Ln2}, 0.02},
		{"normal:mean=1000,sd=100", map[string]float64{"mean": 1000, "p90": 1000 + 100*z90}, 0.01},
		{"uniform:100..200", map[string]float64{"mean": 150, "p50": 150}, 0.01},
		{"constant:42", map[string]float64{"mean": 42, "p99": 42}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			xs, d := samples(t, tt.spec, n)
			for k, want := range tt.checks {
				var got float64
				switch k {
				case "mean":
					got = mean(xs)
				case "p50":
					got = quantile(xs, 0.5)
				case "p90":
					got = quantile(xs, 0.9)
				case "p99":
					got = quantile(xs, 0.99)
				}
				if !within(got, want, tt.tol) {
					t.Errorf("%s = %.1f, want %.1f ± %.0f%%", k, got, want, tt.tol*100)
				}
			}
			// Mean() agrees with the samples (rounding moves it by < 0.5).
			if m := mean(xs); !within(d.Mean(), m, 0.02) {
				t.Errorf("Mean() = %.1f, sample mean %.1f", d.Mean(), m)
			}
		})
	}
}

func TestDistClampingMakesCapSpike(t *testing.T) {
	// A thinking budget of 4096 over p50=400,p99=8000: the tail's mass
	// (P(X > 4096) = 1 − Φ(ln(4096/400)/σ)) piles up at the cap.
	const n = 200_000
	xs, d := samples(t, "lognormal:p50=400,p99=8000,max=4096", n)
	atCap := 0
	for _, x := range xs {
		if x > 4096 {
			t.Fatalf("sample %v above max", x)
		}
		if x == 4096 {
			atCap++
		}
	}
	sigma := math.Log(8000.0/400) / z99
	want := 1 - stdNormalCDF(math.Log(4096.0/400)/sigma)
	if got := float64(atCap) / n; !within(got, want, 0.05) {
		t.Errorf("mass at cap %.4f, want %.4f", got, want)
	}
	if m := mean(xs); !within(d.Mean(), m, 0.01) {
		t.Errorf("Mean() = %.1f, sample mean %.1f", d.Mean(), m)
	}

	// min lifts the bottom the same way.
	xs, d = samples(t, "exponential:mean=100,min=50,max=300", n)
	if xs[0] != 50 || xs[len(xs)-1] != 300 {
		t.Errorf("range [%v, %v], want [50, 300]", xs[0], xs[len(xs)-1])
	}
	if m := mean(xs); !within(d.Mean(), m, 0.01) {
		t.Errorf("Mean() = %.1f, sample mean %.1f", d.Mean(), m)
	}
	for _, spec := range []string{"uniform:0..100,min=20,max=60", "normal:mean=10,sd=20,max=30"} {
		xs, d = samples(t, spec, n)
		if m := mean(xs); !within(d.Mean(), m, 0.01) {
			t.Errorf("%s: Mean() = %.2f, sample mean %.2f", spec, d.Mean(), m)
		}
	}
}

func TestDistNeverNegativeOrHuge(t *testing.T) {
	for _, spec := range []string{
		"normal:mean=0,sd=1000",
		"lognormal:p50=1e9,sigma=10",
		"lognormal:p50=1e-300,sigma=10",
		"exponential:mean=1e9",
	} {
		xs, d := samples(t, spec, 10_000)
		if xs[0] < 0 || xs[len(xs)-1] > MaxTokens {
			t.Errorf("%s: samples in [%v, %v]", spec, xs[0], xs[len(xs)-1])
		}
		if m := d.Mean(); math.IsNaN(m) || m < 0 || m > MaxTokens {
			t.Errorf("%s: Mean() = %v", spec, m)
		}
	}
}
