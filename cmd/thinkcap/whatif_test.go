package main

import (
	"encoding/json"
	"testing"
)

type whatIfSummary struct {
	Requests struct {
		Total, Completed int
	}
	Tokens struct {
		Think struct{ P99 float64 }
	}
	Transforms []struct {
		Name        string
		Changed     int `json:"requests_changed"`
		Added       int `json:"requests_added"`
		AnswersLost int `json:"answers_lost"`
	}
	Pools []struct {
		Pool   string
		Config struct{ Model, GPU string }
		Tokens struct {
			Think struct{ Mean float64 }
		}
	}
}

func simulateJSON(t *testing.T, args ...string) whatIfSummary {
	t.Helper()
	out, errOut, code := thinkcap(t, append([]string{"simulate", "--requests", "500", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s whatIfSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestThinkBudgetFlags(t *testing.T) {
	base := simulateJSON(t)
	capped := simulateJSON(t, "--think-budget", "256")
	if capped.Tokens.Think.P99 > 256+3 || base.Tokens.Think.P99 <= 259 {
		t.Fatalf("think p99 %g capped, %g before", capped.Tokens.Think.P99, base.Tokens.Think.P99)
	}
	if len(capped.Transforms) != 1 || capped.Transforms[0].Changed == 0 {
		t.Fatalf("transforms %+v", capped.Transforms)
	}
	cut := simulateJSON(t, "--think-budget", "256", "--budget-policy", "truncate")
	if lost := cut.Transforms[0].AnswersLost; lost == 0 || cut.Requests.Total-cut.Requests.Completed != lost {
		t.Fatalf("truncate: %d answers lost, %d of %d requests not completed", lost, cut.Requests.Total-cut.Requests.Completed, cut.Requests.Total)
	}
	two := simulateJSON(t, "--think-budget", "256", "--budget-policy", "two-phase")
	if added := two.Transforms[0].Added; added == 0 || two.Requests.Total != 500+added || two.Requests.Completed != two.Requests.Total {
		t.Fatalf("two-phase: %+v", two)
	}
}

func TestRouteSimulatesBothPools(t *testing.T) {
	s := simulateJSON(t, "--route", "low", "--route-model", "qwen3-1.7b", "--route-gpu", "l4")
	if len(s.Pools) != 2 || s.Pools[0].Pool != "thinking" || s.Pools[1].Pool != "route" {
		t.Fatalf("pools %+v", s.Pools)
	}
	if s.Pools[1].Config.Model != "qwen3-1.7b" || s.Pools[1].Config.GPU != "l4" || s.Pools[1].Tokens.Think.Mean != 0 {
		t.Fatalf("route pool %+v", s.Pools[1])
	}
	if s.Requests.Total != 500 {
		t.Fatalf("total %d, want every request once", s.Requests.Total)
	}
}

func TestWhatIfBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--think-budget", "-5"},
		{"--budget-policy", "maybe", "--think-budget", "100"},
		{"--effort", "low=abc"},
		{"--escalate", "1.5"},
		{"--route", "tier=gold"},
		{"--route", "low", "--route-model", "nope"},
	} {
		_, errOut, code := thinkcap(t, append([]string{"simulate", "--requests", "10"}, args...)...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want 2; %s", args, code, errOut)
		}
	}
}
