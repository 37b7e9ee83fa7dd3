package sim

import (
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

func TestResolveDefaults(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm")})
	want := Config{Model: c.Model, GPU: c.GPU, TensorParallelSize: 1, KVCacheDtype: "auto", GPUMemoryUtilization: 0.92,
		MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, MaxModelLen: 40960, BlockSize: 16, SchedulingPolicy: "fcfs",
		Step: c.GPU.Step, Replicas: 1, Router: "round-robin", TimelineIntervalS: 1}
	if c.TensorParallelSize != want.TensorParallelSize || c.KVCacheDtype != want.KVCacheDtype ||
		c.GPUMemoryUtilization != want.GPUMemoryUtilization || c.MaxNumSeqs != want.MaxNumSeqs ||
		c.MaxNumBatchedTokens != want.MaxNumBatchedTokens || c.MaxModelLen != want.MaxModelLen ||
		c.BlockSize != want.BlockSize || c.SchedulingPolicy != want.SchedulingPolicy || c.Step != want.Step ||
		c.Replicas != want.Replicas || c.Router != want.Router || c.TimelineIntervalS != want.TimelineIntervalS {
		t.Errorf("Resolve() = %+v;\nwant %+v", c, want)
	}
}

// TestResolveBatchDefaults: vLLM's OPENAI_API_SERVER defaults by device
// memory and the clamps applied to defaulted values only (vllm/engine/arg_utils.py).
func TestResolveBatchDefaults(t *testing.T) {
	qwen := simtest.Model(t, "qwen3-8b")
	cases := []struct {
		name                 string
		gpu                  string
		maxLen, seqs, tokens int
		wantSeqs, wantTokens int
	}{
		{"B200 >= 160 GiB", "b200", 0, 0, 0, 1024, 16384},
		{"H200 >= 70 GiB", "h200", 0, 0, 0, 1024, 8192},
		{"H100", "h100-sxm", 0, 0, 0, 1024, 8192},
		{"A100 80GB is excluded by name", "a100-80g", 0, 0, 0, 256, 2048},
		{"L40S", "l40s", 0, 0, 0, 256, 2048},
		{"tokens clamp to seqs × max len", "h100-sxm", 4, 0, 0, 1024, 4096},
		{"seqs clamp to tokens", "h100-sxm", 0, 0, 512, 512, 512},
		{"user seqs kept, tokens clamp", "h100-sxm", 100, 8, 0, 8, 800},
		{"user values untouched", "h100-sxm", 0, 64, 4096, 64, 4096},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := refResolved(t, Config{Model: qwen, GPU: simtest.GPU(t, tc.gpu), MaxModelLen: tc.maxLen, MaxNumSeqs: tc.seqs, MaxNumBatchedTokens: tc.tokens})
			if c.MaxNumSeqs != tc.wantSeqs || c.MaxNumBatchedTokens != tc.wantTokens {
				t.Errorf("seqs, tokens = %d, %d; want %d, %d", c.MaxNumSeqs, c.MaxNumBatchedTokens, tc.wantSeqs, tc.wantTokens)
			}
		})
	}
}

func TestResolveMLABlockSizeAndStepMerge(t *testing.T) {
	gpu := simtest.GPU(t, "h200")
	c := refResolved(t, Config{Model: simtest.Model(t, "deepseek-r1"), GPU: gpu, TensorParallelSize: 8})
	if c.BlockSize != 64 {
		t.Errorf("MLA BlockSize = %d; want 64 (FlashMLA)", c.BlockSize)
	}
	if c.Step != gpu.Step {
		t.Errorf("Step = %+v; want the GPU's when the config has none", c.Step)
	}
	// A config with coefficients keeps every one of them, zeros included:
	// a fit may set a coefficient to 0, which is not "unset".
	own := gpu.Step
	own.PerLayerOverheadUs, own.APIRequestOverheadMs = 0, 0
	if c = refResolved(t, Config{Model: simtest.Model(t, "deepseek-r1"), GPU: gpu, TensorParallelSize: 8, Step: own}); c.Step != own {
		t.Errorf("Step = %+v; want the config's own, zeros kept", c.Step)
	}
	c = refResolved(t, Config{Model: simtest.Model(t, "deepseek-r1"), GPU: gpu, TensorParallelSize: 8, BlockSize: 128})
	if c.BlockSize != 128 {
		t.Errorf("user BlockSize overridden: %d", c.BlockSize)
	}
}

func TestResolveSpeculativeDefaults(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm"),
		Speculative: &SpeculativeConfig{Method: SpecEagle3, Model: "h", NumSpeculativeTokens: 3}})
	a, err := NewAcceptanceSampler(c.Speculative.AcceptanceRates)
	if err != nil {
		t.Fatal(err)
	}
	if al := a.MeanAcceptanceLength(); al < 1.99 || al > 2.01 {
		t.Errorf("default EAGLE-3 acceptance length = %v; want 2.0", al)
	}
}

