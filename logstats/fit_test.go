package logstats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/workload"
)

// draw samples n token counts from a workload spec with a fixed seed.
func draw(t testing.TB, spec string, n int, seed uint64) []float64 {
	t.Helper()
	d, err := workload.ParseDist(spec)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 99))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(d.Sample(r))
	}
	return xs
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// TestFitRecoversFamilies: on 50k samples of a known lognormal or gamma, Fit
// picks that family and recovers its parameters within a few per cent.
func TestFitRecoversFamilies(t *testing.T) {
	tests := []struct {
		spec   string
		family string
		params map[string]float64
	}{
		{"lognormal:p50=400,sigma=1.2", FamilyLognormal, map[string]float64{"p50": 400, "sigma": 1.2}},
		{"lognormal:p50=1500,sigma=0.6", FamilyLognormal, map[string]float64{"p50": 1500, "sigma": 0.6}},
		{"gamma:shape=2.5,scale=300", FamilyGamma, map[string]float64{"shape": 2.5, "scale": 300}},
		{"gamma:shape=0.8,scale=2000", FamilyGamma, map[string]float64{"shape": 0.8, "scale": 2000}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			xs := draw(t, tt.spec, 50_000, 1)
			res, err := Fit(xs, FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Family != tt.family {
				t.Errorf("family %s, want %s; candidates %+v", res.Family, tt.family, res.Candidates)
			}
			var fitted map[string]float64
			for _, c := range res.Candidates {
				if c.Family == tt.family {
					fitted = c.Params
				}
			}
			for k, want := range tt.params {
				got := fitted[k]
				if e := relErr(got, want); e > 0.03 {
					t.Errorf("%s = %v, want %v (%.1f%% off)", k, got, want, 100*e)
				}
				t.Logf("%s = %.4g (true %g, %.2f%% off)", k, got, want, 100*relErr(got, want))
			}
			if len(res.Spikes) != 0 {
				t.Errorf("spikes %+v in a smooth sample", res.Spikes)
			}
			if res.KS > 0.01 {
				t.Errorf("KS %v of the true family on 50k samples", res.KS)
			}
			checkSpec(t, res)
		})
	}
}

// checkSpec checks that res.Spec is canonical and describes the sample
// sizes it claims.
func checkSpec(t *testing.T, res FitResult) {
	t.Helper()
	d, err := workload.ParseDist(res.Spec)
	if err != nil {
		t.Fatalf("spec %q: %v", res.Spec, err)
	}
	if d.String() != res.Spec {
		t.Errorf("spec %q is not canonical: %q", res.Spec, d.String())
	}
	if res.BodyN > res.N || res.BodyN < 1 {
		t.Errorf("n %d, body n %d", res.N, res.BodyN)
	}
	for i := 1; i < len(res.Candidates); i++ {
		if res.Candidates[i].KS < res.Candidates[i-1].KS {
			t.Errorf("candidates not best first: %+v", res.Candidates)
		}
	}
}

// cappedSample is n values: capMass of them exactly at capV, zeroMass at 0,
// the rest from body drawn below capV (a thinking budget that cut the
// longest requests).
func cappedSample(t *testing.T, body string, n int, capV int, capMass, zeroMass float64) []float64 {
	t.Helper()
	d, err := workload.ParseDist(body)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	xs := make([]float64, 0, n)
	for range int(capMass * float64(n)) {
		xs = append(xs, float64(capV))
	}
	for range int(zeroMass * float64(n)) {
		xs = append(xs, 0)
	}
	for len(xs) < n {
		if x := d.Sample(r); x > 0 && x < capV {
			xs = append(xs, float64(x))
		}
	}
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

func TestFitSpikes(t *testing.T) {
	tests := []struct {
		name              string
		capMass, zeroMass float64
	}{
		{"cap spike 10%", 0.10, 0},
		{"zero spike 30%", 0, 0.30},
		{"both", 0.10, 0.30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n, capV = 50_000, 4096
			xs := cappedSample(t, "lognormal:p50=800,sigma=0.9", n, capV, tt.capMass, tt.zeroMass)
			res, err := Fit(xs, FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]float64{}
			if tt.capMass > 0 {
				want["cap"] = tt.capMass
			}
			if tt.zeroMass > 0 {
				want["zero"] = tt.zeroMass
			}
			if len(res.Spikes) != len(want) {
				t.Fatalf("spikes %+v, want %v", res.Spikes, want)
			}
			for _, s := range res.Spikes {
				if math.Abs(s.Mass-want[s.Kind]) > 1e-9 {
					t.Errorf("%s spike mass %v, want %v", s.Kind, s.Mass, want[s.Kind])
				}
				if s.Kind == "cap" && s.Value != capV || s.Kind == "zero" && s.Value != 0 {
					t.Errorf("spike %+v at the wrong value", s)
				}
			}
			if res.BodyN != n-int(float64(n)*(tt.capMass+tt.zeroMass)) {
				t.Errorf("body n %d", res.BodyN)
			}
			checkSpec(t, res)
			t.Logf("spec %s, KS %.4f", res.Spec, res.KS)

			// The spec generates the masses it was fitted to.
			gen := draw(t, res.Spec, n, 2)
			for kind, v := range map[string]float64{"cap": capV, "zero": 0} {
				got := float64(count(gen, v)) / n
				if math.Abs(got-want[kind]) > 0.006 {
					t.Errorf("generated mass at %v = %.4f, want %.4f", v, got, want[kind])
				}
			}
			if slices.Max(gen) > capV {
				t.Errorf("generated %v above the cap", slices.Max(gen))
			}
		})
	}
}

