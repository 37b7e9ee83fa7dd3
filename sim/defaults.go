package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/thinkcap/thinkcap/profiles"
)

// vLLM's defaults for the flags Config mirrors.
const (
	// DefaultGPUMemoryUtilization is --gpu-memory-utilization's default
	// (vllm/config/cache.py; 0.92 since 2026-04-21, was 0.9).
	DefaultGPUMemoryUtilization = 0.92
	// DefaultBlockSize is CacheConfig.DEFAULT_BLOCK_SIZE (vllm/config/cache.py).
	DefaultBlockSize = 16
	// DefaultMLABlockSize is FlashMLA's only kernel block size, which
	// Platform.update_block_size_for_backend picks for MLA models on CUDA
	// (vllm/platforms/interface.py).
	DefaultMLABlockSize = 64
)

// KVCacheDtypes are the --kv-cache-dtype values thinkcap models
// (vllm/config/cache.py CacheDType; the others change the page layout).
var KVCacheDtypes = []string{"auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc"}

// Quantizations are the --quantization values thinkcap models ("" = none).
var Quantizations = []string{"", "fp8", "mxfp4", "nvfp4", "awq", "gptq"}

// SchedulingPolicies are vLLM's --scheduling-policy values.
var SchedulingPolicies = []string{"fcfs", "priority"}

// Routers are the replica routers thinkcap models.
var Routers = []string{"round-robin", "least-requests", "least-kv", RouterSessionAffinity}

// RouterSessionAffinity sends a follow-up call (a session's next turn, a
// gateway's second phase) to the replica that served the call before it,
// whose prefix cache holds that call's blocks, and a first call to the
// least loaded replica: the router llm-d and production gateways use.
const RouterSessionAffinity = "session-affinity"

