package workload

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestBlockResample: each block of the new log is one block of the old,
// moved whole (its requests' offsets within the block kept), follow-ups
// and session turns with their first request, ids unique; draws differ by
// seed and repeat with it; over many draws every block is drawn about
// equally often, a burst with it.
func TestBlockResample(t *testing.T) {
	var log []Request
	for i := range 600 { // 10 minutes, one request a second
		log = append(log, Request{ID: fmt.Sprint("r", i), ArrivalS: float64(i), PromptTokens: 10})
	}
	for i := range 100 { // a burst in block 3
		log = append(log, Request{ID: fmt.Sprint("b", i), ArrivalS: 200 + float64(i)/100, PromptTokens: 99})
	}
	log = append(log,
		Request{ID: "f", After: "r130", ArrivalS: 0.5},
		Request{ID: "s1", SessionID: "S", Turn: 1, ArrivalS: 425},
		Request{ID: "s2", SessionID: "S", Turn: 2, ArrivalS: 500, ThinkTimeS: 30})
	slices.SortStableFunc(log, func(a, b Request) int {
		if a.After != "" || b.After != "" {
			return 0
		}
		return int(math.Copysign(1, a.ArrivalS-b.ArrivalS))
	})
	block := BlockS(log)
	if block != 60 {
		t.Fatalf("block %g s; want 60 (a minute: the log is 10 minutes)", block)
	}
	offsets := func(reqs []Request, b int) []float64 {
		var o []float64
		for _, r := range reqs {
			if r.After == "" && r.SessionID == "" && int(r.ArrivalS/block) == b {
				o = append(o, math.Round(math.Mod(r.ArrivalS, block)*1e6)/1e6)
			}
		}
		slices.Sort(o)
		return o
	}
	bursts := 0
	for seed := range uint64(200) {
		out := BlockResample(log, block, seed)
		ids := map[string]bool{}
		for _, r := range out {
			if ids[r.ID] {
				t.Fatalf("seed %d: id %s twice", seed, r.ID)
			}
			ids[r.ID] = true
			if r.After != "" && !ids[r.After] {
				t.Fatalf("seed %d: follow-up %s before or without %s", seed, r.ID, r.After)
			}
		}
		turns := map[string][]int{}
		for _, r := range out {
			if r.SessionID != "" {
				turns[r.SessionID] = append(turns[r.SessionID], r.Turn)
			}
		}
		for s, tt := range turns {
			if !slices.Equal(tt, []int{1, 2}) {
				t.Fatalf("seed %d: session %s has turns %v; want [1 2]", seed, s, tt)
			}
		}
		for b := range 10 {
			got := offsets(out, b)
			found := false
			for src := range 10 {
				found = found || slices.Equal(got, offsets(log, src))
			}
			if !found {
				t.Fatalf("seed %d: block %d is no block of the log (%d requests)", seed, b, len(got))
			}
		}
		for _, r := range out {
			if r.PromptTokens == 99 {
				bursts++
				break
			}
		}
		if seed == 7 {
			again := BlockResample(log, block, seed)
			if !slices.Equal(ids2(out), ids2(again)) {
				t.Error("the same seed drew a different log")
			}
			if slices.Equal(ids2(out), ids2(BlockResample(log, block, seed+1))) {
				t.Error("another seed drew the same log")
			}
		}
	}
	// P(a 10-block draw holds block 3 at least once) = 1 − 0.9^10 ≈ 0.65.
	if bursts < 110 || bursts > 150 {
		t.Errorf("the burst's block was drawn in %d of 200 draws; want about 130", bursts)
	}
}

func ids2(reqs []Request) []string {
	var s []string
	for _, r := range reqs {
		s = append(s, r.ID)
	}
	return s
}