func count(xs []float64, v float64) int {
	c := 0
	for _, x := range xs {
		if x == v {
			c++
		}
	}
	return c
}

// TestFitNaturalCap: a body clamped at a budget (the cap mass is the tail
// the budget cut) is fitted so that the generated traffic keeps both the
// cap mass and the percentiles below it.
func TestFitNaturalCap(t *testing.T) {
	const n = 50_000
	xs := draw(t, "lognormal:p50=1500,sigma=1,max=4096", n, 3)
	res, err := Fit(xs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spikes) != 1 || res.Spikes[0].Kind != "cap" {
		t.Fatalf("spikes %+v, want the cap", res.Spikes)
	}
	gen := draw(t, res.Spec, n, 4)
	slices.Sort(xs)
	slices.Sort(gen)
	if a, b := float64(count(xs, 4096))/n, float64(count(gen, 4096))/n; math.Abs(a-b) > 0.005 {
		t.Errorf("mass at the cap: log %.4f, generated %.4f (spec %s)", a, b, res.Spec)
	}
	for _, p := range []float64{0.1, 0.5, 0.9} {
		if a, b := analysis.Quantile(xs, p), analysis.Quantile(gen, p); relErr(b, a) > 0.03 {
			t.Errorf("p%v: log %v, generated %v", 100*p, a, b)
		}
	}
}

