package analysis

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/thinkcap/thinkcap/internal/approx"
	"github.com/thinkcap/thinkcap/workload"
)

// result builds an ok result; tests then change what they need.
func result(prompt, think, answer int, ttftS, ttfaS, tpotS, e2eS, queueS float64) workload.Result {
	return workload.Result{
		Request: workload.Request{PromptTokens: prompt, ThinkTokens: think, AnswerTokens: answer},
		Status:  workload.StatusOK,
		TTFTS:   ttftS, TTFAS: ttfaS, TPOTS: tpotS, E2ES: e2eS, QueueS: queueS,
	}
}

// handcrafted is four completed requests and three failed ones, built so
// that every exclusion rule of Summarize changes an answer if broken.
func handcrafted() []workload.Result {
	failed := func(status string) workload.Result {
		// Large numbers: counting any of them would be obvious.
		r := result(9000, 9000, 9000, 99, 99, 99, 99, 99)
		r.Status = status
		return r
	}
	// No answer: thinking hit its budget. Its TTFAS is a bogus 0 that must
	// not pull the TTFA down.
	noAnswer := result(300, 400, 0, 0.3, 0, 0.04, 16.3, 0.03)
	// One output token: it has a TTFA but no gap, so its TPOT (0) is
	// excluded.
	oneToken := result(50, 0, 1, 0.05, 0.05, 0, 0.05, 0)
	return []workload.Result{
		result(100, 200, 100, 0.1, 2.1, 0.01, 3.1, 0.01),
		failed(workload.StatusRejected),
		result(200, 0, 50, 0.2, 0.2, 0.02, 1.2, 0.02),
		failed(workload.StatusTimeout),
		noAnswer,
		failed(workload.StatusHTTPError),
		oneToken,
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize("loadtest", handcrafted(), 10)

	if s.Kind != "loadtest" || s.DurationS != 10 {
		t.Errorf("kind, duration = %q, %v; want loadtest, 10", s.Kind, s.DurationS)
	}
	if want := (RequestCounts{Total: 7, Completed: 4, Failed: 3, Rejected: 1}); s.Requests != want {
		t.Errorf("Requests = %+v, want %+v", s.Requests, want)
	}

	// Completed: prompt 100+200+300+50 = 650, think 200+0+400+0 = 600,
	// answer 100+50+0+1 = 151, over 10 s.
	wantTP := Throughput{
		RequestsPerS: 0.4, OutputTokensPerS: 75.1, ThinkTokensPerS: 60,
		AnswerTokensPerS: 15.1, PromptTokensPerS: 65,
	}
	checkFloats(t, "Throughput", []float64{
		s.Throughput.RequestsPerS, s.Throughput.OutputTokensPerS, s.Throughput.ThinkTokensPerS,
		s.Throughput.AnswerTokensPerS, s.Throughput.PromptTokensPerS,
	}, []float64{
		wantTP.RequestsPerS, wantTP.OutputTokensPerS, wantTP.ThinkTokensPerS,
		wantTP.AnswerTokensPerS, wantTP.PromptTokensPerS,
	})

	stats := []struct {
		name      string
		got, want Stat
	}{
		// All four completed: 0.05, 0.1, 0.2, 0.3.
		{"TTFT", s.LatencyS.TTFT, Describe([]float64{0.1, 0.2, 0.3, 0.05})},
		// Only the three with answer tokens: noAnswer's 0 is left out.
		{"TTFA", s.LatencyS.TTFA, Describe([]float64{2.1, 0.2, 0.05})},
		// Only the three with more than one output token: oneToken's 0 is
		// left out.
		{"TPOT", s.LatencyS.TPOT, Describe([]float64{0.01, 0.02, 0.04})},
		{"E2E", s.LatencyS.E2E, Describe([]float64{3.1, 1.2, 16.3, 0.05})},
		{"Queue", s.LatencyS.Queue, Describe([]float64{0.01, 0.02, 0.03, 0})},
		{"ITL is the caller's", s.LatencyS.ITL, Stat{}},
		{"think tokens", s.Tokens.Think, Describe([]float64{200, 0, 400, 0})},
		{"answer tokens", s.Tokens.Answer, Describe([]float64{100, 50, 0, 1})},
		{"total tokens", s.Tokens.Total, Describe([]float64{300, 50, 400, 1})},
	}
	for _, st := range stats {
		checkFloats(t, st.name, statFloats(st.got), statFloats(st.want))
	}
	// Spot-check against hand-computed numbers too, so the test does not
	// only trust Describe: TTFA mean (2.1+0.2+0.05)/3, TPOT p50 0.02, think
	// p90 of [0 0 200 400] at rank 2.7 = 200+0.7·200.
	checkFloats(t, "hand-computed", []float64{s.LatencyS.TTFA.Mean, s.LatencyS.TPOT.P50, s.Tokens.Think.P90},
		[]float64{2.35 / 3, 0.02, 340})

	if s.Preemptions != nil || s.KVUsage != (KVUsage{}) || s.Running != (Occupancy{}) ||
		s.Waiting != (Occupancy{}) || s.Config != (Config{}) || s.Capacity != (Capacity{}) {
		t.Errorf("Summarize filled a caller-owned part: %+v", s)
	}
}

func TestSummarizeDegenerate(t *testing.T) {
	tests := []struct {
		name      string
		results   []workload.Result
		durationS float64
	}{
		{"zero duration", handcrafted(), 0},
		{"negative duration", handcrafted(), -1},
		{"NaN duration", handcrafted(), math.NaN()},
		{"infinite duration", handcrafted(), math.Inf(1)},
		{"no results", nil, 10},
		{"nothing completed", handcrafted()[1:2], 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize("simulation", tt.results, tt.durationS)
			if tt.durationS > 0 && !math.IsInf(tt.durationS, 0) && s.Requests.Completed > 0 {
				t.Fatal("test case is not degenerate")
			}
			if s.Throughput != (Throughput{}) {
				t.Errorf("Throughput = %+v, want zero", s.Throughput)
			}
			// NaN in DurationS itself is the caller's input; every number
			// Summarize computes must encode as JSON.
			s.DurationS = 0
			if _, err := json.Marshal(s); err != nil {
				t.Errorf("summary does not encode as JSON: %v", err)
			}
		})
	}
}

