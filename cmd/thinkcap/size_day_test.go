package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSizeByHour: a day-shaped day from the sample log, planned hour by
// hour: a table with an hour per row and the day's cost three ways, the
// same in JSON, the plot written; refused flags name themselves.
func TestSizeByHour(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "day.png")
	args := []string{"size", "--by-hour", "--workload", sampleLog, "--arrival", "day-shaped", "--rate", "2.5", "--requests", "60000",
		"--slo", "ttft_p99=2s,tpot_p99=60ms", "--model", "qwen3-8b", "--gpus", "h100-sxm", "--scale-up-delay", "2m"}
	out, errOut, code := thinkcap(t, append(args, "--plot", plot)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"busiest hour", "plan replicas", "fixed fleet of", "hourly plan", "autoscaled, as replayed", "scale-up delay 120s"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}
	js, errOut, code := thinkcap(t, append(args, "-o", "json")...)
	if code != exitOK {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var plan struct {
		Hours []struct {
			Requests int `json:"requests"`
			Replicas int `json:"replicas"`
		} `json:"hours"`
		FixedCost      float64           `json:"fixed_cost"`
		PlanCost       float64           `json:"plan_cost"`
		AutoscaledCost float64           `json:"autoscaled_cost"`
		Scaling        []json.RawMessage `json:"scaling"`
	}
	if err := json.Unmarshal([]byte(js), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Hours) < 5 || len(plan.Scaling) == 0 {
		t.Errorf("%d hours, %d scaling points", len(plan.Hours), len(plan.Scaling))
	}
	peak := 0
	for _, h := range plan.Hours {
		peak = max(peak, h.Replicas)
	}
	if peak < 2 || !(plan.PlanCost > 0 && plan.PlanCost < plan.FixedCost && plan.AutoscaledCost > 0) {
		t.Errorf("peak %d replicas; costs: fixed %g, plan %g (should be less), autoscaled %g", peak, plan.FixedCost, plan.PlanCost, plan.AutoscaledCost)
	}
	total := 0
	for _, h := range plan.Hours {
		total += h.Requests
	}
	if total != 60000 {
		t.Errorf("hours hold %d requests, want 60000", total)
	}
	if _, errOut, code := thinkcap(t, "size", "--slo", "ttft_p99=2s", "--requests", "5", "--cool-down", "1m"); code != exitBadInput || !strings.Contains(errOut, "--cool-down") {
		t.Errorf("--cool-down without --by-hour: exit %d: %s", code, errOut)
	}
}
