package sim

import (
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

type recordSink struct {
	think, answer int
	times         []int64
	res           *workload.Result
}

func (r *recordSink) Tokens(think, answer int, t int64) {
	r.think += think
	r.answer += answer
	r.times = append(r.times, t)
}

func (r *recordSink) Finished(res workload.Result) { r.res = &res }

// TestLiveMatchesRun: submitting requests live at their arrival times gives
// exactly the batch run's results, and every token is streamed.
func TestLiveMatchesRun(t *testing.T) {
	reqs := simtest.ReasoningTraffic(t, 200, 2)
	cfg := benchConfig(t)
	rep, err := Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	live, err := NewLive(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sinks := make([]*recordSink, len(reqs))
	for i, r := range reqs {
		sinks[i] = &recordSink{}
		live.Submit(r, secondsToNs(r.ArrivalS), sinks[i])
	}
	live.AdvanceTo(never - 1)
	for i, s := range sinks {
		if s.res == nil {
			t.Fatalf("request %d never finished", i)
		}
		want := rep.Results[i]
		if *s.res != want {
			t.Fatalf("request %d:\n live %+v\n  run %+v", i, *s.res, want)
		}
		if s.think != reqs[i].ThinkTokens || s.answer != reqs[i].AnswerTokens {
			t.Fatalf("request %d streamed %d/%d tokens, want %d/%d", i, s.think, s.answer, reqs[i].ThinkTokens, reqs[i].AnswerTokens)
		}
		if first := float64(s.times[0]-secondsToNs(reqs[i].ArrivalS)) / 1e9; first != want.TTFTS {
			t.Fatalf("first token streamed at %g s, TTFT %g s", first, want.TTFTS)
		}
	}
	if st := live.Stats(); st.Running != 0 || st.Waiting != 0 || st.KVUsage != 0 || st.Finished != 200 {
		t.Fatalf("stats after all finished: %+v", st)
	}
}

// TestLiveCancelFreesBlocks: a client that goes away frees its request.
func TestLiveCancelFreesBlocks(t *testing.T) {
	live, err := NewLive(benchConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	a, b := &recordSink{}, &recordSink{}
	ha := live.Submit(workload.Request{PromptTokens: 5000, ThinkTokens: 10000}, 0, a)
	live.Submit(workload.Request{PromptTokens: 100, AnswerTokens: 10}, 0, b)
	live.AdvanceTo(500_000_000)
	if live.Stats().KVUsage == 0 || a.think == 0 {
		t.Fatal("the long request should be decoding")
	}
	live.Cancel(ha, 500_000_000)
	if a.res == nil || a.res.Status != workload.StatusCancelled {
		t.Fatalf("cancelled result %+v", a.res)
	}
	live.AdvanceTo(never - 1)
	if st := live.Stats(); st.KVUsage != 0 || st.Running != 0 || b.res == nil || !b.res.OK() {
		t.Fatalf("after cancel: %+v, other %+v", st, b.res)
	}
	live.Cancel(ha, 600_000_000) // twice is harmless
	// Rejected at once when it cannot fit max_model_len.
	c := &recordSink{}
	live.Submit(workload.Request{PromptTokens: 50_000, AnswerTokens: 1}, 700_000_000, c)
	if c.res == nil || c.res.Status != workload.StatusRejected {
		t.Fatalf("oversized request: %+v", c.res)
	}
}
