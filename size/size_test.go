package size

import (
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/simtest"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// tinySpace is Qwen3-8B on an H100 with a KV pool forced small, so that the
// requests below overflow one replica's cache.
func tinySpace(tb testing.TB, blocks int) Space {
	tb.Helper()
	cat := simtest.Catalog(tb)
	m, err := cat.Model("qwen3-8b")
	if err != nil {
		tb.Fatal(err)
	}
	g, err := cat.GPU("h100-sxm")
	if err != nil {
		tb.Fatal(err)
	}
	return Space{Base: sim.Config{Model: m, GPU: g, NumGPUBlocksOverride: blocks}}
}

// constantTraffic is n requests of 500 prompt, 1000 think and 100 answer
// tokens (100 blocks of 16 each at the end), one every gap seconds.
func constantTraffic(n int, gapS float64) []workload.Request {
	reqs := make([]workload.Request, n)
	for i := range reqs {
		reqs[i] = workload.Request{ArrivalS: float64(i) * gapS, PromptTokens: 500, ThinkTokens: 1000, AnswerTokens: 100}
	}
	return reqs
}

func search(tb testing.TB, s Space, reqs []workload.Request, opt Options) *Result {
	tb.Helper()
	cands, err := s.Candidates()
	if err != nil {
		tb.Fatal(err)
	}
	res, err := Search(cands, reqs, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// TestKnownAnswerTwoReplicas: one replica of 260 blocks holds about two of
// these requests and preempts under four in flight; two replicas hold them.
func TestKnownAnswerTwoReplicas(t *testing.T) {
	slos, err := analysis.ParseSLOs("ttft_p99=1s")
	if err != nil {
		t.Fatal(err)
	}
	res := search(t, tinySpace(t, 260), constantTraffic(200, 2), Options{SLOs: slos})
	if res.Best == nil {
		t.Fatal("no candidate passes")
	}
	b := res.Best
	if b.Replicas != 2 || b.GPUs != 2 || b.Preemptions != 0 || !b.Complete {
		t.Errorf("best: %d replicas, %d GPUs, %d preemptions, complete %v; want 2, 2, 0, true", b.Replicas, b.GPUs, b.Preemptions, b.Complete)
	}
	if want := 2 * 2.99; b.CostPerHour != want {
		t.Errorf("cost per hour %g, want %g", b.CostPerHour, want)
	}
	// 0.5 req/s of 1,100 output tokens each: 550 tok/s, 1.98 M tokens an hour.
	if want := 2 * 2.99 / 1.98; !near(b.CostPerMillionOutputTokens, want, 1e-9) {
		t.Errorf("cost per M output tokens %g, want %g", b.CostPerMillionOutputTokens, want)
	}
	// Two replicas carry 0.5 req/s, one carries 0.25 (barely less than
	// half: it is the same traffic, less pooled).
	if r := b.MaxRatePerReplica; r < 0.15 || r >= 0.5 {
		t.Errorf("max rate per replica %g, want about 0.25", r)
	}
	if len(b.Curve) < 3 {
		t.Errorf("curve has %d points", len(b.Curve))
	}
}

// TestUndeployableIsAFailedCandidate: weights that do not fit are an outcome
// with the reason, not an error.
func TestUndeployableIsAFailedCandidate(t *testing.T) {
	s := tinySpace(t, 0)
	cat := simtest.Catalog(t)
	big, err := cat.Model("llama-3.1-70b")
	if err != nil {
		t.Fatal(err)
	}
	s.Models = []profiles.Model{s.Base.Model, big}
	slos, _ := analysis.ParseSLOs("ttft_p99=1s")
	res := search(t, s, constantTraffic(50, 2), Options{SLOs: slos})
	last := res.Candidates[len(res.Candidates)-1]
	if last.Model != "llama-3.1-70b" || last.Passes || last.Error == "" || last.FailedSLOs[0] != "deploy" {
		t.Errorf("undeployable candidate: %+v", last)
	}
	if res.Best == nil || res.Best.Model != "qwen3-8b" {
		t.Errorf("best: %+v", res.Best)
	}
}

// TestNoCandidatePasses: an unreachable TPOT fails every candidate; the
// latency floor rules it out without simulating any replica count.
func TestNoCandidatePasses(t *testing.T) {
	slos, _ := analysis.ParseSLOs("tpot_p99=1ms")
	res := search(t, tinySpace(t, 260), constantTraffic(100, 2), Options{SLOs: slos, MaxReplicas: 4})
	if res.Best != nil {
		t.Fatalf("best %+v", res.Best)
	}
	o := res.Candidates[0]
	if o.Replicas != 0 || o.Passes || len(o.FailedSLOs) != 1 || o.FailedSLOs[0] != "tpot_p99" || !strings.Contains(o.Error, "alone") {
		t.Errorf("outcome %+v", o)
	}
}

// TestLatencyFloorIsALowerBound: with SLOs set exactly at what a
// simulation measured, the floor never fails them: it is below every
// request's real latency, loaded or not.
func TestLatencyFloorIsALowerBound(t *testing.T) {
	for _, gap := range []float64{2, 0.25, 0.05} {
		s := tinySpace(t, 4000)
		cands, err := s.Candidates()
		if err != nil {
			t.Fatal(err)
		}
		cfg := cands[0].Config
		reqs := make([]workload.Request, 200)
		for i := range reqs {
			reqs[i] = workload.Request{ArrivalS: float64(i) * gap, PromptTokens: 100 + 37*i%900, ThinkTokens: 53 * i % 2000, AnswerTokens: 1 + 29*i%300}
		}
		rep, err := sim.Run(cfg, reqs, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l := analysis.Summarize("simulation", rep.Results, rep.DurationS).LatencyS
		var slos []analysis.SLO
		for _, m := range []string{"ttft", "ttfa", "e2e", "tpot"} {
			for _, st := range []string{"mean", "p50", "p99"} {
				slo := analysis.SLO{Metric: m, Stat: st}
				slo.LimitS = slo.Of(l)
				slos = append(slos, slo)
			}
		}
		failed, err := latencyFloor(&cfg, reqs, slos)
		if err != nil || len(failed) > 0 {
			t.Fatalf("gap %g s: the floor fails %v (%v) that the simulation met", gap, failed, err)
		}
	}
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }
