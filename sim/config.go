package sim

import (
	"github.com/thinkcap/thinkcap/profiles"
)

// Config is one deployment: a model on GPUs with vLLM's engine flags, times
// Replicas behind a router. Field names follow `vllm serve`'s flags. Zero
// values mean vLLM's default (see Resolve).
type Config struct {
	Model profiles.Model
	GPU   profiles.GPU

	TensorParallelSize   int     // --tensor-parallel-size
	PipelineParallelSize int     // --pipeline-parallel-size, default 1 (pipeline.go)
	KVCacheDtype         string  // --kv-cache-dtype: auto, fp8, fp8_e4m3, fp8_e5m2, ...
	Quantization         string  // --quantization: "", fp8, mxfp4, nvfp4, awq, gptq
	GPUMemoryUtilization float64 // --gpu-memory-utilization, default 0.92
	MaxNumSeqs           int     // --max-num-seqs, default by GPU memory
	MaxNumBatchedTokens  int     // --max-num-batched-tokens, default by GPU memory
	MaxModelLen          int     // --max-model-len, default the model's
	BlockSize            int     // --block-size, default the attention backend's
	// EnablePrefixCaching is vLLM's default (on) unless DisablePrefixCaching.
	DisablePrefixCaching bool
	NumGPUBlocksOverride int    // --num-gpu-blocks-override: always wins
	KVCacheMemoryBytes   int64  // --kv-cache-memory-bytes: skips memory profiling
	SchedulingPolicy     string // --scheduling-policy: fcfs (default) or priority
	// FlashInferSampler: the server samples top-k/top-p with FlashInfer's
	// kernels (VLLM_USE_FLASHINFER_SAMPLER=1, or an install where vLLM picks
	// them: its startup log prints "Using FlashInfer for top-p & top-k
	// sampling"), whose profile-run warm-up holds less (memory.go).
	FlashInferSampler bool
	// EnableExpertParallel is --enable-expert-parallel: each MoE layer's
	// experts are placed whole on the TP ranks (E/tp each) instead of every
	// expert sharded over them; the step waits for the rank its tokens
	// load most (stepmodel.go expertsEP).
	EnableExpertParallel bool
	// LongPrefillTokenThreshold caps one request's prefill chunk (0: off).
	LongPrefillTokenThreshold int
	// VLLMVersion is --vllm-version: the release whose startup memory
	// profile sizes the KV cache (memory.go; default DefaultVLLMVersion).
	VLLMVersion string
	// AsyncScheduling is --async-scheduling (true) or --no-async-scheduling
	// (false); nil takes the release's default (asyncScheduling).
	AsyncScheduling *bool
	// EnforceEager is --enforce-eager: no CUDA graphs, every step's
	// kernels launched one by one (cudagraph.go).
	EnforceEager bool
	// MaxCUDAGraphCaptureSize is --max-cudagraph-capture-size
	// (--cuda-graph-sizes before 0.11.1): the largest step, in tokens, a
	// CUDA graph is captured for; 0 takes the release's default
	// (cudagraph.go).
	MaxCUDAGraphCaptureSize int
	// EntryPoint is how vLLM is started: api_server (`vllm serve`, the
	// default) or llm (the LLM class, `vllm bench throughput`), whose batch
	// defaults differ (vllm/engine/arg_utils.py get_batch_defaults) and
	// which has no API server, only its tokenizer (frontend.go).
	EntryPoint string

	// Env is the server's environment variables that select kernels
	// (VLLM_MXFP4_USE_MARLIN=1, VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1, …:
	// kernels.go); nil takes each release's defaults.
	Env map[string]string

	Speculative *SpeculativeConfig // --speculative-config; nil when off
	// DraftModel is the profile of Speculative.Model for method draft_model.
	DraftModel *profiles.Model

	// Step is the step-time model's coefficients (the GPU profile's, merged
	// with a --step-model file).
	Step profiles.StepCoefficients

	// APIServerCount is --api-server-count: the API server processes of
	// each replica, which share its requests' front-end work (frontend.go).
	APIServerCount int
	Replicas       int    // --replicas, default 1
	Router         string // round-robin (default), least-requests, least-kv
	Seed           int64  // --seed
	// TimelineIntervalS is the simulated interval between timeline samples.
	TimelineIntervalS float64
}

// SpeculativeConfig is vLLM's --speculative-config JSON plus the acceptance
// model thinkcap needs (vllm/config/speculative.py SpeculativeConfig).
type SpeculativeConfig struct {
	Method               string `json:"method"`
	Model                string `json:"model,omitempty"`
	NumSpeculativeTokens int    `json:"num_speculative_tokens"`
	// AcceptanceRates are per-position acceptance rates: AcceptanceRates[i] is
	// the fraction of verification steps in which draft position i was
	// accepted (vllm:spec_decode_num_accepted_tokens_per_pos / num_drafts).
	// They are non-increasing and of length NumSpeculativeTokens.
	AcceptanceRates []float64 `json:"-"`
}
