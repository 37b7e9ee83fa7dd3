package analysis

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseTolerancesEmpty(t *testing.T) {
	for _, spec := range []string{"", "   ", "\t"} {
		got, err := ParseTolerances(spec)
		if err != nil {
			t.Fatalf("%q: %v", spec, err)
		}
		if !maps.Equal(got, DefaultTolerances()) {
			t.Errorf("%q: got %v, want the defaults", spec, got)
		}
	}
	// Each call returns a fresh map: changing one leaves the defaults alone.
	got, _ := ParseTolerances("")
	got["ttft_p50"] = 9
	if DefaultTolerances()["ttft_p50"] != 0.25 {
		t.Error("ParseTolerances returned a map shared with DefaultTolerances")
	}
}

func TestParseTolerances(t *testing.T) {
	with := func(changes map[string]float64, drop ...string) map[string]float64 {
		m := DefaultTolerances()
		maps.Copy(m, changes)
		for _, d := range drop {
			delete(m, d)
		}
		return m
	}
	for _, c := range []struct {
		spec string
		want map[string]float64
	}{
		{"ttft_p50=20%", with(map[string]float64{"ttft_p50": 0.2})},
		{"tpot_mean=0.1", with(map[string]float64{"tpot_mean": 0.1})},
		{"tpot_mean=0.5%", with(map[string]float64{"tpot_mean": 0.005})},
		{"ttft_p50=0", with(map[string]float64{"ttft_p50": 0})},
		{" ttft_p50 = 20% , e2e_p99=1 ", with(map[string]float64{"ttft_p50": 0.2, "e2e_p99": 1})},
		{"ttft_p50=off", with(nil, "ttft_p50")},
		{"ttft_p50=off,ttft_p99=off", with(nil, "ttft_p50", "ttft_p99")},
		// A metric the defaults do not check can be turned on, and turning
		// off one that is not checked is harmless.
		{"itl_p99=40%", with(map[string]float64{"itl_p99": 0.4})},
		{"itl_p50=off", DefaultTolerances()},
		// Later pairs win.
		{"ttft_p50=10%,ttft_p50=30%", with(map[string]float64{"ttft_p50": 0.3})},
		{"ttft_p50=off,ttft_p50=5%", with(map[string]float64{"ttft_p50": 0.05})},
		{"none", map[string]float64{}},
		{"none,tpot_mean=5%", map[string]float64{"tpot_mean": 0.05}},
		{"none, tpot_mean=5%, itl_mean=0.2", map[string]float64{"tpot_mean": 0.05, "itl_mean": 0.2}},
		{"ttft_p50=20%,none", map[string]float64{}},
	} {
		got, err := ParseTolerances(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if !tolerancesNear(got, c.want) {
			t.Errorf("%q:\n got %v\nwant %v", c.spec, got, c.want)
		}
	}
}

// tolerancesNear compares two tolerance maps key by key, to rounding.
func tolerancesNear(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || math.Abs(v-w) > 1e-12 {
			return false
		}
	}
	return true
}

func TestParseTolerancesErrors(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []string // substrings of the message
	}{
		{"bogus=10%", []string{`"bogus"`, "valid", "ttft_p50", "tpot_mean", "kv_usage_peak", "preemptions"}},
		{"ttft_p50=10%,TTFT_P50=10%", []string{"TTFT_P50", "ttft_p50"}},
		{"ttft_p50", []string{"metric=bound"}},
		{"ttft_p50=", []string{"metric=bound"}},
		{"=20%", []string{"metric=bound"}},
		{"ttft_p50=20%,", []string{"metric=bound"}},
		{"ttft_p50=-5%", []string{`"-5"`}},
		{"ttft_p50=-0.1", []string{`"-0.1"`}},
		{"ttft_p50=NaN", []string{"NaN"}},
		{"ttft_p50=nan%", []string{"nan"}},
		{"ttft_p50=Inf", []string{"Inf"}},
		{"ttft_p50=+Inf", []string{"Inf"}},
		{"ttft_p50=1e400", []string{"1e400"}},
		{"ttft_p50=abc", []string{`"abc"`}},
		{"ttft_p50=20%%", []string{"20%"}},
		{"ttft_p50=%", []string{"ttft_p50"}},
		{"ttft_p50=0x", []string{"0x"}},
		{"none,bogus=1", []string{"bogus"}},
	} {
		got, err := ParseTolerances(c.spec)
		if err == nil {
			t.Errorf("%q: no error, got %v", c.spec, got)
			continue
		}
		if got != nil {
			t.Errorf("%q: error %v with a map %v", c.spec, err, got)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", c.spec, err, w)
			}
		}
	}
	// The unknown-metric error lists every valid name.
	_, err := ParseTolerances("bogus=1")
	if err == nil {
		t.Fatal("no error")
	}
	for _, m := range Metrics() {
		if !strings.Contains(err.Error(), m.Name) {
			t.Errorf("error %q does not list %s", err, m.Name)
		}
	}
}

func TestMetricsNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Metrics() {
		if seen[m.Name] {
			t.Errorf("duplicate metric %s", m.Name)
		}
		seen[m.Name] = true
		if m.Value == nil || m.Label == "" {
			t.Errorf("metric %s incomplete: %+v", m.Name, m)
		}
		if m.WallSlack != (m.Unit == "ms") {
			t.Errorf("metric %s: WallSlack %v with unit %q", m.Name, m.WallSlack, m.Unit)
		}
	}
	for name := range DefaultTolerances() {
		if !seen[name] {
			t.Errorf("default tolerance for unknown metric %s", name)
		}
	}
}

// compareBase is a plausible load-test summary: every metric nonzero.
func compareBase() Summary {
	var s Summary
	s.Throughput.RequestsPerS = 10
	s.Throughput.OutputTokensPerS = 2000
	s.LatencyS.TTFT = Stat{Mean: 0.5, P50: 0.4, P90: 0.9, P99: 1.5}
	s.LatencyS.TTFTEngine = Stat{Mean: 0.45, P50: 0.35, P90: 0.85, P99: 1.4}
	s.LatencyS.TTFA = Stat{Mean: 2, P50: 1.8, P90: 3, P99: 4}
	s.LatencyS.TPOT = Stat{Mean: 0.02, P50: 0.019, P90: 0.03, P99: 0.05}
	s.LatencyS.ITL = Stat{Mean: 0.02, P50: 0.018, P90: 0.04, P99: 0.08}
	s.LatencyS.E2E = Stat{Mean: 5, P50: 4.5, P90: 8, P99: 12}
	s.KVUsage = KVUsage{Mean: 0.5, Peak: 0.9}
	s.Running = Occupancy{Mean: 40, Peak: 64}
	s.Waiting = Occupancy{Mean: 3, Peak: 20}
	ten := int64(10)
	s.Preemptions = &ten
	hit := 0.3
	s.PrefixCacheHitRate = &hit
	return s
}

// metricOf returns the comparison of one metric, failing the test when
// it is absent.
func metricOf(t *testing.T, c Comparison, name string) MetricComparison {
	t.Helper()
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s in %+v", name, c.Metrics)
	return MetricComparison{}
}

func TestCompareSlack(t *testing.T) {
	tol := map[string]float64{"ttft_p50": 0.25}
	for _, c := range []struct {
		name                string
		predicted, measured float64 // seconds
		pass                bool
	}{
		// 15 ms ≤ 25% × 45 ms + 20 ms = 31.25 ms: passes only thanks to
		// the slack (15 > 11.25).
		{"slack", 0.030, 0.045, true},
		{"slack above", 0.060, 0.045, true},
		{"outside", 0.100, 0.045, false}, // 55 > 31.25
		{"outside below", 0.010, 0.045, false},
		// Away from the slack the bound is relative to the measurement,
		// not to the prediction: 0.25 ≤ 0.27 passes (0.2075 would not),
		// 0.30 > 0.27 fails (0.345 would not).
		{"relative to measured, below", 0.75, 1.0, true},
		{"relative to measured, above", 1.30, 1.0, false},
		{"exact", 1.0, 1.0, true},
		{"measured 0, within slack", 0.015, 0, true},
		{"measured 0, past slack", 0.025, 0, false},
	} {
		p, m := compareBase(), compareBase()
		p.LatencyS.TTFT.P50, m.LatencyS.TTFT.P50 = c.predicted, c.measured
		got := Compare(&p, &m, tol)
		mc := metricOf(t, got, "ttft_p50")
		if mc.Pass == nil || *mc.Pass != c.pass || got.Pass != c.pass {
			t.Errorf("%s: %v vs %v: pass %v (overall %v), want %v", c.name, c.predicted, c.measured, ptrString(mc.Pass), got.Pass, c.pass)
		}
		if mc.Predicted != c.predicted || mc.Measured != c.measured {
			t.Errorf("%s: predicted %v measured %v", c.name, mc.Predicted, mc.Measured)
		}
		if mc.Tolerance == nil || *mc.Tolerance != 0.25 {
			t.Errorf("%s: tolerance %v", c.name, mc.Tolerance)
		}
		wantFailed := []string(nil)
		if !c.pass {
			wantFailed = []string{"ttft_p50"}
		}
		if !slices.Equal(got.Failed, wantFailed) {
			t.Errorf("%s: failed %v", c.name, got.Failed)
		}
	}
}

func ptrString(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}

func TestCompareSlackByMetric(t *testing.T) {
	// Tolerance 0 leaves the slack alone: each case is just inside or just
	// outside its metric's absolute slack.
	for _, c := range []struct {
		name string
		set  func(s *Summary, v float64)
		base float64
		in   float64 // within the slack
		out  float64 // past it
	}{
		{"tpot_mean", func(s *Summary, v float64) { s.LatencyS.TPOT.Mean = v }, 0.020, 0.0209, 0.0211},
		{"itl_mean", func(s *Summary, v float64) { s.LatencyS.ITL.Mean = v }, 0.020, 0.0191, 0.0189},
		{"e2e_p99", func(s *Summary, v float64) { s.LatencyS.E2E.P99 = v }, 5, 5.019, 5.021},
		{"kv_usage_mean", func(s *Summary, v float64) { s.KVUsage.Mean = v }, 0.5, 0.509, 0.511},
		{"running_peak", func(s *Summary, v float64) { s.Running.Peak = int(v) }, 64, 65, 66},
		{"waiting_peak", func(s *Summary, v float64) { s.Waiting.Peak = int(v) }, 20, 19, 18},
		{"preemptions", func(s *Summary, v float64) { n := int64(v); s.Preemptions = &n }, 10, 12, 13},
		{"throughput_requests", func(s *Summary, v float64) { s.Throughput.RequestsPerS = v }, 10, 10, 10.001},
	} {
		tol := map[string]float64{c.name: 0}
		for _, pv := range []struct {
			v    float64
			pass bool
		}{{c.in, true}, {c.out, false}} {
			p, m := compareBase(), compareBase()
			c.set(&m, c.base)
			c.set(&p, pv.v)
			got := Compare(&p, &m, tol)
			if mc := metricOf(t, got, c.name); mc.Pass == nil || *mc.Pass != pv.pass || got.Pass != pv.pass {
				t.Errorf("%s: %v vs %v: pass %s, want %v", c.name, pv.v, c.base, ptrString(mc.Pass), pv.pass)
			}
		}
	}
}

