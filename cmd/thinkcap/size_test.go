package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// sizeRun executes `thinkcap size` with args, returning stdout and the
// error.
func sizeRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	c := newSizeCmd()
	var out, errOut bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&errOut)
	c.SetArgs(args)
	c.SilenceUsage, c.SilenceErrors = true, true
	err := c.Execute()
	return out.String(), err
}

// tinyArgs: Qwen3-8B with 260 KV blocks, 200 requests of 1,600 tokens at
// 0.5 req/s: one replica preempts, two do not.
var tinyArgs = []string{"--num-gpu-blocks-override", "260", "--requests", "200", "--rate", "0.5",
	"--arrival", "constant", "--prompt-tokens", "500", "--think-tokens", "1000", "--answer-tokens", "100"}

func TestSizeKnownAnswer(t *testing.T) {
	out, err := sizeRun(t, append([]string{"--slo", "ttft_p99=1s", "-o", "json"}, tinyArgs...)...)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Best       map[string]any   `json:"best"`
		Candidates []map[string]any `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Best == nil || res.Best["replicas"] != 2.0 || res.Best["passes"] != true || res.Best["cost_per_hour"] != 2*2.99 {
		t.Errorf("best: %v", res.Best)
	}
	for _, key := range []string{"model", "gpu", "tensor_parallel_size", "kv_cache_dtype", "speculative", "max_num_seqs",
		"replicas", "cost_per_hour", "cost_per_million_output_tokens", "passes", "failed_slos", "ttft_p99_s",
		"kv_usage_peak", "preemptions", "max_rate_per_replica"} {
		if _, ok := res.Candidates[0][key]; !ok {
			t.Errorf("candidate JSON lacks %q", key)
		}
	}
}

// TestSizeGrid: FP8 KV and a speculative variant beside the baseline, in a
// table, with a plot.
func TestSizeGrid(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "curves.png")
	out, err := sizeRun(t, append([]string{"--slo", "ttft_p99=1s,tpot_p99=50ms", "--kv-cache-dtype", "auto,fp8",
		"--speculative-config", `off,{"method":"ngram","num_speculative_tokens":3}`, "--plot", plot}, tinyArgs...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kv=fp8 spec=off", "kv=auto spec=ngram/3", "base", "best: "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}
	t.Log("\n" + out)
}

func TestSizeNoCandidatePassesExitsOne(t *testing.T) {
	_, err := sizeRun(t, append([]string{"--slo", "tpot_p99=1ms", "--max-replicas", "2"}, tinyArgs...)...)
	var bad *inputerr.Error
	if err == nil || errors.As(err, &bad) {
		t.Errorf("want a check failure (exit 1), got %v", err)
	}
}

func TestSizeDeterministic(t *testing.T) {
	args := []string{"--slo", "ttft_p99=1s,e2e_p99=30s", "--gpus", "h100-sxm,h200", "--kv-cache-dtype", "auto,fp8",
		"--requests", "300", "--rate", "4", "--seed", "3", "-o", "json"}
	a, errA := sizeRun(t, args...)
	b, errB := sizeRun(t, args...)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if a != b {
		t.Error("same seed, different JSON")
	}
}

func TestSizeBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "--slo"},
		{[]string{"--slo", "ttft_p95=1s"}, "--slo"},
		{[]string{"--slo", "ttft_p99=1s", "--gpus", "h100-sxm,nope"}, "--gpus"},
		{[]string{"--slo", "ttft_p99=1s", "--model", "nope"}, "--model"},
		{[]string{"--slo", "ttft_p99=1s", "--kv-cache-dtype", "int3"}, "--kv-cache-dtype"},
		{[]string{"--slo", "ttft_p99=1s", "--tp", "0"}, "--tp"},
		{[]string{"--slo", "ttft_p99=1s", "--price", "h100-sxm=free"}, "--price"},
		{[]string{"--slo", "ttft_p99=1s", "--speculative-config", "off,{bad"}, "--speculative-config"},
		{[]string{"--slo", "ttft_p99=1s", "--max-preemption-rate", "-1"}, "--max-preemption-rate"},
		{[]string{"--slo", "ttft_p99=1s", "--concurrency", "4"}, "--concurrency"},
		{[]string{"--slo", "ttft_p99=1s", "-o", "yaml"}, "-o"},
	}
	for _, tt := range tests {
		_, err := sizeRun(t, tt.args...)
		var bad *inputerr.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want bad input naming %s", tt.args, err, tt.want)
		}
	}
}

// TestSizeConfidence: --confidence 0.9 on the embedded model error and 20
// draws of the traffic buys the 12 req/s day a third replica where the
// point estimate buys two (TPOT p99 20 ms: 2 replicas' point ~15 ms, its
// 90% edge near 21.6); the table says what the confidence costs, the JSON
// carries each SLO's interval; bad combinations are refused.
func TestSizeConfidence(t *testing.T) {
	args := []string{"--slo", "tpot_p99=20ms", "--rate", "12", "--requests", "2000"}
	point, err := sizeRun(t, append(args, "-o", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sizeRun(t, append(args, "--confidence", "0.9", "-o", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	var p, c struct {
		Best struct {
			Replicas      int      `json:"replicas"`
			PointReplicas *int     `json:"point_replicas"`
			Cost          *float64 `json:"confidence_cost_per_hour"`
			Edges         []struct {
				SLO    string  `json:"slo"`
				PointS float64 `json:"point_s"`
				LoS    float64 `json:"lo_s"`
				HiS    float64 `json:"hi_s"`
				LimitS float64 `json:"limit_s"`
			} `json:"slo_intervals"`
		} `json:"best"`
		Confidence float64 `json:"confidence"`
	}
	if err := json.Unmarshal([]byte(point), &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	b := c.Best
	if p.Best.Replicas != 2 || b.Replicas != 3 || b.PointReplicas == nil || *b.PointReplicas != 2 || c.Confidence != 0.9 {
		t.Fatalf("point %d replicas, at 90%% %d (point %v, confidence %g); want 2 and 3", p.Best.Replicas, b.Replicas, b.PointReplicas, c.Confidence)
	}
	if b.Cost == nil || *b.Cost != 2.99 || len(b.Edges) != 1 {
		t.Fatalf("confidence cost %v, intervals %+v", b.Cost, b.Edges)
	}
	if e := b.Edges[0]; !(e.LoS < e.PointS && e.PointS < e.HiS && e.HiS <= e.LimitS) {
		t.Errorf("interval %+v: want lo < point < hi <= limit", e)
	}
	table, err := sizeRun(t, append(args, "--confidence", "0.9")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table, "the point estimate would buy 2 ($5.98/hour): the confidence costs $2.99/hour") {
		t.Errorf("table does not say what the confidence costs:\n%s", table)
	}
	for _, bad := range [][]string{{"--seeds", "5"}, {"--confidence", "0.9", "--by-hour"}} {
		var in *inputerr.Error
		if _, err := sizeRun(t, append(args, bad...)...); !errors.As(err, &in) {
			t.Errorf("%v: %v; want a refusal as bad input (exit 2)", bad, err)
		}
	}
}
