package sim

import (
	"math"
	"strings"
	"testing"
)

// TestCheckFlag: vLLM's bounds of each engine flag, the edges included,
// with the flag named in the error.
func TestCheckFlag(t *testing.T) {
	cases := []struct {
		flag string
		ok   []float64
		bad  []float64
		want string
	}{
		{"tensor-parallel-size", []float64{1, 8}, []float64{0, -1}, "--tensor-parallel-size must be at least 1, got 0"},
		{"max-num-seqs", []float64{1, 1024}, []float64{0, -4}, "--max-num-seqs must be at least 1, got 0"},
		{"max-num-batched-tokens", []float64{1, 8192}, []float64{0}, "--max-num-batched-tokens must be at least 1, got 0"},
		{"max-model-len", []float64{1, 40960}, []float64{0, -1}, "--max-model-len must be at least 1, got 0"},
		{"block-size", []float64{16, 32, 64, 128}, []float64{0, 8, 24, -16}, "--block-size must be a positive multiple of 16, got 0"},
		{"gpu-memory-utilization", []float64{1, 0.5, 1e-9}, []float64{0, -0.1, 1.01, math.NaN(), math.Inf(1)}, "--gpu-memory-utilization must be in (0, 1], got 0"},
		{"num-gpu-blocks-override", []float64{1}, []float64{0}, "--num-gpu-blocks-override must be at least 1, got 0"},
		{"kv-cache-memory-bytes", []float64{1, 20e9}, []float64{0}, "--kv-cache-memory-bytes must be at least 1, got 0"},
		{"long-prefill-token-threshold", []float64{0, 512}, []float64{-1}, "--long-prefill-token-threshold must be at least 0, got -1"},
		{"replicas", []float64{1}, []float64{0}, "--replicas must be at least 1, got 0"},
	}
	for _, tc := range cases {
		for _, v := range tc.ok {
			if err := CheckFlag(tc.flag, v); err != nil {
				t.Errorf("CheckFlag(%s, %v) = %v; want nil", tc.flag, v, err)
			}
		}
		for i, v := range tc.bad {
			err := CheckFlag(tc.flag, v)
			if err == nil || !strings.Contains(err.Error(), "--"+tc.flag+" ") {
				t.Errorf("CheckFlag(%s, %v) = %v; want an error naming the flag", tc.flag, v, err)
			} else if i == 0 && err.Error() != tc.want {
				t.Errorf("CheckFlag(%s, %v) = %q; want %q", tc.flag, v, err, tc.want)
			}
		}
	}
	if err := CheckFlag("no-such-flag", 1); err == nil {
		t.Error("an unbounded flag name passed")
	}
	if err := CheckFlagChoice("kv-cache-dtype", "int3"); err == nil || !strings.Contains(err.Error(), `--kv-cache-dtype "int3" is not supported; use one of auto,`) {
		t.Errorf("CheckFlagChoice(kv-cache-dtype, int3) = %v", err)
	}
	if err := CheckFlagChoice("quantization", "bitsandbytes"); err == nil || !strings.Contains(err.Error(), "use one of fp8, mxfp4, nvfp4, awq, gptq") {
		t.Errorf("CheckFlagChoice(quantization, awq) = %v", err)
	}
	for _, ok := range [][2]string{{"quantization", ""}, {"router", "least-kv"}, {"scheduling-policy", "priority"}} {
		if err := CheckFlagChoice(ok[0], ok[1]); err != nil {
			t.Errorf("CheckFlagChoice(%s, %q) = %v", ok[0], ok[1], err)
		}
	}
}
