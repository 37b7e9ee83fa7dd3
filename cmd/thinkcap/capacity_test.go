package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/sim"
)

// TestCapacityExplain: --explain on docs/capacity.md's example prints every
// line of the budget, and -o json carries the same terms, which add up.
func TestCapacityExplain(t *testing.T) {
	args := []string{"capacity", "--model", "qwen3-32b", "--gpu", "h100-sxm", "-t", "2", "--kv-cache-dtype", "fp8", "--explain"}
	out, errOut, code := thinkcap(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, line := range []string{"Available KV cache memory:", "GPU KV cache size:", "total GPU memory", "× gpu_memory_utilization 0.92",
		"− weights", "− activation peak", "− non-torch memory", "− CUDA graphs (estimate)", "= available KV cache memory",
		"KV blocks", "maximum concurrency", "vLLM " + sim.DefaultVLLMVersion} {
		if !strings.Contains(out, line) {
			t.Errorf("--explain lacks %q:\n%s", line, out)
		}
	}
	out, errOut, code = thinkcap(t, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var b struct {
		VLLMVersion         string `json:"vllm_version"`
		RequestedBytes      int64  `json:"requested_bytes"`
		WeightBytes         int64  `json:"weights_bytes"`
		ActivationPeakBytes int64  `json:"activation_peak_bytes"`
		NonTorchBytes       int64  `json:"non_torch_bytes"`
		CUDAGraphBytes      int64  `json:"cuda_graph_bytes"`
		CUDAGraphSubtracted bool   `json:"cuda_graph_subtracted"`
		AvailableKVBytes    int64  `json:"available_kv_bytes"`
		KVCacheTokens       int64  `json:"kv_cache_tokens"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	if b.VLLMVersion != sim.DefaultVLLMVersion || !b.CUDAGraphSubtracted || b.KVCacheTokens == 0 ||
		b.RequestedBytes-b.WeightBytes-b.ActivationPeakBytes-b.NonTorchBytes-b.CUDAGraphBytes != b.AvailableKVBytes {
		t.Errorf("budget %+v does not add up", b)
	}
}

// TestCapacityVLLMVersion: --vllm-version 0.19.1 takes vLLM's 0.9 default
// utilisation and does not subtract the CUDA graphs; a given
// --gpu-memory-utilization still wins; a bad version exits 2.
func TestCapacityVLLMVersion(t *testing.T) {
	out, errOut, code := thinkcap(t, "capacity", "--vllm-version", "0.19.1", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "× gpu_memory_utilization 0.9 ") || !strings.Contains(out, "CUDA graphs (not subtracted)") {
		t.Errorf("0.19.1 budget:\n%s", out)
	}
	out, _, _ = thinkcap(t, "capacity", "--vllm-version", "0.19.1", "--gpu-memory-utilization", "0.8", "--explain")
	if !strings.Contains(out, "× gpu_memory_utilization 0.8 ") {
		t.Errorf("a given utilisation lost:\n%s", out)
	}
	if _, errOut, code := thinkcap(t, "capacity", "--vllm-version", "latest"); code != 2 || !strings.Contains(errOut, "--vllm-version") {
		t.Errorf("--vllm-version latest: exit %d, %q; want 2 naming the flag", code, errOut)
	}
}

// TestCapacityFlashInferSampler: --flashinfer-sampler reaches the memory
// model: a smaller activation peak before 0.17, named in --explain.
func TestCapacityFlashInferSampler(t *testing.T) {
	args := []string{"capacity", "--vllm-version", "0.10.2", "--explain", "-o", "json"}
	var torch, fi sim.CapacityBudget
	for _, c := range []struct {
		extra []string
		b     *sim.CapacityBudget
	}{{nil, &torch}, {[]string{"--flashinfer-sampler"}, &fi}} {
		out, errOut, code := thinkcap(t, append(args, c.extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if err := json.Unmarshal([]byte(out), c.b); err != nil {
			t.Fatal(err)
		}
	}
	if !fi.FlashInferSampler || torch.FlashInferSampler || fi.ActivationPeakBytes >= torch.ActivationPeakBytes {
		t.Errorf("--flashinfer-sampler: flag %v, activation peak %d bytes against %d without", fi.FlashInferSampler, fi.ActivationPeakBytes, torch.ActivationPeakBytes)
	}
}
