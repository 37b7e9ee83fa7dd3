package analysis

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// TestUnknownMetricListsItsVocabulary: each syntax's unknown-metric error
// is the registry's, listing exactly the names that syntax takes.
func TestUnknownMetricListsItsVocabulary(t *testing.T) {
	for _, c := range []struct {
		syntax string
		parse  func() error
		valid  []string
	}{
		{"slo", func() error { _, err := ParseSLOs("nope_p99=1s"); return err }, SLONames()},
		{"threshold", func() error { _, err := ParseThresholds([]string{"nope<1"}); return err }, ThresholdMetrics()},
		{"goodput", func() error { _, err := ParseGoodput("nope=1s"); return err }, []string{"ttft", "ttfa", "tpot", "e2e"}},
		{"tolerance", func() error { _, err := ParseTolerances("nope=1%"); return err }, metricNames(isCompared)},
	} {
		var u *UnknownMetricError
		if err := c.parse(); !errors.As(err, &u) {
			t.Errorf("%s: error %v, want an UnknownMetricError", c.syntax, err)
			continue
		}
		if u.Name != "nope" && !strings.HasPrefix(u.Name, "nope") {
			t.Errorf("%s: names %q", c.syntax, u.Name)
		}
		if !slices.Equal(u.Valid, c.valid) {
			t.Errorf("%s: lists %v, want %v", c.syntax, u.Valid, c.valid)
		}
	}
	// The vocabularies nest: an SLO is a latency statistic verify compares,
	// and a threshold may name anything.
	if got := SLONames(); len(got) != 16 || !slices.Contains(got, "ttfa_p90") || slices.Contains(got, "itl_p99") {
		t.Errorf("SLO names %v: want the four statistics of ttft, ttfa, tpot and e2e", got)
	}
	for _, name := range metricNames(isCompared) {
		if !slices.Contains(ThresholdMetrics(), name) {
			t.Errorf("a threshold may not name %s", name)
		}
	}
	for _, name := range []string{MetricFailureRate, MetricGoodputFraction, MetricGoodputRequests} {
		if _, err := ParseTolerances(name + "=1%"); err == nil {
			t.Errorf("a tolerance on %s, which verify does not compare, was accepted", name)
		}
	}
}

// TestVLLMSpellings: vLLM's e2el names E2E in every syntax.
func TestVLLMSpellings(t *testing.T) {
	g, err := ParseGoodput("e2el:30000")
	if err != nil || g[0].Metric != "e2e" || g[0].LimitS != 30 {
		t.Errorf("goodput e2el:30000 = %+v, %v", g, err)
	}
	s, err := ParseSLOs("E2EL_P99=30s")
	if err != nil || s[0] != (SLO{"e2e", "p99", 30}) {
		t.Errorf("slo E2EL_P99=30s = %+v, %v", s, err)
	}
	th, err := ParseThresholds([]string{"e2el_p50<10s"})
	if err != nil || th[0].Metric != "e2e_p50" || th[0].Text != "e2el_p50<10s" {
		t.Errorf("threshold e2el_p50<10s = %+v, %v", th, err)
	}
	// Spellings name one metric: given twice under two names is an error.
	if _, err := ParseSLOs("e2e_p99=1s,e2el_p99=2s"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("e2e_p99 and e2el_p99 together: %v", err)
	}
}

func TestParseLatency(t *testing.T) {
	for _, c := range []struct {
		in         string
		bareMillis bool
		want       float64 // NaN: an error
	}{
		{"2s", false, 2}, {"1.5s", false, 1.5}, {"50ms", false, 0.05}, {"1e3ms", false, 1},
		{"1m30s", false, 90}, {"250us", false, 250e-6}, {"1h", false, 3600}, {"0s", false, 0},
		{"2000", true, 2}, {"50", true, 0.05}, {"2s", true, 2},
		{"2", false, math.NaN()}, {"-1s", false, math.NaN()}, {"NaNs", false, math.NaN()},
		{"1e400s", false, math.NaN()}, {"s", false, math.NaN()}, {"", true, math.NaN()}, {"2 s", false, math.NaN()},
	} {
		got, err := ParseLatency(c.in, c.bareMillis)
		switch {
		case math.IsNaN(c.want) && err == nil:
			t.Errorf("%q (bare ms %v) = %g, want an error", c.in, c.bareMillis, got)
		case !math.IsNaN(c.want) && (err != nil || math.Abs(got-c.want) > 1e-12*c.want):
			t.Errorf("%q (bare ms %v) = %g, %v; want %g", c.in, c.bareMillis, got, err, c.want)
		}
	}
}

