package main

import (
	"encoding/json"
	"testing"
)

// TestExpertParallelFlag: --enable-expert-parallel reaches the step model:
// a small batch of a MoE model decodes slower with its experts placed whole
// on the ranks (the busiest rank sets the step) than sharded over them.
func TestExpertParallelFlag(t *testing.T) {
	args := []string{"simulate", "--model", "qwen3-30b-a3b", "-t", "2", "--requests", "40", "--rate", "1", "--seed", "3", "-o", "json"}
	tpot := map[bool]float64{}
	for _, ep := range []bool{false, true} {
		a := args
		if ep {
			a = append(a[:len(a):len(a)], "--enable-expert-parallel")
		}
		out, errOut, code := thinkcap(t, a...)
		if code != 0 {
			t.Fatalf("ep %v: exit %d: %s", ep, code, errOut)
		}
		var r struct {
			Latency struct {
				TPOT struct{ Mean float64 } `json:"tpot"`
			} `json:"latency_s"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		tpot[ep] = r.Latency.TPOT.Mean
	}
	if tpot[true] <= tpot[false] {
		t.Errorf("mean TPOT %.4f s with --enable-expert-parallel, %.4f s without; want slower", tpot[true], tpot[false])
	}
}
