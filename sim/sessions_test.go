package sim

import (
	"fmt"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// twoTurns is one session: a first turn of 1,000 input tokens that thinks
// 500 and answers 200, and a second of 100 new tokens a second later.
func twoTurns() []workload.Request {
	return []workload.Request{
		{ID: "t1", SessionID: "s", Turn: 1, PromptTokens: 1000, ThinkTokens: 500, AnswerTokens: 200},
		{ID: "t2", SessionID: "s", Turn: 2, ThinkTimeS: 1, PromptTokens: 100, ThinkTokens: 300, AnswerTokens: 100},
	}
}

// TestSessionPrefixHits: the second turn hits exactly the first turn's
// full blocks when the history keeps the thinking, and only the first
// prompt's when the chat template strips it.
func TestSessionPrefixHits(t *testing.T) {
	for _, c := range []struct {
		policy         string
		prompt, cached int
	}{
		// keep-traces: 1,700 tokens of history + 100; the first turn's
		// 1,699 computed tokens fill 106 blocks of 16.
		{workload.HistoryKeepTraces, 1800, 106 * 16},
		// strip-traces: 1,000 + 200 + 100; the match ends where the first
		// turn's thinking began, after 62 full blocks of its prompt.
		{workload.HistoryStripTraces, 1300, 62 * 16},
		// summary from turn 2: 50 tokens of summary + 100, no hit.
		{"summary=50@2", 150, 0},
	} {
		h, err := workload.ParseHistory(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		reqs, _, err := workload.ApplySessions(twoTurns(), h)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(benchConfig(t), reqs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Results[1]
		if r.PromptTokens != c.prompt || r.CachedTokens != c.cached || r.Status != workload.StatusOK {
			t.Errorf("%s: turn 2 prompt %d cached %d (%s), want %d and %d", c.policy, r.PromptTokens, r.CachedTokens, r.Status, c.prompt, c.cached)
		}
	}
}

// TestSessionOrderUnderPreemption: on a pool small enough to preempt, a
// session's turns finish in order, each one issued only after the previous
// turn's answer and its think time, and session-affinity routing keeps a
// session on one replica. Each turn's latencies count from its own issue.
func TestSessionOrderUnderPreemption(t *testing.T) {
	var reqs []workload.Request
	for s := range 40 {
		for turn := 1; turn <= 4; turn++ {
			reqs = append(reqs, workload.Request{
				ID: fmt.Sprintf("s%d-%d", s, turn), SessionID: fmt.Sprint("s", s), Turn: turn,
				ArrivalS: float64(s) * 0.05, ThinkTimeS: 0.5, PromptTokens: 300, ThinkTokens: 400, AnswerTokens: 100,
			})
		}
	}
	reqs, _, err := workload.ApplySessions(reqs, workload.History{Policy: workload.HistoryKeepTraces})
	if err != nil {
		t.Fatal(err)
	}
	cfg := benchConfig(t)
	cfg.NumGPUBlocksOverride, cfg.Replicas, cfg.Router = 700, 2, RouterSessionAffinity
	finished := map[string][]int{}
	rep, err := Run(cfg, reqs, Options{Sink: func(r *workload.Result) { finished[r.SessionID] = append(finished[r.SessionID], r.Turn) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Preemptions == 0 {
		t.Fatal("no preemption: the pool is not small enough to test order under it")
	}
	for sess, turns := range finished {
		if fmt.Sprint(turns) != "[1 2 3 4]" {
			t.Errorf("session %s finished its turns in the order %v", sess, turns)
		}
	}
	end := map[string]float64{} // absolute end of each session's last turn so far
	for i := range rep.Results {
		r := &rep.Results[i]
		issued := r.ArrivalS // the first turn's arrival; a later turn's think time after the previous end
		if r.Turn > 1 {
			prev := &rep.Results[i-1]
			issued = end[r.SessionID] + r.ThinkTimeS
			if r.Replica != prev.Replica {
				t.Errorf("%s on replica %d, its previous turn on %d: session affinity", r.ID, r.Replica, prev.Replica)
			}
		}
		if r.Status != workload.StatusOK || r.TTFTS <= 0 || r.E2ES < r.TTFTS || r.E2ES > 60 {
			t.Fatalf("%s: %s, TTFT %.3f s, E2E %.3f s: a turn's latencies count from its own issue", r.ID, r.Status, r.TTFTS, r.E2ES)
		}
		end[r.SessionID] = issued + r.E2ES
	}
}