func TestCompareFields(t *testing.T) {
	p, m := compareBase(), compareBase()
	p.LatencyS.TTFT.Mean = 0.75 // measured 0.5
	p.Throughput.RequestsPerS = 8
	m.Preemptions = Int64(0)
	p.Preemptions = Int64(3)
	tol := DefaultTolerances()
	got := Compare(&p, &m, tol)
	if got.Checked() != len(tol) {
		t.Errorf("Checked() = %d, want %d (one per tolerance)", got.Checked(), len(tol))
	}

	ms := Metrics()
	if len(got.Metrics) != len(ms) {
		t.Fatalf("%d metrics, want %d", len(got.Metrics), len(ms))
	}
	for i, mc := range got.Metrics {
		if mc.Name != ms[i].Name {
			t.Errorf("metric %d is %s, want %s (Metrics order)", i, mc.Name, ms[i].Name)
		}
		if mc.Predicted != ms[i].Value(&p) || mc.Measured != ms[i].Value(&m) {
			t.Errorf("%s: predicted %v measured %v", mc.Name, mc.Predicted, mc.Measured)
		}
		want, checked := tol[mc.Name]
		if !checked {
			if mc.Tolerance != nil || mc.Pass != nil {
				t.Errorf("%s is not checked: tolerance %v pass %v", mc.Name, mc.Tolerance, mc.Pass)
			}
			continue
		}
		if mc.Tolerance == nil || *mc.Tolerance != want || mc.Pass == nil {
			t.Errorf("%s: tolerance %v (want %v) pass %v", mc.Name, mc.Tolerance, want, mc.Pass)
		}
	}

	// Error is (p − m)/|m|, nil when the measurement is 0.
	if e := metricOf(t, got, "ttft_mean").Error; e == nil || math.Abs(*e-0.5) > 1e-12 {
		t.Errorf("ttft_mean error %v, want 0.5", e)
	}
	if e := metricOf(t, got, "throughput_requests").Error; e == nil || math.Abs(*e+0.2) > 1e-12 {
		t.Errorf("throughput_requests error %v, want -0.2", e)
	}
	if e := metricOf(t, got, "ttft_p50").Error; e == nil || *e != 0 {
		t.Errorf("ttft_p50 error %v, want 0", e)
	}
	if e := metricOf(t, got, "preemptions").Error; e != nil {
		t.Errorf("preemptions measured 0: error %v, want nil", *e)
	}
	// Unchecked metrics: itl_p50 and waiting_peak have no default.
	for _, name := range []string{"itl_p50", "itl_p90", "itl_p99", "ttft_mean", "waiting_peak"} {
		if _, ok := tol[name]; ok {
			t.Fatalf("%s has a default tolerance; pick another unchecked metric", name)
		}
		if mc := metricOf(t, got, name); mc.Tolerance != nil || mc.Pass != nil {
			t.Errorf("%s: tolerance %v pass %v, want nil", name, mc.Tolerance, mc.Pass)
		}
	}
	// ttft_mean is off by 50% but unchecked; requests/s is 20% low and
	// preemptions 3 against 0 (> slack 2).
	if got.Pass || !slices.Equal(got.Failed, []string{"throughput_requests", "preemptions"}) {
		t.Errorf("pass %v failed %v", got.Pass, got.Failed)
	}
}

func TestCompareFailedOrder(t *testing.T) {
	// Every metric is predicted at three times its measurement and every
	// metric is checked at 10%: all fail, listed in Metrics() order.
	m := compareBase()
	p := compareBase()
	scaleSummary(&p, 3)
	tol := map[string]float64{}
	var want []string
	for _, mt := range Metrics() {
		tol[mt.Name] = 0.1
		want = append(want, mt.Name)
	}
	got := Compare(&p, &m, tol)
	if got.Pass || !slices.Equal(got.Failed, want) {
		t.Errorf("failed %v\nwant   %v", got.Failed, want)
	}
	// Only some checked, reversed in the map's construction: still in
	// Metrics() order.
	tol = map[string]float64{"preemptions": 0.1, "e2e_p50": 0.1, "ttft_p99": 0.1, "throughput_tokens": 0.1}
	got = Compare(&p, &m, tol)
	if want := []string{"throughput_tokens", "ttft_p99", "e2e_p50", "preemptions"}; !slices.Equal(got.Failed, want) {
		t.Errorf("failed %v, want %v", got.Failed, want)
	}
	// Nothing checked: passes whatever the numbers.
	got = Compare(&p, &m, nil)
	if !got.Pass || got.Failed != nil {
		t.Errorf("no tolerances: pass %v failed %v", got.Pass, got.Failed)
	}
}

