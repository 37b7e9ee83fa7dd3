package sim

import (
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// TestTwoPhaseFollowUpHitsItsPredecessor: phase 2 of a two-phase budget is
// sent when phase 1 finishes, its latencies count from phase 1's arrival,
// and its prompt (prompt + trace) hits phase 1's blocks in the prefix cache
// on the same replica.
func TestTwoPhaseFollowUpHitsItsPredecessor(t *testing.T) {
	reqs := []workload.Request{
		{ID: "a", ArrivalS: 1, PromptTokens: 100, ThinkTokens: 200},
		{ID: "a/answer", After: "a", PromptTokens: 303, PrefixTokens: 300, AnswerTokens: 50},
	}
	for _, caching := range []bool{true, false} {
		cfg := benchConfig(t)
		cfg.DisablePrefixCaching = !caching
		rep, err := Run(cfg, reqs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p1, p2 := rep.Results[0], rep.Results[1]
		if !p1.Continued || p2.Continued || !p1.OK() || !p2.OK() {
			t.Fatalf("statuses %+v / %+v", p1, p2)
		}
		// Issued when phase 1 ended; latencies from phase 1's arrival.
		if p2.ArrivalS != p1.ArrivalS+p1.E2ES || p2.E2ES <= p1.E2ES || p2.TTFAS <= p1.E2ES {
			t.Fatalf("phase 2 arrival %g, e2e %g ttfa %g; phase 1 arrival %g e2e %g", p2.ArrivalS, p2.E2ES, p2.TTFAS, p1.ArrivalS, p1.E2ES)
		}
		// Phase 1 computed 299 tokens (the last one is sampled, not
		// computed): 18 full blocks.
		want := 0
		if caching {
			want = 18 * 16
		}
		if p2.CachedTokens != want {
			t.Fatalf("caching=%v: phase 2 cached %d tokens, want %d", caching, p2.CachedTokens, want)
		}
	}
}

func TestFollowUpOfFailedRequestIsCancelled(t *testing.T) {
	cfg := benchConfig(t)
	cfg.MaxModelLen = 1000
	reqs := []workload.Request{
		{ID: "a", PromptTokens: 900, ThinkTokens: 200}, // too long: rejected
		{ID: "b", After: "a", PromptTokens: 10, AnswerTokens: 5},
	}
	rep, err := Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Results[0].Status != workload.StatusRejected || rep.Results[1].Status != workload.StatusCancelled {
		t.Fatalf("statuses %q, %q", rep.Results[0].Status, rep.Results[1].Status)
	}
}

func TestAfterMustNameAnEarlierRequest(t *testing.T) {
	reqs := []workload.Request{{ID: "b", After: "a", PromptTokens: 10, AnswerTokens: 5}, {ID: "a", PromptTokens: 10, AnswerTokens: 5}}
	if _, err := Run(benchConfig(t), reqs, Options{}); err == nil {
		t.Fatal("a follow-up of a later request was accepted")
	}
}

// TestClosedLoopWaitsForTheChain: in closed loop a chain holds its slot
// until its last request finishes.
func TestClosedLoopWaitsForTheChain(t *testing.T) {
	reqs := []workload.Request{
		{ID: "a", PromptTokens: 100, ThinkTokens: 100},
		{ID: "a2", After: "a", PromptTokens: 100, AnswerTokens: 100},
		{ID: "b", PromptTokens: 100, AnswerTokens: 10},
	}
	rep, err := Run(benchConfig(t), reqs, Options{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	a2, b := rep.Results[1], rep.Results[2]
	// a2's E2E counts from a's arrival, so the chain ends at a's arrival
	// plus a2's E2E.
	if end := rep.Results[0].ArrivalS + a2.E2ES; b.ArrivalS != end {
		t.Fatalf("b issued at %g, want at the chain's end %g", b.ArrivalS, end)
	}
}