// TestFitPicksEmpirical: a shape no family has (two separate humps) gets
// its quantile table.
func TestFitPicksEmpirical(t *testing.T) {
	xs := append(draw(t, "uniform:100..200", 20_000, 1), draw(t, "normal:mean=3000,sd=200", 10_000, 2)...)
	res, err := Fit(xs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Family != FamilyEmpirical || len(res.Candidates) != 3 {
		t.Fatalf("family %s, candidates %+v", res.Family, res.Candidates)
	}
	if !strings.HasPrefix(res.Spec, "empirical:p0=100,p1=") || !strings.Contains(res.Spec, ",p99.9=") {
		t.Errorf("spec %s", res.Spec)
	}
	checkSpec(t, res)
}

func TestFitDegenerate(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		family string
		spec   string
	}{
		{"one value", []float64{7}, FamilyConstant, "constant:7"},
		{"all equal", slices.Repeat([]float64{512}, 100), FamilyConstant, "constant:512"},
		{"all zero", make([]float64, 1000), FamilyConstant, "constant:0"},
		{"small sample", []float64{5, 1, 3, 2, 4}, FamilyEmpirical, ""},
		// 19 values: still a table, and no spike however often 0 occurs.
		{"small with zeros", append(make([]float64, 10), 1, 2, 3, 4, 5, 6, 7, 8, 9), FamilyEmpirical, ""},
		// Only two values: the larger is the body, 0 a spike.
		{"zeros and one value", append(make([]float64, 30), slices.Repeat([]float64{500}, 70)...),
			FamilyConstant, "constant:500,spike=0@0.3"},
		// A body of one value between two spikes.
		{"three values", append(append(make([]float64, 30), slices.Repeat([]float64{100}, 60)...), slices.Repeat([]float64{4096}, 10)...),
			FamilyConstant, "constant:100,spike=0@0.3,spike=4096@0.1"},
		// Non-integer values round to whole tokens.
		{"fractional constant", slices.Repeat([]float64{2.6}, 30), FamilyConstant, "constant:3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Fit(tt.values, FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Family != tt.family || tt.spec != "" && res.Spec != tt.spec {
				t.Errorf("got %s %q, want %s %q", res.Family, res.Spec, tt.family, tt.spec)
			}
			if res.N != len(tt.values) {
				t.Errorf("n %d", res.N)
			}
			checkSpec(t, res)
		})
	}
	// A small sample's table spans it.
	res, _ := Fit([]float64{5, 1, 3, 2, 4}, FitOptions{})
	if !strings.HasPrefix(res.Spec, "empirical:p0=1,") || !strings.Contains(res.Spec, "p50=3,") || !strings.Contains(res.Spec, "p100=5") {
		t.Errorf("small sample spec %s", res.Spec)
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		opt    FitOptions
		want   string
	}{
		{"nil", nil, FitOptions{}, "fit: no values"},
		{"empty", []float64{}, FitOptions{}, "fit: no values"},
		{"NaN", []float64{1, math.NaN()}, FitOptions{}, "value 2 is NaN"},
		{"Inf", []float64{math.Inf(1)}, FitOptions{}, "value 1 is +Inf"},
		{"negative", []float64{1, 2, -3}, FitOptions{}, "value 3 is -3: want a finite number in [0, 1000000000]"},
		{"huge", []float64{2e9}, FitOptions{}, "value 1 is 2e+09"},
		{"spike mass", []float64{1}, FitOptions{SpikeMinMass: 1.5}, "spike minimum mass: want a fraction in (0, 1], got 1.5"},
		{"spike mass NaN", []float64{1}, FitOptions{SpikeMinMass: math.NaN()}, "spike minimum mass"},
		{"spike mass negative", []float64{1}, FitOptions{SpikeMinMass: -0.1}, "spike minimum mass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fit(tt.values, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestFitSpikeMinMass: the threshold decides what is a spike.
func TestFitSpikeMinMass(t *testing.T) {
	xs := cappedSample(t, "gamma:shape=2,scale=500", 10_000, 8192, 0.03, 0)
	for _, c := range []struct {
		minMass float64
		spikes  int
	}{{0, 1}, {0.02, 1}, {0.05, 0}, {1, 0}} {
		res, err := Fit(xs, FitOptions{SpikeMinMass: c.minMass})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Spikes) != c.spikes {
			t.Errorf("min mass %v: spikes %+v, want %d", c.minMass, res.Spikes, c.spikes)
		}
	}
}

// TestFitDoesNotPanic feeds Fit random, adversarial samples.
func TestFitDoesNotPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	gens := []func() float64{
		func() float64 { return float64(r.IntN(3)) },
		func() float64 { return math.Exp(20 * r.NormFloat64()) },
		func() float64 { return r.Float64() * 1e-300 },
		func() float64 { return workload.MaxTokens },
		func() float64 { return float64(r.IntN(2)) * workload.MaxTokens },
		func() float64 { return math.Floor(r.ExpFloat64()) },
	}
	for gi, gen := range gens {
		for range 50 {
			xs := make([]float64, 1+r.IntN(200))
			for i := range xs {
				xs[i] = min(gen(), workload.MaxTokens)
			}
			res, err := Fit(xs, FitOptions{SpikeMinMass: r.Float64()})
			if err != nil {
				t.Fatalf("generator %d: %v", gi, err)
			}
			checkSpec(t, res)
			if math.IsNaN(res.KS) || res.KS < 0 || res.KS > 1 {
				t.Fatalf("KS %v", res.KS)
			}
		}
	}
}

// TestKSDistanceExact compares ksDistance with a brute-force supremum over
// every integer (both functions are steps that jump at integers only).
func TestKSDistanceExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, spec := range []string{"lognormal:p50=20,sigma=0.8", "gamma:shape=3,scale=4", "uniform:5..30,spike=0@0.2"} {
		d, err := workload.ParseDist(spec)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			xs := make([]float64, 5+r.IntN(60))
			for i := range xs {
				xs[i] = float64(d.Sample(r) + r.IntN(3)) // off the model a little
			}
			slices.Sort(xs)
			cdf := func(x float64) float64 { p, _ := workload.CDF(d, x); return p }
			got := ksDistance(xs, cdf)
			want := 0.0
			for k := -1.0; k <= xs[len(xs)-1]+1; k++ {
				fn := float64(countLE(xs, k)) / float64(len(xs))
				want = max(want, math.Abs(fn-cdf(k)))
			}
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%s: ksDistance %v, brute force %v", spec, got, want)
			}
		}
	}
}

func countLE(sorted []float64, x float64) int {
	c := 0
	for _, v := range sorted {
		if v <= x {
			c++
		}
	}
	return c
}