func TestCompareScaled(t *testing.T) {
	tol := map[string]float64{"ttft_p50": 0.25, "ttft_p90": 0.30, "tpot_mean": 0.1, "kv_usage_mean": 0.15, "running_peak": 0}
	p, m := compareBase(), compareBase()
	// TTFT p90: 30 ms off 45 ms passes on the full slack, 30 ≤ 13.5 + 20,
	// at every scale: a scale at or below 1 never shrinks the slack
	// (30 > 13.5 + 10 at half of it).
	m.LatencyS.TTFT.P90, p.LatencyS.TTFT.P90 = 0.045, 0.075
	// TTFT p50: 150 ms off a 100 ms measurement: > 25 + 20 ms, ≤ 25 + 200 ms.
	m.LatencyS.TTFT.P50, p.LatencyS.TTFT.P50 = 0.100, 0.250
	// TPOT mean: 6 ms off 20 ms: > 2 + 1 ms, ≤ 2 + 10 ms.
	m.LatencyS.TPOT.Mean, p.LatencyS.TPOT.Mean = 0.020, 0.026
	// KV usage mean: 0.1 off 0.5: > 0.075 + 0.01, and would pass were
	// its slack stretched (0.075 + 0.1).
	m.KVUsage.Mean, p.KVUsage.Mean = 0.5, 0.6
	// running peak: 3 off, slack 1; would pass at a stretched slack of 10.
	m.Running.Peak, p.Running.Peak = 64, 67

	for _, scale := range []float64{1, 0, 0.5, -2} {
		got := CompareScaled(&p, &m, tol, scale)
		if want := []string{"ttft_p50", "tpot_mean", "kv_usage_mean", "running_peak"}; !slices.Equal(got.Failed, want) {
			t.Errorf("scale %v: failed %v, want %v", scale, got.Failed, want)
		}
	}
	if got, want := Compare(&p, &m, tol), CompareScaled(&p, &m, tol, 1); !slices.Equal(got.Failed, want.Failed) || got.Pass != want.Pass {
		t.Errorf("Compare %v differs from CompareScaled at 1 %v", got.Failed, want.Failed)
	}
	got := CompareScaled(&p, &m, tol, 10)
	if want := []string{"kv_usage_mean", "running_peak"}; !slices.Equal(got.Failed, want) {
		t.Errorf("scale 10: failed %v, want %v", got.Failed, want)
	}
	for _, name := range []string{"ttft_p50", "tpot_mean"} {
		if mc := metricOf(t, got, name); mc.Pass == nil || !*mc.Pass {
			t.Errorf("scale 10: %s pass %s", name, ptrString(mc.Pass))
		}
	}
	// The tolerance reported is the fraction, not stretched.
	if mc := metricOf(t, got, "ttft_p50"); mc.Tolerance == nil || *mc.Tolerance != 0.25 {
		t.Errorf("scale 10: tolerance %v", mc.Tolerance)
	}
	// At scale 5 the TTFT slack is 100 ms: 150 > 25 + 100 still fails,
	// while TPOT's 5 ms slack lets 6 ≤ 2 + 5 pass.
	got = CompareScaled(&p, &m, tol, 5)
	if want := []string{"ttft_p50", "kv_usage_mean", "running_peak"}; !slices.Equal(got.Failed, want) {
		t.Errorf("scale 5: failed %v, want %v", got.Failed, want)
	}
}

// randomSummary fills every field a Metric reads with a random value of
// its kind's magnitude.
func randomSummary(r *rand.Rand) Summary {
	f := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	stat := func(lo, hi float64) Stat {
		return Stat{Mean: f(lo, hi), P50: f(lo, hi), P90: f(lo, hi), P99: f(lo, hi)}
	}
	var s Summary
	s.Throughput.RequestsPerS = f(0.1, 100)
	s.Throughput.OutputTokensPerS = f(10, 1e5)
	s.LatencyS.TTFT = stat(0.5, 10)
	s.LatencyS.TTFTEngine = stat(0.5, 10)
	s.LatencyS.TTFA = stat(0.5, 30)
	s.LatencyS.TPOT = stat(0.5, 2)
	s.LatencyS.ITL = stat(0.5, 2)
	s.LatencyS.E2E = stat(0.5, 120)
	s.KVUsage = KVUsage{Mean: f(0, 1), Peak: f(0, 1)}
	s.Running = Occupancy{Mean: f(0, 256), Peak: r.IntN(512)}
	s.Waiting = Occupancy{Mean: f(0, 100), Peak: r.IntN(1000)}
	s.Preemptions = Int64(int64(r.IntN(10000)))
	if r.IntN(4) == 0 { // some zero measurements
		s.Preemptions, s.Waiting.Peak, s.KVUsage.Mean = Int64(0), 0, 0
	}
	return s
}