// TestResolveErrors: every problem is reported at once, naming the flag.
func TestResolveErrors(t *testing.T) {
	qwen, r1 := simtest.Model(t, "qwen3-8b"), simtest.Model(t, "deepseek-r1")
	cases := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"tp does not divide heads", Config{Model: qwen, TensorParallelSize: 3},
			[]string{"--tensor-parallel-size 3 does not divide the 32 attention heads of qwen3-8b"}},
		{"negative tp", Config{Model: qwen, TensorParallelSize: -2}, []string{"--tensor-parallel-size must be at least 1, got -2"}},
		{"kv cache dtype", Config{Model: qwen, KVCacheDtype: "int4"},
			[]string{`--kv-cache-dtype "int4" is not supported; use one of auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc`}},
		{"quantization", Config{Model: qwen, Quantization: "bitsandbytes"}, []string{`--quantization "bitsandbytes" is not supported`}},
		{"quantization vs checkpoint", Config{Model: r1, TensorParallelSize: 8, Quantization: "mxfp4"},
			[]string{"--quantization mxfp4 does not match the fp8 checkpoint of deepseek-r1"}},
		{"utilization", Config{Model: qwen, GPUMemoryUtilization: 1.5}, []string{"--gpu-memory-utilization must be in (0, 1], got 1.5"}},
		{"max model len", Config{Model: qwen, MaxModelLen: 100000}, []string{"--max-model-len 100000 exceeds the 40960 tokens qwen3-8b supports"}},
		{"batched tokens below seqs", Config{Model: qwen, MaxNumSeqs: 512, MaxNumBatchedTokens: 256},
			[]string{"--max-num-batched-tokens 256 is smaller than --max-num-seqs 512"}},
		{"block size", Config{Model: qwen, BlockSize: 24}, []string{"--block-size must be a positive multiple of 16, got 24"}},
		{"names", Config{Model: qwen, Router: "random", SchedulingPolicy: "sjf", Replicas: -1},
			[]string{`--router "random" is not supported`, `--scheduling-policy "sjf" is not supported`, "--replicas must be at least 1, got -1"}},
		{"speculative", Config{Model: qwen, Speculative: &SpeculativeConfig{Method: "medusa", NumSpeculativeTokens: 0}},
			[]string{`method "medusa" is not modelled`, "num_speculative_tokens 0 must be > 0"}},
		{"draft model profile", Config{Model: qwen, Speculative: &SpeculativeConfig{Method: SpecDraftModel, Model: "x/y", NumSpeculativeTokens: 2}},
			[]string{`method draft_model needs a profile for draft model "x/y"`}},
		{"bad acceptance", Config{Model: qwen, Speculative: &SpeculativeConfig{Method: SpecEagle, NumSpeculativeTokens: 2, AcceptanceRates: []float64{0.5, 0.7}}},
			[]string{"non-increasing"}},
		{"several at once", Config{Model: qwen, TensorParallelSize: 5, KVCacheDtype: "fp4", Replicas: -3},
			[]string{"--tensor-parallel-size 5", "--kv-cache-dtype", "--replicas must be at least 1, got -3"}},
		{"empty model", Config{}, []string{"layers, hidden_size, num_heads and vocab_size must be > 0", "memory_gib must be > 0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			if c.GPU.Name == "" && c.Model.Name != "" {
				c.GPU = simtest.GPU(t, "h100-sxm")
			}
			err := c.Resolve()
			if err == nil {
				t.Fatal("Resolve() = nil")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Resolve() = %q; want it to contain %q", err, w)
				}
			}
			if err.Error() != strings.ToLower(err.Error()[:1])+err.Error()[1:] {
				t.Errorf("error %q starts upper-case", err)
			}
		})
	}
}

// An NVFP4 checkpoint names an FP8 KV cache (ModelOpt's kv_cache_quant_algo),
// which "auto" takes from 0.14 (vllm#30785); an explicit dtype, an older
// release or another quantization leave the cache alone.
func TestNVFP4CheckpointKVDtype(t *testing.T) {
	base := Config{Model: simtest.Model(t, "kimi-k2.5"), GPU: simtest.GPU(t, "b200"), TensorParallelSize: 4, Quantization: "nvfp4"}
	for _, tc := range []struct {
		version, kv, quant, want string
	}{
		{"0.17.0", "", "nvfp4", "fp8"},
		{"0.14.0", "auto", "nvfp4", "fp8"},
		{"0.13.0", "", "nvfp4", "auto"},
		{"0.17.0", "bfloat16", "nvfp4", "bfloat16"},
		{"0.17.0", "", "", "auto"},
	} {
		c := base
		c.VLLMVersion, c.KVCacheDtype, c.Quantization = tc.version, tc.kv, tc.quant
		if err := c.Resolve(); err != nil {
			t.Fatal(err)
		}
		if c.KVCacheDtype != tc.want {
			t.Errorf("vLLM %s, --kv-cache-dtype %q, --quantization %q: cache %q; want %q", tc.version, tc.kv, tc.quant, c.KVCacheDtype, tc.want)
		}
	}
}

// --quantization nvfp4 on an MoE profile whose own checkpoint is fp8 is
// NVIDIA's NVFP4 checkpoint of it (nvidia/MiniMax-M2.5-NVFP4), not a
// mismatch; any other method that contradicts the checkpoint still is.
func TestNVFP4CheckpointOfFP8MoE(t *testing.T) {
	c := Config{Model: simtest.Model(t, "minimax-m2.5"), GPU: simtest.GPU(t, "b200"), TensorParallelSize: 2, Quantization: "nvfp4"}
	if err := c.Resolve(); err != nil {
		t.Fatalf("minimax-m2.5 --quantization nvfp4: %v", err)
	}
	if expertDtype(&c) != "nvfp4" || linearDtype(&c) != "bf16" {
		t.Errorf("MiniMax-M2.5-NVFP4: experts %q, attention %q; want nvfp4 and bf16", expertDtype(&c), linearDtype(&c))
	}
	c = Config{Model: simtest.Model(t, "minimax-m2.5"), GPU: simtest.GPU(t, "b200"), TensorParallelSize: 2, Quantization: "awq"}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "does not match the fp8 checkpoint") {
		t.Errorf("minimax-m2.5 --quantization awq: %v; want a checkpoint mismatch", err)
	}
}
