package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanCommand: the sample day with the sample eval: a plan beside the
// knee and the global budgets, each with its cost per 1,000 correct
// answers; a floor on math moves math's budget up to meet it.
func TestPlanCommand(t *testing.T) {
	eval := filepath.Join("..", "..", "testdata", "eval.jsonl")
	args := []string{"plan", "--workload", sampleLog, "--speedup", "120", "--requests", "2500", "--eval", eval, "--model", "qwen3-8b", "--gpus", "h100-sxm",
		"--slo", "ttfa_p99=60s,tpot_p99=50ms"}
	out, errOut, code := thinkcap(t, append(args, "--plot", filepath.Join(t.TempDir(), "plan.png"))...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"chosen:", "knee per category", "global 512", "$/1K correct", "TTFA p99"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	js, errOut, code := thinkcap(t, append(args, "--min-accuracy", "math=0.8", "-o", "json")...)
	if code != exitOK {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var plan struct {
		Chosen *struct {
			Budgets    map[string]int `json:"budgets"`
			Categories []struct {
				Category string
				Accuracy float64
			} `json:"categories"`
			CostPer1KCorrect float64 `json:"cost_per_1k_correct"`
		} `json:"chosen"`
		Knee *struct {
			CostPer1KCorrect float64 `json:"cost_per_1k_correct"`
		} `json:"knee"`
	}
	if err := json.Unmarshal([]byte(js), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Chosen == nil || plan.Knee == nil || plan.Chosen.CostPer1KCorrect > plan.Knee.CostPer1KCorrect {
		t.Fatalf("chosen %+v, knee %+v: the plan costs no more than the knee", plan.Chosen, plan.Knee)
	}
	for _, c := range plan.Chosen.Categories {
		if c.Category == "math" && c.Accuracy < 0.8 {
			t.Errorf("math at %.2f under a 0.8 floor (budget %d)", c.Accuracy, plan.Chosen.Budgets["math"])
		}
	}
	if _, errOut, code := thinkcap(t, "plan", "--slo", "ttft_p99=2s", "--requests", "5"); code != exitBadInput || !strings.Contains(errOut, "--eval") {
		t.Errorf("without --eval: exit %d: %s", code, errOut)
	}
}
