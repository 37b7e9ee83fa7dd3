package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

func TestParseGoodput(t *testing.T) {
	for _, c := range []struct {
		spec string
		want map[string]float64
	}{
		{"ttft=2s,tpot=50ms", map[string]float64{"ttft": 2, "tpot": 0.05}},
		{"ttft:2000 tpot:50 e2el:30000", map[string]float64{"ttft": 2, "tpot": 0.05, "e2e": 30}},
		{" TTFA=60s , e2e=1.5s ", map[string]float64{"ttfa": 60, "e2e": 1.5}},
	} {
		slos, err := ParseGoodput(c.spec)
		if err != nil {
			t.Fatalf("%q: %v", c.spec, err)
		}
		if len(slos) != len(c.want) {
			t.Fatalf("%q: %v", c.spec, slos)
		}
		for _, s := range slos {
			if math.Abs(s.LimitS-c.want[s.Metric]) > 1e-12 {
				t.Errorf("%q: %s = %g s, want %g", c.spec, s.Metric, s.LimitS, c.want[s.Metric])
			}
		}
	}
	for _, bad := range []string{"", "ttft=2", "itl=2s", "ttft=2s,ttft=3s", "tpot=-1ms", "tpot=0s", "ttft", "e2e=NaNs"} {
		if _, err := ParseGoodput(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestGoodputCountsUserRequests: a request is good when every bounded
// latency is within its bound; a chain is one request judged by its first
// call's TTFT, its last call's TTFA and E2E and every call's TPOT; failed
// requests and requests that never answered are not good.
func TestGoodputCountsUserRequests(t *testing.T) {
	ok := func(id string, ttft, tpot, e2e float64) workload.Result {
		return workload.Result{Request: workload.Request{ID: id, ThinkTokens: 50, AnswerTokens: 50},
			Status: workload.StatusOK, TTFTS: ttft, TTFAS: ttft + 1, TPOTS: tpot, E2ES: e2e}
	}
	results := []workload.Result{
		ok("fast", 0.5, 0.020, 3),
		ok("slow-ttft", 3, 0.020, 6),
		ok("slow-tpot", 0.5, 0.080, 9),
		{Request: workload.Request{ID: "failed"}, Status: workload.StatusHTTPError},
	}
	// A chain: its first call is fast to its first token, its follow-up
	// (measured from the chain's start) ends in time.
	first := ok("chain-1", 0.4, 0.020, 2)
	first.Continued = true
	second := ok("chain-2", 2.5, 0.030, 5)
	second.After = "chain-1"
	results = append(results, first, second)
	// A chain whose follow-up decodes too slowly.
	bad1 := ok("bad-1", 0.4, 0.020, 2)
	bad1.Continued = true
	bad2 := ok("bad-2", 2.5, 0.090, 5)
	bad2.After = "bad-1"
	results = append(results, bad1, bad2)

	slos, err := ParseGoodput("ttft=2s,tpot=50ms,e2e=10s")
	if err != nil {
		t.Fatal(err)
	}
	g := ComputeGoodput(results, slos, 10)
	// User requests: fast, slow-ttft, slow-tpot, failed, chain, bad chain.
	if g.Requests != 6 || g.Good != 2 {
		t.Fatalf("good %d of %d, want 2 of 6 (fast and the chain)", g.Good, g.Requests)
	}
	if math.Abs(g.Fraction-2.0/6) > 1e-12 || math.Abs(g.RequestsPerS-0.2) > 1e-12 {
		t.Fatalf("fraction %g, %g req/s", g.Fraction, g.RequestsPerS)
	}
	// Without a TPOT bound the slow decoders count.
	slos, _ = ParseGoodput("ttft:2000")
	if g := ComputeGoodput(results, slos, 10); g.Good != 4 {
		t.Fatalf("TTFT only: %d good, want 4", g.Good)
	}
	// A TTFA bound fails a request that never answered.
	noAnswer := ok("think-only", 0.1, 0.01, 1)
	noAnswer.AnswerTokens, noAnswer.TTFAS = 0, 0
	slos, _ = ParseGoodput("ttfa=30s")
	if g := ComputeGoodput([]workload.Result{noAnswer}, slos, 1); g.Good != 0 || g.Requests != 1 {
		t.Fatalf("a request with no answer met a TTFA bound: %+v", g)
	}
}

func FuzzParseGoodput(f *testing.F) {
	for _, s := range []string{"ttft=2s,tpot=50ms", "ttft:2000 e2el:30000", "ttfa=1e3ms", "tpot=", ":", "=,="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		slos, err := ParseGoodput(spec)
		if err != nil {
			return
		}
		var parts []string
		for _, s := range slos {
			if !(s.LimitS > 0) || math.IsInf(s.LimitS, 0) {
				t.Fatalf("%q: limit %g", spec, s.LimitS)
			}
			parts = append(parts, s.String())
		}
		again, err := ParseGoodput(strings.Join(parts, ","))
		if err != nil || len(again) != len(slos) {
			t.Fatalf("%q: its own rendering %q does not parse back: %v", spec, parts, err)
		}
		for i := range again {
			if again[i].Metric != slos[i].Metric || math.Abs(again[i].LimitS-slos[i].LimitS) > 1e-9*slos[i].LimitS {
				t.Fatalf("%q: %v parses back as %v", spec, slos[i], again[i])
			}
		}
	})
}