// scaleSummary multiplies every float metric by k and the counts, rounded.
func scaleSummary(s *Summary, k float64) {
	s.Throughput.RequestsPerS *= k
	s.Throughput.OutputTokensPerS *= k
	scaleLatencies(s, k)
	s.KVUsage.Mean *= k
	s.KVUsage.Peak *= k
	s.Running.Peak = int(math.Round(float64(s.Running.Peak) * k))
	s.Waiting.Peak = int(math.Round(float64(s.Waiting.Peak) * k))
	s.Preemptions = Int64(int64(math.Round(float64(*s.Preemptions) * k)))
	if h := s.PrefixCacheHitRate; h != nil {
		v := *h * k
		s.PrefixCacheHitRate = &v
	}
}

func scaleLatencies(s *Summary, k float64) {
	for _, st := range []*Stat{&s.LatencyS.TTFT, &s.LatencyS.TTFTEngine, &s.LatencyS.TTFA, &s.LatencyS.TPOT, &s.LatencyS.ITL, &s.LatencyS.E2E} {
		st.Mean *= k
		st.P50 *= k
		st.P90 *= k
		st.P99 *= k
	}
}

func TestComparePropertySelf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		s := randomSummary(r)
		for _, scale := range []float64{1, 10} {
			if c := CompareScaled(&s, &s, DefaultTolerances(), scale); !c.Pass || c.Failed != nil {
				t.Fatalf("case %d: a summary against itself fails %v at scale %v: %+v", i, c.Failed, scale, s)
			}
		}
		// Zero tolerance everywhere still passes an identical summary.
		zero := map[string]float64{}
		for _, m := range Metrics() {
			zero[m.Name] = 0
		}
		if c := Compare(&s, &s, zero); !c.Pass {
			t.Fatalf("case %d: zero tolerance fails %v", i, c.Failed)
		}
	}
}

func TestComparePropertyLatencyScaled(t *testing.T) {
	tol := DefaultTolerances()
	var latency []string // checked latency metrics, in Metrics order
	for _, m := range Metrics() {
		if _, ok := tol[m.Name]; ok && m.Unit == "ms" {
			latency = append(latency, m.Name)
		}
	}
	if len(latency) < 10 {
		t.Fatalf("only %d checked latency metrics: %v", len(latency), latency)
	}
	maxTol := 0.0
	for _, name := range latency {
		maxTol = max(maxTol, tol[name])
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		m := randomSummary(r)
		// Every latency is ≥ 0.5 s, so a factor 1 + maxTol + 0.05 (and
		// more) puts it ≥ 25 ms past its bound: past the 20 ms slack.
		k := 1 + maxTol + 0.05 + r.Float64()
		p := m
		scaleLatencies(&p, k)
		c := Compare(&p, &m, tol)
		if c.Pass || !slices.Equal(c.Failed, latency) {
			t.Fatalf("case %d: latencies ×%v: failed %v, want %v", i, k, c.Failed, latency)
		}
		// Too fast: a factor below 1 − tol − 0.05 fails as well.
		k = (1 - maxTol - 0.05) * r.Float64()
		p = m
		scaleLatencies(&p, k)
		if c := Compare(&p, &m, tol); !slices.Equal(c.Failed, latency) {
			t.Fatalf("case %d: latencies ×%v: failed %v, want %v", i, k, c.Failed, latency)
		}
		// Within tolerance: every metric moved by at most 90% of its
		// own bound passes.
		p = m
		within := func(v *float64, name string) {
			*v *= 1 + 0.9*tol[name]*(2*r.Float64()-1)
		}
		within(&p.LatencyS.TTFT.P50, "ttft_p50")
		within(&p.LatencyS.TTFT.P90, "ttft_p90")
		within(&p.LatencyS.TTFT.P99, "ttft_p99")
		within(&p.LatencyS.TPOT.Mean, "tpot_mean")
		within(&p.LatencyS.TPOT.P99, "tpot_p99")
		within(&p.LatencyS.ITL.Mean, "itl_mean")
		within(&p.LatencyS.E2E.P90, "e2e_p90")
		within(&p.Throughput.RequestsPerS, "throughput_requests")
		within(&p.KVUsage.Peak, "kv_usage_peak")
		if c := Compare(&p, &m, tol); !c.Pass {
			t.Fatalf("case %d: within tolerance fails %v", i, c.Failed)
		}
	}
}
