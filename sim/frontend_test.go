package sim

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// TestTransitHeapOrder: requests leave the front end in the order they
// reach their engine, whatever the order they entered or were cancelled.
func TestTransitHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h transitHeap
	var want []int64
	for i := range 500 {
		at := r.Int64N(1000)
		h.push(inTransit{at: at, s: &seq{idx: i}})
		want = append(want, at)
		if i%7 == 0 {
			x := h.remove(r.IntN(len(h)))
			for j, w := range want {
				if w == x.at {
					want = append(want[:j], want[j+1:]...)
					break
				}
			}
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	for i, w := range want {
		if got := h.remove(0).at; got != w {
			t.Fatalf("departure %d at %d, want %d", i, got, w)
		}
	}
	if len(h) != 0 {
		t.Fatalf("%d left in the heap", len(h))
	}
}

// TestAPIServerTime: the API server's time is in the client's TTFT and
// E2E, not in the engine's TTFT or the queue time; on average it is the
// profile's per request and per prompt token.
func TestAPIServerTime(t *testing.T) {
	cfg := benchConfig(t)
	cfg.Step = cfg.GPU.Step
	cfg.Step.APIRequestOverheadMs, cfg.Step.APIPromptTokenUs = 20, 10
	reqs := make([]workload.Request, 200)
	for i := range reqs {
		reqs[i] = workload.Request{ArrivalS: float64(i), PromptTokens: 1000, AnswerTokens: 20}
	}
	rep, err := Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var api float64
	for _, r := range rep.Results {
		d := r.TTFTS - r.TTFTEngineS
		if d < 0.5*0.030-1e-9 || d > 1.5*0.030+1e-9 {
			t.Fatalf("request alone: API time %.4f s, want within [0.015, 0.045]", d)
		}
		if r.QueueS > r.TTFTEngineS {
			t.Fatalf("queue %.4f s longer than the engine's TTFT %.4f", r.QueueS, r.TTFTEngineS)
		}
		api += d / float64(len(rep.Results))
	}
	if math.Abs(api-0.030) > 0.003 {
		t.Errorf("mean API time %.4f s, want 0.030 (20 ms + 1,000 × 10 µs)", api)
	}
}
