package sim

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// This file is what changes between vLLM releases in the startup profile
// that sizes the KV cache: whether the CUDA-graph estimate is taken off the
// budget, the default --gpu-memory-utilization, and the batch defaults of
// large GPUs. --vllm-version selects the range.

// DefaultVLLMVersion is the vLLM release thinkcap models when --vllm-version
// is not given: the newest the capacity corpus (testdata/capacity) covers.
const DefaultVLLMVersion = "0.31.0"

// VLLMVersion is a vLLM release, major.minor.patch; pre-release and dev
// suffixes ("0.14.0rc2.dev160") are ignored.
type VLLMVersion struct{ Major, Minor, Patch int }

var vllmVersionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.(\d+))?`)

// ParseVLLMVersion reads "0.19.1", "v0.21" or "0.14.0rc2.dev160".
func ParseVLLMVersion(s string) (VLLMVersion, error) {
	m := vllmVersionRE.FindStringSubmatch(s)
	if m == nil {
		return VLLMVersion{}, fmt.Errorf("--vllm-version %q: want a release such as 0.19.1", s)
	}
	var v VLLMVersion
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, nil
}

func (v VLLMVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Before reports whether v is an earlier release than o.
func (v VLLMVersion) Before(o VLLMVersion) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// memoryModel is what one range of vLLM releases charges against the KV
// budget at startup beyond weights and activations.
type memoryModel struct {
	since VLLMVersion
	// name is the range as --explain prints it.
	name string
	// subtractCUDAGraphs: the CUDA-graph estimate is taken off the budget
	// before the KV cache is sized. Before v0.21 vLLM captures its graphs
	// after the KV cache is allocated, so they come out of the headroom
	// above gpu_memory_utilization instead (vllm/v1/worker/gpu_worker.py
	// determine_available_memory: available = requested − non_kv_cache_memory,
	// and compile_or_warm_up_model only logs the captured size). PR #30515
	// (vllm-project/vllm, 2025-12) added the estimate behind
	// VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, off; v0.21 turned it on
	// ("CUDA graph memory profiling is enabled (default since v0.21.0)",
	// gpu_worker.py).
	subtractCUDAGraphs bool
	// cudaGraphBytesPerGraph is the marginal cost of one more captured
	// graph (gpu_model_runner.py profile_cudagraph_memory: the second
	// graph's cost times the remaining graphs, on top of the first graph's
	// pool, cudaGraphSharedBytes). From v0.21, 8 MiB reproduces the
	// 0.36 GiB a 0.27.1 log prints for 16 PIECEWISE graphs (gpustack/runner
	// PR 251) and about half the older fit on an H100; before,
	// 16 MiB is the earlier fit (51 PIECEWISE + 35 FULL graphs → 1.58 GiB),
	// shown by --explain only, since it is not subtracted.
	cudaGraphBytesPerGraph float64
	// gpuMemoryUtilization is --gpu-memory-utilization's default
	// (vllm/config/cache.py: 0.9, 0.92 since v0.21, vllm PR #38284).
	gpuMemoryUtilization float64
	// largeGPUBatchDefaults: GPUs of 160 GiB and more (B200) get 16384
	// batched tokens under `vllm serve` (vllm/engine/arg_utils.py
	// get_batch_defaults, vllm PR #51726, 2026-08-11; the next release is
	// 0.28); before, they used the ≥ 70 GiB row.
	largeGPUBatchDefaults bool
	// asyncScheduling: async scheduling is on by default (vllm PR #27614,
	// 2025-12-29, first in 0.14), so a sliding window retains two batches
	// in flight (kv_cache_interface.py SlidingWindowSpec.max_memory_usage_bytes).
	asyncScheduling bool
	// tokensPerGroup: the "GPU KV cache size" line is num_blocks //
	// len(kv_cache_groups) × block_size (kv_cache_utils.py before vllm
	// 2026-04-28, taken as before 0.22); later it is max_concurrency ×
	// max_model_len. The two differ only for hybrid (sliding-window) pools.
	tokensPerGroup bool
	// samplerBytesPerLogit is what the sampler warm-up of the profile run
	// holds per logit (weights.go activationPeakBytes). Before 0.17, 24 B:
	// the fp32 logits, the top-k/top-p sort's fp32 values and int64
	// indices, the probabilities and the exponential noise (R-19/R-20,
	// vLLM 0.10.0 on H100 TP 8 at 1,024 rows, within 0.22 GiB). From 0.17,
	// 16 B, four fp32 logits-sized tensors and no sort: three 0.19.2 logs on
	// one H200 (corpus and R-32's model, 1,024 rows of 151,936 or
	// 151,552 logits, eager) leave 2.41-2.50 GiB beyond weights and KV at
	// two utilisations, which is 15.3 B a logit after the 0.15 GiB of
	// non-torch memory and the held hidden states; the capacity corpus's
	// logs show the cost per logit change between 0.15-0.16 and 0.17+.
	samplerBytesPerLogit float64
}

// flashInferSamplerBytesPerLogit is what the sampler warm-up holds per
// logit with FlashInfer's top-k/top-p sampling kernels, which sample from
// the probabilities without the torch path's sorted copy
// (vllm/v1/sample/ops/topk_topp_sampler.py: "Using FlashInfer for top-p &
// top-k sampling"): five vLLM 0.10.1.1 startup logs that print that line
// (corpus rows R-01..R-04, R-06: A100s, 256 rows of 152,064 or 201,088
// logits) leave 0.35-0.53 GiB beyond weights and KV where the torch
// sampler's 24 B would need 0.87 GiB and more; 12 B puts all five within
// 2 %. The one log of that install without the line fits 24 B.
const flashInferSamplerBytesPerLogit = 12

// samplerBytesPerLogit is the sampler warm-up's bytes per logit for c:
// FlashInfer's when c says the server runs it (FlashInferSampler), never
// more than the release's own figure.
func (c *Config) samplerBytesPerLogit() float64 {
	b := c.memory().samplerBytesPerLogit
	if c.FlashInferSampler {
		b = min(b, flashInferSamplerBytesPerLogit)
	}
	return b
}

// kvCacheTokens is the "GPU KV cache size" vLLM logs for cp.
func (m memoryModel) kvCacheTokens(cp Capacity, maxModelLen int) int64 {
	if m.tokensPerGroup {
		groups := max(cp.Layout.FullGroups+cp.Layout.SlidingGroups, 1)
		return int64(cp.NumGPUBlocks/groups) * int64(cp.BlockSize)
	}
	return int64(cp.MaxConcurrency * float64(maxModelLen))
}

// memoryModels are the ranges, oldest first.
var memoryModels = []memoryModel{
	{since: VLLMVersion{0, 0, 0}, name: "before 0.14 (CUDA graphs not subtracted, no async scheduling)",
		cudaGraphBytesPerGraph: 16 << 20, gpuMemoryUtilization: 0.9, tokensPerGroup: true, samplerBytesPerLogit: 24},
	{since: VLLMVersion{0, 14, 0}, name: "0.14-0.16 (CUDA graphs not subtracted)", asyncScheduling: true,
		cudaGraphBytesPerGraph: 16 << 20, gpuMemoryUtilization: 0.9, tokensPerGroup: true, samplerBytesPerLogit: 24},
	{since: VLLMVersion{0, 17, 0}, name: "0.17-0.20 (CUDA graphs not subtracted)", asyncScheduling: true,
		cudaGraphBytesPerGraph: 16 << 20, gpuMemoryUtilization: 0.9, tokensPerGroup: true, samplerBytesPerLogit: 16},
	{since: VLLMVersion{0, 21, 0}, name: "0.21 (CUDA-graph estimate subtracted)", subtractCUDAGraphs: true, asyncScheduling: true,
		cudaGraphBytesPerGraph: 8 << 20, gpuMemoryUtilization: 0.92, tokensPerGroup: true, samplerBytesPerLogit: 16},
	{since: VLLMVersion{0, 22, 0}, name: "0.22-0.27 (CUDA-graph estimate subtracted)", subtractCUDAGraphs: true, asyncScheduling: true,
		cudaGraphBytesPerGraph: 8 << 20, gpuMemoryUtilization: 0.92, samplerBytesPerLogit: 16},
	{since: VLLMVersion{0, 28, 0}, name: "0.28+ (CUDA-graph estimate subtracted, 160 GiB batch defaults)", subtractCUDAGraphs: true,
		asyncScheduling: true, cudaGraphBytesPerGraph: 8 << 20, gpuMemoryUtilization: 0.92, largeGPUBatchDefaults: true, samplerBytesPerLogit: 16},
}

// memoryModelFor is the range v falls in.
func memoryModelFor(v VLLMVersion) memoryModel {
	m := memoryModels[0]
	for _, r := range memoryModels[1:] {
		if !v.Before(r.since) {
			m = r
		}
	}
	return m
}

// memory is c's memory model: its release's range (release).
func (c *Config) memory() memoryModel { return memoryModelFor(c.release()) }

// release is c's vLLM release: --vllm-version, the default release when
// unset, and one newer than any when unreadable (Resolve reports that), so
// every release-dependent behaviour takes its newest form.
func (c *Config) release() VLLMVersion {
	s := c.VLLMVersion
	if s == "" {
		s = DefaultVLLMVersion
	}
	v, err := ParseVLLMVersion(s)
	if err != nil {
		return VLLMVersion{Major: math.MaxInt32}
	}
	return v
}

// EntryPoints are the ways vLLM is started that change its batch defaults:
// `vllm serve` (UsageContext.OPENAI_API_SERVER) and the offline LLM class,
// which `vllm bench throughput` and `bench latency` use (LLM_CLASS).
var EntryPoints = []string{"api_server", "llm"}