// Resolve fills vLLM's defaults into c in place and validates it, reporting
// every problem at once (errors.Join). Defaults follow `vllm serve`
// (UsageContext.OPENAI_API_SERVER). Step takes any zero coefficient from the
// GPU profile's; the step coefficients themselves are checked by
// NewStepModel.
func (c *Config) Resolve() error {
	m, g := &c.Model, &c.GPU
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	// check collects a flag's error against vLLM's bounds (flags.go).
	check := func(err error) bool {
		if err != nil {
			errs = append(errs, err)
		}
		return err == nil
	}

	if m.Layers <= 0 || m.HiddenSize <= 0 || m.NumHeads <= 0 || m.VocabSize <= 0 {
		bad("model %q: layers, hidden_size, num_heads and vocab_size must be > 0", m.Name)
	}
	if !m.IsMLA() && (m.NumKVHeads <= 0 || m.HeadDim <= 0) {
		bad("model %q: num_kv_heads and head_dim must be > 0", m.Name)
	}
	if g.MemoryGiB <= 0 {
		bad("gpu %q: memory_gib must be > 0", g.Name)
	}

	// Parallelism (vllm/config/parallel.py, model.py verify_with_parallel_config).
	if c.TensorParallelSize == 0 {
		c.TensorParallelSize = 1
	}
	tp := c.TensorParallelSize
	switch {
	case !check(CheckFlag("tensor-parallel-size", float64(tp))):
	case m.NumHeads > 0 && m.NumHeads%tp != 0:
		bad("--tensor-parallel-size %d does not divide the %d attention heads of %s", tp, m.NumHeads, m.Name)
	case !m.IsMLA() && m.NumKVHeads > 0 && m.NumKVHeads%tp != 0 && tp%m.NumKVHeads != 0:
		// QKVParallelLinear shards KV heads, or replicates them when TP exceeds them.
		bad("--tensor-parallel-size %d neither divides nor is a multiple of the %d KV heads of %s", tp, m.NumKVHeads, m.Name)
	}
	c.resolvePipeline(&errs)

	// The release's memory model (memory.go) and entry point.
	if c.VLLMVersion == "" {
		c.VLLMVersion = DefaultVLLMVersion
	}
	if _, err := ParseVLLMVersion(c.VLLMVersion); err != nil {
		errs = append(errs, err)
	}
	mem := c.memory()
	if c.EntryPoint == "" {
		c.EntryPoint = "api_server"
	}
	check(CheckFlagChoice("entry-point", c.EntryPoint))

	// Cache (vllm/config/cache.py).
	if c.KVCacheDtype == "" {
		c.KVCacheDtype = "auto"
	}
	if c.KVCacheDtype == "auto" && c.checkpointQuantizesKV() {
		c.KVCacheDtype = "fp8"
	}
	check(CheckFlagChoice("kv-cache-dtype", c.KVCacheDtype))
	if c.GPUMemoryUtilization == 0 {
		c.GPUMemoryUtilization = mem.gpuMemoryUtilization
	}
	check(CheckFlag("gpu-memory-utilization", c.GPUMemoryUtilization))
	if c.BlockSize == 0 {
		c.BlockSize = DefaultBlockSize
		if m.IsMLA() {
			c.BlockSize = DefaultMLABlockSize
		}
	}
	check(CheckFlag("block-size", float64(c.BlockSize)))
	// 0: not given (the computed capacity, the profiled memory).
	if c.NumGPUBlocksOverride != 0 {
		check(CheckFlag("num-gpu-blocks-override", float64(c.NumGPUBlocksOverride)))
	}
	if c.KVCacheMemoryBytes != 0 {
		check(CheckFlag("kv-cache-memory-bytes", float64(c.KVCacheMemoryBytes)))
	}
	if c.MaxCUDAGraphCaptureSize != 0 {
		check(CheckFlag("max-cudagraph-capture-size", float64(c.MaxCUDAGraphCaptureSize)))
	}

	// A quantized checkpoint named by its id (Qwen/Qwen3-8B-AWQ) brings
	// its weight format, as its quantization_config does in vLLM; a given
	// --quantization chooses among the formats the id may mean and must
	// not contradict it.
	if ck := &m.Checkpoint; ck.Format != "" {
		switch {
		case c.Quantization == "":
			c.Quantization = ck.Format
		case !slices.Contains(ck.Accepts, c.Quantization):
			bad("--quantization %s contradicts --model %s, whose name says %s weights (%s): drop --quantization or pass the base model",
				c.Quantization, ck.ID, strings.Join(ck.Accepts, " or "), ck.Scheme)
		}
	}
	// Quantization: the checkpoint's own method must match a given one
	// (vllm/config/model.py _verify_quantization); NVFP4 on an MoE model is
	// NVIDIA's own checkpoint of it (nvfp4MoE).
	if ck := checkpointQuantization(m); check(CheckFlagChoice("quantization", c.Quantization)) && ck != "" && c.Quantization != "" && c.Quantization != ck && !c.nvfp4MoE() {
		bad("--quantization %s does not match the %s checkpoint of %s", c.Quantization, ck, m.Name)
	}

	// Model length (vllm/config/model.py _get_and_verify_max_len; vLLM allows
	// more only with VLLM_ALLOW_LONG_MAX_MODEL_LEN).
	if c.MaxModelLen == 0 {
		c.MaxModelLen = m.MaxModelLen
	}
	switch {
	case c.MaxModelLen == 0:
		bad("--max-model-len: model %s gives no context length; pass one", m.Name)
	case !check(CheckFlag("max-model-len", float64(c.MaxModelLen))):
	case m.MaxModelLen > 0 && c.MaxModelLen > m.MaxModelLen:
		bad("--max-model-len %d exceeds the %d tokens %s supports", c.MaxModelLen, m.MaxModelLen, m.Name)
	}

	c.resolveBatchLimits(&errs)

	check(CheckFlag("long-prefill-token-threshold", float64(c.LongPrefillTokenThreshold)))
	if c.SchedulingPolicy == "" {
		c.SchedulingPolicy = "fcfs"
	}
	check(CheckFlagChoice("scheduling-policy", c.SchedulingPolicy))
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.APIServerCount == 0 {
		c.APIServerCount = 1
	}
	check(CheckFlag("api-server-count", float64(c.APIServerCount)))
	check(CheckFlag("replicas", float64(c.Replicas)))
	if c.Router == "" {
		c.Router = "round-robin"
	}
	check(CheckFlagChoice("router", c.Router))
	if c.TimelineIntervalS == 0 {
		c.TimelineIntervalS = 1
	}
	if !(c.TimelineIntervalS > 0) {
		bad("timeline interval %v s must be > 0", c.TimelineIntervalS)
	}

	if s := c.Speculative; s != nil {
		if err := s.Validate(); err != nil {
			errs = append(errs, err)
		} else if s.AcceptanceRates == nil {
			s.AcceptanceRates = DefaultAcceptance(s.Method, s.NumSpeculativeTokens)
		}
		if s.Method == SpecDraftModel && c.DraftModel == nil {
			bad("--speculative-config: method draft_model needs a profile for draft model %q", s.Model)
		}
	}

	// A config without step coefficients takes the GPU profile's; one with
	// them keeps every one, zeros included (a fitted coefficient may be 0).
	if c.Step == (profiles.StepCoefficients{}) {
		c.Step = g.Step
	}
	if c.Step.EagerLaunchUs == 0 {
		c.Step.EagerLaunchUs = profiles.DefaultEagerLaunchUs // its meaning when unset
	}
	return errors.Join(errs...)
}