// TestFitTruncatedBody: a body cut at a budget is fitted with the
// likelihood truncated at the cap, which recovers the uncut distribution;
// its clamped tail then accounts for the cap's mass. (Truncation widens the
// estimator's spread: over ten seeds p50 lands within 1% of the truth but
// once, 3% off.)
func TestFitTruncatedBody(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		params map[string]float64
	}{
		{"lognormal:p50=1500,sigma=1,max=4096", map[string]float64{"p50": 1500, "sigma": 1}},
		{"gamma:shape=1.5,scale=2000,max=8192", map[string]float64{"shape": 1.5, "scale": 2000}},
	} {
		xs := draw(t, tt.spec, 50_000, 1)
		res, err := Fit(xs, FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Spec, strings.Split(tt.spec, ":")[0]) {
			t.Errorf("%s: fitted %s", tt.spec, res.Spec)
		}
		for k, want := range tt.params {
			if e := relErr(res.Params[k], want); e > 0.03 {
				t.Errorf("%s: %s = %v, want %v", tt.spec, k, res.Params[k], want)
			}
			t.Logf("%s: %s = %.4g (%.2f%% off)", tt.spec, k, res.Params[k], 100*relErr(res.Params[k], want))
		}
		// The clamp explains the cap: the spec's own spike is small.
		if d, _ := workload.ParseDist(res.Spec); strings.Contains(d.String(), "spike=") {
			var mass float64
			_, after, _ := strings.Cut(d.String(), "@")
			mass, _ = strconv.ParseFloat(after, 64)
			if mass > 0.01 {
				t.Errorf("%s: spec %s keeps a spike of %v", tt.spec, d, mass)
			}
		}
	}
}

// TestNelderMead: the search runs until its best value stalls, so it ends
// at the minimum to far more than the six significant digits a fit prints
// (the hand-written search it replaced stopped when the simplex's values
// agreed, about 1e-7 from Rosenbrock's minimum); it keeps to its budget of
// evaluations; NaN counts as +Inf.
func TestNelderMead(t *testing.T) {
	rosenbrock := func(x []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		return a*a + 100*b*b
	}
	for _, start := range [][]float64{{-1.2, 1}, {0, 0}, {3, -2}, {-2, 5}} {
		x, f := nelderMead(rosenbrock, start, 0.1, 1e-14, 2000)
		if math.Abs(x[0]-1) > 1e-8 || math.Abs(x[1]-1) > 1e-8 || f > 1e-15 {
			t.Errorf("from %v: minimum at %v (%v), want (1, 1)", start, x, f)
		}
	}
	evals := 0
	x, _ := nelderMead(func(x []float64) float64 { evals++; return rosenbrock(x) }, []float64{-1.2, 1}, 0.1, 1e-14, 50)
	if evals > 50 || x[0] == -1.2 {
		t.Errorf("a budget of 50 evaluations made %d and ended at %v", evals, x)
	}
	// NaN counts as +Inf: the search stays where the function is defined.
	x, _ = nelderMead(func(x []float64) float64 {
		if x[0] < 0 {
			return math.NaN()
		}
		return (x[0] - 2) * (x[0] - 2)
	}, []float64{0.5}, 0.1, 1e-14, 1000)
	if math.Abs(x[0]-2) > 1e-4 {
		t.Errorf("minimum at %v, want 2", x)
	}
}

// TestFitSpecMass: the spec's own cap spike plus the body's clamped tail
// make the observed cap mass.
func TestFitSpecMass(t *testing.T) {
	xs := cappedSample(t, "lognormal:p50=800,sigma=0.9", 20_000, 4096, 0.10, 0.2)
	res, err := Fit(xs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := workload.ParseDist(res.Spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Spikes {
		if s.SpecMass > s.Mass || s.SpecMass <= 0 {
			t.Errorf("spike %+v", s)
		}
		// P(sample = v) of the spec equals the observed mass.
		below, _ := workload.CDF(d, s.Value-1)
		at, _ := workload.CDF(d, s.Value)
		if math.Abs(at-below-s.Mass) > 1e-5 {
			t.Errorf("spec %s gives %v at %v, observed %v", res.Spec, at-below, s.Value, s.Mass)
		}
	}
}

// BenchmarkFitTruncated fits lognormal and gamma bodies below a cap: the
// truncated likelihoods' Nelder–Mead searches, on a body small enough that
// the optimiser, not the pass over the values, is what is timed.
func BenchmarkFitTruncated(b *testing.B) {
	for _, tt := range []struct {
		spec string
		fit  func([]float64, float64) (Candidate, bool)
	}{
		{"lognormal:p50=1500,sigma=1,max=4096", fitLognormal},
		{"gamma:shape=1.5,scale=2000,max=8192", fitGamma},
	} {
		xs := draw(b, tt.spec, 2000, 1)
		slices.Sort(xs)
		var res FitResult
		body, capV := splitSpikes(xs, DefaultSpikeMinMass, &res)
		if capV == capNone {
			b.Fatalf("%s: no cap spike", tt.spec)
		}
		b.Run(strings.Split(tt.spec, ":")[0], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := tt.fit(body, capV); !ok {
					b.Fatal("no candidate")
				}
			}
		})
	}
}
