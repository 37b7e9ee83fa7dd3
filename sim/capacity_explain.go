package sim

import (
	"fmt"
	"strings"
)

// CapacityBudget is the memory budget behind a capacity, term by term in
// the order vLLM's startup log gives them (gpu_worker.py
// determine_available_memory, gpu_model_runner.py's CUDA-graph lines,
// kv_cache_utils.py's KV cache lines), so that a user can lay it beside a
// log and see which line differs. Bytes are per GPU. It is `thinkcap
// capacity --explain -o json`.
type CapacityBudget struct {
	VLLMVersion          string  `json:"vllm_version"`
	MemoryModel          string  `json:"memory_model"` // the release range (memory.go)
	TotalBytes           int64   `json:"total_bytes"`  // the GPU's memory
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	RequestedBytes       int64   `json:"requested_bytes"` // ceil(total × utilisation)
	WeightBytes          int64   `json:"weights_bytes"`   // "Model loading took"
	// MXFP4Backend is the MoE backend whose padding the MXFP4 experts'
	// bytes include (mxfp4.go), when the model has such experts.
	MXFP4Backend        string `json:"mxfp4_moe_backend,omitempty"`
	ActivationPeakBytes int64  `json:"activation_peak_bytes"` // "torch peak memory increase"
	NonTorchBytes       int64  `json:"non_torch_bytes"`
	CUDAGraphBytes      int64  `json:"cuda_graph_bytes"` // the estimate
	// CUDAGraphSubtracted: the estimate is taken off the budget (since
	// v0.21); before, the graphs are captured after the KV cache is sized.
	CUDAGraphSubtracted bool `json:"cuda_graph_subtracted"`
	// KVCacheMemoryBytesGiven: --kv-cache-memory-bytes replaced the profile.
	KVCacheMemoryBytesGiven bool    `json:"kv_cache_memory_bytes_given"`
	AvailableKVBytes        int64   `json:"available_kv_bytes"` // "Available KV cache memory"
	NumGPUBlocks            int     `json:"num_gpu_blocks"`
	BlockSize               int     `json:"block_size"`
	BlockBytes              int64   `json:"block_bytes"` // one block id over all layers
	KVCacheTokens           int64   `json:"kv_cache_tokens"`
	MaxModelLen             int     `json:"max_model_len"`
	MaxConcurrency          float64 `json:"max_concurrency"`
	MaxNumBatchedTokens     int     `json:"max_num_batched_tokens"` // the profile run's tokens
	MaxNumSeqs              int     `json:"max_num_seqs"`           // the sampler warm-up's rows
	FlashInferSampler       bool    `json:"flashinfer_sampler,omitempty"`
}

// Budget is c's memory budget for the resolved cfg it was computed from.
func (c Capacity) Budget(cfg *Config) CapacityBudget {
	b := CapacityBudget{
		VLLMVersion: cfg.VLLMVersion, MemoryModel: cfg.memory().name,
		TotalBytes: int64(cfg.GPU.MemoryGiB * bytesPerGiB), GPUMemoryUtilization: cfg.GPUMemoryUtilization,
		RequestedBytes: c.RequestedBytes, WeightBytes: c.WeightBytesPerGPU, MXFP4Backend: mxfp4BackendName(cfg), ActivationPeakBytes: c.ActivationBytes,
		NonTorchBytes: c.NonTorchBytes, CUDAGraphBytes: c.CUDAGraphBytes, CUDAGraphSubtracted: c.CUDAGraphSubtracted,
		KVCacheMemoryBytesGiven: cfg.KVCacheMemoryBytes > 0, AvailableKVBytes: c.AvailableKVBytes,
		NumGPUBlocks: c.NumGPUBlocks, BlockSize: c.BlockSize, KVCacheTokens: c.KVCacheTokens,
		MaxModelLen: cfg.MaxModelLen, MaxConcurrency: c.MaxConcurrency,
		MaxNumBatchedTokens: cfg.MaxNumBatchedTokens, MaxNumSeqs: cfg.MaxNumSeqs, FlashInferSampler: cfg.FlashInferSampler,
	}
	if pool, err := newKVPool(cfg, newKVGeometry(cfg)); err == nil {
		b.BlockBytes = pool.blockBytes
	}
	return b
}

// Explain is `thinkcap capacity --explain`: the budget one line a term,
// each with the vLLM log line it corresponds to, then the lines vLLM logs.
func (b CapacityBudget) Explain() string {
	var w strings.Builder
	gib := func(n int64) string { return fmt.Sprintf("%9.2f GiB", float64(n)/bytesPerGiB) }
	line := func(term string, n int64, note string) { fmt.Fprintf(&w, "  %-34s %s   %s\n", term, gib(n), note) }
	fmt.Fprintf(&w, "memory budget per GPU, vLLM %s (memory model: %s)\n", b.VLLMVersion, b.MemoryModel)
	if b.KVCacheMemoryBytesGiven {
		line("KV cache memory (given)", b.AvailableKVBytes, "--kv-cache-memory-bytes: no memory profile, utilisation ignored")
	} else {
		line("total GPU memory", b.TotalBytes, "the GPU's total memory (torch.cuda.mem_get_info)")
		line(fmt.Sprintf("× gpu_memory_utilization %g", b.GPUMemoryUtilization), b.RequestedBytes, "requested memory")
		weights := `"Model loading took … GiB memory"`
		if b.MXFP4Backend != "" {
			weights += ", MXFP4 experts as the " + b.MXFP4Backend + " MoE backend pads them"
		}
		line("− weights", b.WeightBytes, weights)
		sampler := "sampler"
		if b.FlashInferSampler {
			sampler = "FlashInfer's sampler"
		}
		line("− activation peak", b.ActivationPeakBytes, fmt.Sprintf("torch peak memory increase: dummy run of %d tokens, %s on %d rows", b.MaxNumBatchedTokens, sampler, b.MaxNumSeqs))
		line("− non-torch memory", b.NonTorchBytes, "non-torch increase (cuBLAS, NCCL, custom all-reduce)")
		if b.CUDAGraphSubtracted {
			line("− CUDA graphs (estimate)", b.CUDAGraphBytes, `"Estimated CUDA graph memory: … GiB total" (subtracted since 0.21)`)
		} else {
			line("  CUDA graphs (not subtracted)", b.CUDAGraphBytes, `captured after the KV cache is sized, from the memory above the utilisation ("Graph capturing finished … took … GiB")`)
		}
		line("= available KV cache memory", b.AvailableKVBytes, `"Available KV cache memory: … GiB"`)
	}
	fmt.Fprintf(&w, "  %-34s %9s       %s blocks of %d tokens, %s bytes a block over all layers\n", "KV blocks", "", thousands(int64(b.NumGPUBlocks)), b.BlockSize, thousands(b.BlockBytes))
	fmt.Fprintf(&w, "  %-34s %9s       %s tokens (%s tokens per request)\n", "GPU KV cache size", "", thousands(b.KVCacheTokens), thousands(int64(b.MaxModelLen)))
	fmt.Fprintf(&w, "  %-34s %9s       %.2fx\n", "maximum concurrency", "", b.MaxConcurrency)
	return w.String()
}