func statFloats(s Stat) []float64 { return []float64{s.Mean, s.P50, s.P90, s.P99} }

func checkFloats(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !approx.Equal(got[i], want[i]) {
			t.Errorf("%s = %v, want %v", name, got, want)
			return
		}
	}
}

// TestSummarizeChains: a two-phase chain is one user request for the
// user-facing latencies.
func TestSummarizeChains(t *testing.T) {
	rs := []workload.Result{
		{Request: workload.Request{ID: "a", PromptTokens: 10, ThinkTokens: 100}, Status: workload.StatusOK,
			TTFTS: 0.1, QueueS: 0.05, E2ES: 2, Continued: true},
		{Request: workload.Request{ID: "a/answer", After: "a", PromptTokens: 113, AnswerTokens: 20}, Status: workload.StatusOK,
			TTFTS: 2.3, TTFAS: 2.3, QueueS: 0.2, E2ES: 3},
	}
	s := Summarize("simulation", rs, 10)
	if s.LatencyS.TTFT.Mean != 0.1 || s.LatencyS.Queue.Mean != 0.05 {
		t.Errorf("TTFT %v queue %v: want the first call's", s.LatencyS.TTFT, s.LatencyS.Queue)
	}
	if s.LatencyS.E2E.Mean != 3 || s.LatencyS.TTFA.Mean != 2.3 {
		t.Errorf("E2E %v TTFA %v: want the last call's", s.LatencyS.E2E, s.LatencyS.TTFA)
	}
	if s.Throughput.ThinkTokensPerS != 10 || s.Throughput.AnswerTokensPerS != 2 {
		t.Errorf("throughput %+v: every call's tokens count", s.Throughput)
	}
}
