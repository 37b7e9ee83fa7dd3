package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

func TestParseVLLMVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want VLLMVersion
		bad  bool
	}{
		{"0.19.1", VLLMVersion{0, 19, 1}, false},
		{"v0.21", VLLMVersion{0, 21, 0}, false},
		{"0.14.0rc2.dev160+g5ef69782b", VLLMVersion{0, 14, 0}, false},
		{"0.10.1.1", VLLMVersion{0, 10, 1}, false},
		{"latest", VLLMVersion{}, true},
		{"", VLLMVersion{}, true},
		{"1", VLLMVersion{}, true},
	} {
		got, err := ParseVLLMVersion(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("ParseVLLMVersion(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func FuzzParseVLLMVersion(f *testing.F) {
	for _, s := range []string{"0.19.1", "v0.21", "0.14.0rc2.dev160", "x", "99999999999999999999.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVLLMVersion(s)
		if err == nil && v.Major < 0 {
			t.Fatalf("%q: negative %v", s, v)
		}
	})
}

// TestMemoryModelRanges pins what each release range charges: a wrong
// range boundary or a CUDA-graph estimate subtracted before 0.21 fails.
func TestMemoryModelRanges(t *testing.T) {
	for _, tc := range []struct {
		version  string
		subtract bool
		util     float64
		async    bool
		perGroup bool
		bigBatch bool
	}{
		{"0.10.1.1", false, 0.9, false, true, false},
		{"0.13.9", false, 0.9, false, true, false},
		{"0.14.0", false, 0.9, true, true, false},
		{"0.20.1", false, 0.9, true, true, false},
		{"0.21.0", true, 0.92, true, true, false},
		{"0.22.0", true, 0.92, true, false, false},
		{"0.27.1", true, 0.92, true, false, false},
		{"0.28.0", true, 0.92, true, false, true},
		{DefaultVLLMVersion, true, 0.92, true, false, true},
		{"1.2.0", true, 0.92, true, false, true},
	} {
		v, err := ParseVLLMVersion(tc.version)
		if err != nil {
			t.Fatal(err)
		}
		m := memoryModelFor(v)
		if m.subtractCUDAGraphs != tc.subtract || m.gpuMemoryUtilization != tc.util || m.asyncScheduling != tc.async ||
			m.tokensPerGroup != tc.perGroup || m.largeGPUBatchDefaults != tc.bigBatch {
			t.Errorf("%s: %+v", tc.version, m)
		}
	}
}

// TestVLLMVersionChangesCapacity: the same deployment under 0.19.1 keeps
// the CUDA graphs' memory in the KV pool and defaults to 0.9 utilisation;
// under 0.28 it subtracts the estimate at 0.92; B200's batch defaults
// follow the release; the LLM class batches more tokens.
func TestVLLMVersionChangesCapacity(t *testing.T) {
	base := Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm")}
	old, cur := base, base
	old.VLLMVersion, cur.VLLMVersion = "0.19.1", "0.28.0"
	old, cur = refResolved(t, old), refResolved(t, cur)
	co, err := ComputeCapacity(&old)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := ComputeCapacity(&cur)
	if err != nil {
		t.Fatal(err)
	}
	if old.GPUMemoryUtilization != 0.9 || cur.GPUMemoryUtilization != 0.92 {
		t.Errorf("default utilisation %v, %v; want 0.9, 0.92", old.GPUMemoryUtilization, cur.GPUMemoryUtilization)
	}
	if co.CUDAGraphSubtracted || !cc.CUDAGraphSubtracted {
		t.Errorf("CUDA graphs subtracted: 0.19.1 %v, 0.28 %v", co.CUDAGraphSubtracted, cc.CUDAGraphSubtracted)
	}
	want := co.RequestedBytes - co.WeightBytesPerGPU - co.ActivationBytes - co.NonTorchBytes
	if co.AvailableKVBytes != want {
		t.Errorf("0.19.1 available %d; want requested − weights − activations − non-torch = %d", co.AvailableKVBytes, want)
	}
	if cc.AvailableKVBytes != cc.RequestedBytes-cc.WeightBytesPerGPU-cc.ActivationBytes-cc.NonTorchBytes-cc.CUDAGraphBytes {
		t.Errorf("0.28 available %d leaves out a term", cc.AvailableKVBytes)
	}
	for _, tc := range []struct {
		version, entry string
		tokens         int
	}{
		{"0.27.1", "", 8192}, {"0.28.0", "", 16384}, {"0.27.1", "llm", 16384},
	} {
		c := refResolved(t, Config{Model: base.Model, GPU: simtest.GPU(t, "b200"), VLLMVersion: tc.version, EntryPoint: tc.entry})
		if c.MaxNumBatchedTokens != tc.tokens {
			t.Errorf("b200 %s %q: max_num_batched_tokens %d; want %d", tc.version, tc.entry, c.MaxNumBatchedTokens, tc.tokens)
		}
	}
	a100 := refResolved(t, Config{Model: base.Model, GPU: simtest.GPU(t, "a100-40g"), EntryPoint: "llm"})
	if a100.MaxNumBatchedTokens != 8192 || a100.MaxNumSeqs != 256 {
		t.Errorf("a100 LLM class: %d tokens, %d seqs; want 8192, 256 (corpus R-08)", a100.MaxNumBatchedTokens, a100.MaxNumSeqs)
	}
	bad := base
	bad.VLLMVersion = "latest"
	if err := bad.Resolve(); err == nil || !strings.Contains(err.Error(), "--vllm-version") {
		t.Errorf("Resolve with --vllm-version latest: %v; want an error naming the flag", err)
	}
}

// TestCapacityBudgetExplain: --explain names every term of the budget and
// the terms add up to the available KV memory; the JSON carries them.
func TestCapacityBudgetExplain(t *testing.T) {
	for _, version := range []string{"0.19.1", "0.28.0"} {
		c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-32b"), GPU: simtest.GPU(t, "h100-sxm"), TensorParallelSize: 2, VLLMVersion: version})
		cp, err := ComputeCapacity(&c)
		if err != nil {
			t.Fatal(err)
		}
		b := cp.Budget(&c)
		sum := b.RequestedBytes - b.WeightBytes - b.ActivationPeakBytes - b.NonTorchBytes
		if b.CUDAGraphSubtracted {
			sum -= b.CUDAGraphBytes
		}
		if sum != b.AvailableKVBytes || int64(b.NumGPUBlocks)*b.BlockBytes > b.AvailableKVBytes || int64(b.NumGPUBlocks+1)*b.BlockBytes <= b.AvailableKVBytes {
			t.Errorf("%s: budget does not add up: %+v", version, b)
		}
		text := b.Explain()
		for _, line := range []string{"total GPU memory", "gpu_memory_utilization", "weights", "activation peak", "non-torch",
			"CUDA graphs", "available KV cache memory", "KV blocks", "GPU KV cache size", "maximum concurrency", "vLLM " + version} {
			if !strings.Contains(text, line) {
				t.Errorf("%s: --explain lacks %q:\n%s", version, line, text)
			}
		}
		if strings.Contains(text, "− CUDA graphs") != b.CUDAGraphSubtracted {
			t.Errorf("%s: the CUDA-graph line says subtracted=%v wrongly:\n%s", version, b.CUDAGraphSubtracted, text)
		}
		js, _ := json.Marshal(b)
		for _, k := range []string{"total_bytes", "gpu_memory_utilization", "requested_bytes", "weights_bytes", "activation_peak_bytes",
			"non_torch_bytes", "cuda_graph_bytes", "cuda_graph_subtracted", "available_kv_bytes", "num_gpu_blocks", "kv_cache_tokens", "max_concurrency", "vllm_version"} {
			if !strings.Contains(string(js), `"`+k+`"`) {
				t.Errorf("%s: JSON lacks %q", version, k)
			}
		}
	}
}

// TestFlashInferSampler: FlashInfer's sampler holds 12 B a logit at the
// warm-up (the torch path's 24 B before 0.17, 16 B after), so it lowers
// the activation peak by rows × vocabulary × the difference, and --explain
// says which sampler it priced.
func TestFlashInferSampler(t *testing.T) {
	for _, tc := range []struct {
		version string
		torch   float64
	}{{"0.10.1.1", 24}, {"0.19.0", 16}} {
		base := Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "a100-80g"), VLLMVersion: tc.version, MaxModelLen: 8192, MaxNumBatchedTokens: 512}
		torch := refResolved(t, base)
		base.FlashInferSampler = true
		fi := refResolved(t, base)
		p := modelParams(&torch.Model)
		got := activationPeakBytes(&torch, p) - activationPeakBytes(&fi, p)
		want := float64(torch.MaxNumSeqs) * float64(torch.Model.VocabSize) * (tc.torch - flashInferSamplerBytesPerLogit)
		if math.Abs(got-want) > 1 {
			t.Errorf("vLLM %s: FlashInfer's sampler saves %.0f bytes, want %.0f", tc.version, got, want)
		}
		cp, err := ComputeCapacity(&fi)
		if err != nil {
			t.Fatal(err)
		}
		if b := cp.Budget(&fi); !b.FlashInferSampler || !strings.Contains(b.Explain(), "FlashInfer's sampler") {
			t.Errorf("vLLM %s: explain does not name FlashInfer's sampler:\n%s", tc.version, b.Explain())
		}
	}
}