// resolveBatchLimits sets --max-num-seqs and --max-num-batched-tokens
// (vllm/engine/arg_utils.py get_batch_defaults and
// _set_default_max_num_seqs_and_batched_tokens_args): the
// OPENAI_API_SERVER (or LLM_CLASS) defaults by device memory, the ≥ 160 GiB
// row only from the release that added it (memory.go), then the clamps vLLM applies
// to defaulted values only; then SchedulerConfig.verify_max_model_len.
func (c *Config) resolveBatchLimits(errs *[]error) {
	llm := c.EntryPoint == "llm"
	tokens, seqs := 2048, 256
	if llm {
		tokens = 8192
	}
	switch name := strings.ToLower(c.GPU.Name + " " + c.GPU.Description); {
	case c.GPU.MemoryGiB >= 160 && c.memory().largeGPUBatchDefaults:
		tokens, seqs = 16384, 1024
	case c.GPU.MemoryGiB >= 70 && !strings.Contains(name, "a100"):
		tokens, seqs = 8192, 1024
		if llm {
			tokens = 16384
		}
	}
	defaultTokens, defaultSeqs := c.MaxNumBatchedTokens == 0, c.MaxNumSeqs == 0
	if defaultSeqs {
		c.MaxNumSeqs = seqs
	}
	if defaultTokens {
		c.MaxNumBatchedTokens = tokens
		if c.MaxModelLen > 0 && c.MaxNumSeqs > 0 {
			c.MaxNumBatchedTokens = int(min(int64(c.MaxNumSeqs)*int64(c.MaxModelLen), int64(tokens)))
		}
	}
	if defaultSeqs {
		c.MaxNumSeqs = min(c.MaxNumSeqs, c.MaxNumBatchedTokens)
	}
	seqsErr := CheckFlag("max-num-seqs", float64(c.MaxNumSeqs))
	tokensErr := CheckFlag("max-num-batched-tokens", float64(c.MaxNumBatchedTokens))
	switch {
	case seqsErr != nil:
		*errs = append(*errs, seqsErr)
		if !defaultTokens && tokensErr != nil {
			*errs = append(*errs, tokensErr) // the user's own, not one derived from the bad --max-num-seqs
		}
	case tokensErr != nil:
		*errs = append(*errs, tokensErr)
	case c.MaxNumBatchedTokens < c.MaxNumSeqs:
		*errs = append(*errs, fmt.Errorf("--max-num-batched-tokens %d is smaller than --max-num-seqs %d; raise it or lower --max-num-seqs",
			c.MaxNumBatchedTokens, c.MaxNumSeqs))
	}
}

// checkpointQuantization is the quantization method baked into the model's
// checkpoint (its quantization_config), or "".
func checkpointQuantization(m *profiles.Model) string {
	switch {
	case m.WeightDtype == "fp8":
		return "fp8"
	case m.ExpertWeightDtype == "mxfp4" || m.WeightDtype == "mxfp4":
		return "mxfp4"
	case m.WeightDtype == "nvfp4":
		return "nvfp4"
	case m.WeightDtype == "awq", m.WeightDtype == "gptq":
		return m.WeightDtype
	}
	return ""
}

// checkpointQuantizesKV reports whether "auto" means an FP8 KV cache: an
// NVFP4 checkpoint is ModelOpt's, whose hf_quant_config.json names
// kv_cache_quant_algo FP8 (NVIDIA's Kimi-K2.5, DeepSeek-R1, MiniMax-M2.5,
// GLM-4.7 and Qwen3 NVFP4 checkpoints), and vLLM resolves "auto" to it when
// it builds the cache config (vllm/engine/arg_utils.py with
// vllm/utils/torch_utils.py resolve_kv_cache_dtype_string;
// vllm-project/vllm#30785, merged 2025-12-16, after 0.13's branch: taken as
// first released in 0.14.0). Before it, "auto" kept the model's dtype.
func (c *Config) checkpointQuantizesKV() bool {
	return c.Quantization == "nvfp4" && !c.release().Before(VLLMVersion{0, 14, 0})
}