func TestDirection(t *testing.T) {
	if !LowerIsBetter.Meets(1, 2) || LowerIsBetter.Meets(3, 2) || !HigherIsBetter.Meets(3, 2) || HigherIsBetter.Meets(1, 2) {
		t.Error("Meets compares the wrong way")
	}
	if LowerIsBetter.Meets(math.NaN(), 2) || HigherIsBetter.Meets(math.NaN(), 2) {
		t.Error("no data met a bound")
	}
	for _, c := range []struct {
		name string
		want Direction
	}{{"ttft_p99", LowerIsBetter}, {"throughput_tokens", HigherIsBetter}, {MetricGoodputFraction, HigherIsBetter}, {MetricFailureRate, LowerIsBetter}} {
		if m, ok := LookupMetric(c.name); !ok || m.Better != c.want {
			t.Errorf("%s: %+v", c.name, m)
		}
	}
}

// TestLatencyCountedAgreesWithSummarize: the per-request accessors read
// what Summarize counts, chains and answerless requests included, so a
// per-request bound and a summary statistic speak of the same numbers.
func TestLatencyCountedAgreesWithSummarize(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	var results []workload.Result
	for i := range 300 {
		r := workload.Result{Request: workload.Request{ID: string(rune('a' + i%26)), ThinkTokens: rng.IntN(3), AnswerTokens: rng.IntN(3)},
			Status: workload.StatusOK, TTFTS: rng.Float64(), TTFAS: 1 + rng.Float64(), TPOTS: rng.Float64() / 10, E2ES: 5 + rng.Float64()}
		r.Continued = rng.IntN(4) == 0
		if !r.Continued && rng.IntN(3) == 0 {
			r.After = "x" // a follow-up: not the start of a user request
		}
		results = append(results, r)
	}
	s := Summarize("loadtest", results, 10)
	for i := range latencies {
		l := &latencies[i]
		if l.Request == nil {
			continue
		}
		var vals []float64
		for j := range results {
			if v, ok := l.Counted(&results[j]); ok {
				vals = append(vals, v)
			}
		}
		want := l.Of(&s.LatencyS)
		if got := Describe(vals); math.Abs(got.Mean-want.Mean) > 1e-12 || math.Abs(got.P99-want.P99) > 1e-12 {
			t.Errorf("%s: %d values, mean %g p99 %g; the summary's mean %g p99 %g", l.Name, len(vals), got.Mean, got.P99, want.Mean, want.P99)
		}
	}
}

// TestCheckSLOs: an SLO is met at or under its limit, missed over it, and
// missed without data (a bound no value shows met is not met).
func TestCheckSLOs(t *testing.T) {
	s := &Summary{}
	s.LatencyS.TTFT = Stat{P99: 1.5}
	s.LatencyS.TPOT = Stat{P50: 0.05}
	s.LatencyS.TTFA = Stat{NoData: true}
	slos, err := ParseSLOs("ttft_p99=2s,tpot_p50=40ms,ttfa_p99=1s,tpot_p50=50ms")
	if err == nil {
		t.Fatal("tpot_p50 twice accepted")
	}
	slos, _ = ParseSLOs("ttft_p99=2s,tpot_p50=40ms,ttfa_p99=1s")
	rs := CheckSLOs(s, slos)
	if !rs[0].Met || rs[1].Met || rs[2].Met || rs[2].ValueS != nil || *rs[0].ValueS != 1.5 {
		t.Fatalf("%+v", rs)
	}
	err = MissedSLOs(rs)
	if err == nil || err.Error() != "2 of 3 SLOs missed: tpot_p50=40ms, ttfa_p99=1s" {
		t.Errorf("MissedSLOs: %v", err)
	}
	if MissedSLOs(rs[:1]) != nil {
		t.Error("a met SLO reported missed")
	}
}
