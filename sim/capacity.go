package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/profiles"
)

// Capacity is the KV cache one replica gets at startup, computed the way vLLM
// computes it (vllm/v1/worker/gpu_worker.py determine_available_memory,
// vllm/v1/core/kv_cache_utils.py get_kv_cache_configs), with the memory
// terms behind it. Bytes are per GPU.
type Capacity struct {
	NumGPUBlocks int // blocks in the pool, including vLLM's null block
	BlockSize    int
	// KVBytesPerToken is the KV bytes one token takes on one GPU over all
	// full-attention layers (MLA layers and drafter layers included).
	KVBytesPerToken int64
	// KVCacheTokens and MaxConcurrency are what vLLM's startup log prints.
	KVCacheTokens  int64
	MaxConcurrency float64
	// BlocksPerMaxLenRequest is the blocks a request of max_model_len holds
	// at most, summed over KV cache groups.
	BlocksPerMaxLenRequest int
	Layout                 KVLayout
	AvailableKVBytes       int64 // "Available KV cache memory"
	WeightBytesPerGPU      int64 // model (and drafter) weights
	ActivationBytes        int64 // peak of the profile run
	CUDAGraphBytes         int64 // vLLM's CUDA-graph estimate
	NonTorchBytes          int64 // NCCL, cuBLAS, CUDA modules
	RequestedBytes         int64 // ceil(total × gpu_memory_utilization)

	// CUDAGraphSubtracted: the release takes CUDAGraphBytes off the KV
	// budget (since v0.21); before, the graphs are captured after the KV
	// cache is sized and only their size is logged.
	CUDAGraphSubtracted bool
	VLLMVersion         string // the release whose memory model applied
}

// kvGeometry is a deployment's KV layers and their bytes per token on one GPU.
type kvGeometry struct {
	layerBytes      int64 // per token per target attention layer
	fullLayers      int   // target full-attention (or MLA) layers
	slidingLayers   int   // target sliding-window layers
	window          int   // sliding window in tokens
	draftLayers     int   // drafter attention layers
	draftLayerBytes int64 // per token per drafter layer
}

// kvDtypeBytes is the bytes of one cached K or V element: "auto" is the
// model's activation dtype, bf16 even for fp8 checkpoints such as
// DeepSeek-R1 (vllm/utils/torch_utils.py STR_DTYPE_TO_TORCH_DTYPE).
func kvDtypeBytes(kvDtype string) int64 {
	if strings.HasPrefix(kvDtype, "fp8") {
		return 1
	}
	return 2
}

// layerTokenBytes is one layer's KV bytes per token on one GPU
// (vllm/v1/kv_cache_interface.py). Standard attention
// stores K and V for max(1, kv_heads / TP) heads (KV heads are replicated
// when TP exceeds them, vllm/config/model.py get_num_kv_heads); MLA stores
// one kv_lora_rank + qk_rope_head_dim latent, unsharded by TP.
func layerTokenBytes(m *profiles.Model, tp int, dtypeBytes int64) int64 {
	if m.IsMLA() {
		return int64(m.KVLoraRank+m.QKRopeHeadDim) * dtypeBytes
	}
	return 2 * int64(max(1, m.NumKVHeads/tp)*m.HeadDim) * dtypeBytes
}

func newKVGeometry(c *Config) kvGeometry {
	m := &c.Model
	b := kvDtypeBytes(c.KVCacheDtype)
	g := kvGeometry{layerBytes: layerTokenBytes(m, c.TensorParallelSize, b), fullLayers: m.Layers}
	if m.SlidingWindow > 0 && m.SlidingWindowLayers > 0 {
		g.slidingLayers = min(m.SlidingWindowLayers, m.Layers)
		g.fullLayers -= g.slidingLayers
		g.window = m.SlidingWindow
	}
	// Drafter attention layers draw on the same pool (gpu_model_runner.py
	// get_kv_cache_spec iterates every attention layer, drafter included).
	if s := c.Speculative; s != nil {
		switch s.Method {
		case SpecEagle, SpecEagle3:
			g.draftLayers, g.draftLayerBytes = 1, g.layerBytes
		case SpecMTP:
			g.draftLayers, g.draftLayerBytes = max(1, m.MTPLayers), g.layerBytes
		case SpecDraftModel:
			if d := c.DraftModel; d != nil {
				g.draftLayers, g.draftLayerBytes = d.Layers, layerTokenBytes(d, c.TensorParallelSize, b)
			}
		}
	}
	return g
}

// fullTokenBytes is the per-token KV bytes over all full-attention layers.
func (g kvGeometry) fullTokenBytes() int64 {
	return int64(g.fullLayers)*g.layerBytes + int64(g.draftLayers)*g.draftLayerBytes
}

// kvPoolShape is how the layers share the block pool.
type kvPoolShape struct {
	layout     KVLayout
	blockBytes int64 // memory of one block id: one page in every layer of a group
	geom       kvGeometry
	inFlight   int // tokens in flight that a sliding window must retain
}

// newKVPool groups the layers as vLLM's hybrid allocator does
// (kv_cache_utils.py _get_kv_cache_groups_uniform_page_size): with one
// attention type all layers form one group and a block id costs a page in
// every layer (differing drafter pages add up, as UniformTypeKVCacheSpecs);
// with full and sliding layers each type is split into groups of group_size
// layers, group_size = the smaller type's count, or the larger one when it
// is under 1.5× the smaller (gpt-oss-20b + EAGLE: 13 full + 12 sliding →
// groups of 13), and a block id costs group_size pages.
func newKVPool(c *Config, g kvGeometry) (kvPoolShape, error) {
	bs := c.BlockSize
	p := kvPoolShape{geom: g, layout: KVLayout{BlockSize: bs, FullGroups: 1}}
	if g.slidingLayers == 0 {
		p.blockBytes = int64(bs) * g.fullTokenBytes()
		return p, nil
	}
	if g.draftLayers > 0 && g.draftLayerBytes != g.layerBytes {
		return p, fmt.Errorf("a draft model with another KV page size than %s's sliding-window layers is not modelled", c.Model.Name)
	}
	// Async scheduling keeps two batches in flight
	// (vllm/v1/kv_cache_interface.py SlidingWindowSpec).
	// With PP the engine keeps PP batches in flight instead (pipeline.go).
	p.inFlight = c.MaxNumBatchedTokens * c.maxConcurrentBatches(c.asyncScheduling())
	full, sliding := g.fullLayers+g.draftLayers, g.slidingLayers
	size := sliding
	if full > 0 {
		lo, hi := min(full, sliding), max(full, sliding)
		size = lo
		if float64(hi) < 1.5*float64(lo) {
			size = hi
		}
	}
	p.layout.FullGroups = divUp(full, size)
	p.layout.SlidingGroups = divUp(sliding, size)
	p.layout.SlidingBlocksCap = p.slidingCap(c.MaxModelLen)
	p.layout.SlidingWindow = g.window
	p.blockBytes = int64(bs*size) * g.layerBytes
	return p, nil
}

// slidingCap is SlidingWindowSpec.max_memory_usage_bytes in blocks:
// divUp(min(window − 1 + in-flight tokens, max_model_len), block_size) + 1.
func (p kvPoolShape) slidingCap(maxLen int) int {
	return divUp(min(p.geom.window-1+p.inFlight, maxLen), p.layout.BlockSize) + 1
}

// blocksPerRequest is kv_cache_utils.py's num_blocks_per_request for a
// request of n tokens: the sum over groups of each group's maximum.
func (p kvPoolShape) blocksPerRequest(n int) int {
	b := divUp(n, p.layout.BlockSize) * p.layout.FullGroups
	if p.layout.SlidingGroups > 0 {
		b += p.slidingCap(n) * p.layout.SlidingGroups
	}
	return b
}

// neededBytes is the KV memory one request of n tokens needs over all real
// layers (kv_cache_utils.py check_enough_kv_cache_memory).
func (p kvPoolShape) neededBytes(n int) int64 {
	g, bs := p.geom, int64(p.layout.BlockSize)
	need := int64(divUp(n, p.layout.BlockSize)) * bs * g.fullTokenBytes()
	if g.slidingLayers > 0 {
		need += int64(p.slidingCap(n)) * bs * int64(g.slidingLayers) * g.layerBytes
	}
	return need
}

// ComputeCapacity computes the KV cache of a resolved Config. The memory
// left for KV is requested = ceil(total × gpu_memory_utilization) minus the
// weights, the profile run's activation peak, vLLM's CUDA-graph estimate (from v0.21, memory.go) and
// non-torch memory (weights.go); --kv-cache-memory-bytes replaces all that,
// and --num-gpu-blocks-override wins over any computed count (it is the
// number vLLM logs, so it is never second-guessed). The block count is
// floor(available / bytes of one block id) (kv_cache_utils.py get_num_blocks).
func ComputeCapacity(c *Config) (Capacity, error) {
	if c.BlockSize <= 0 || c.TensorParallelSize <= 0 || c.MaxModelLen <= 0 ||
		c.MaxNumBatchedTokens <= 0 || c.MaxNumSeqs <= 0 || c.GPUMemoryUtilization <= 0 {
		return Capacity{}, errors.New("capacity: config is not resolved (call Resolve first)")
	}
	geom := newKVGeometry(c)
	pool, err := newKVPool(c, geom)
	if err != nil {
		return Capacity{}, fmt.Errorf("capacity: %w", err)
	}
	p := modelParams(&c.Model)
	total := c.GPU.MemoryGiB * bytesPerGiB
	cp := Capacity{
		BlockSize:              c.BlockSize,
		KVBytesPerToken:        geom.fullTokenBytes(),
		BlocksPerMaxLenRequest: pool.blocksPerRequest(c.MaxModelLen),
		Layout:                 pool.layout,
		WeightBytesPerGPU:      int64(weightBytesPerGPU(c, p) + drafterWeightBytesPerGPU(c, p)),
		ActivationBytes:        int64(activationPeakBytes(c, p)),
		CUDAGraphBytes:         int64(cudaGraphBytes(c)),
		NonTorchBytes:          int64(nonTorchBytes(c)),
		RequestedBytes:         int64(math.Ceil(total * c.GPUMemoryUtilization)),
		CUDAGraphSubtracted:    c.memory().subtractCUDAGraphs,
		VLLMVersion:            c.VLLMVersion,
	}
	if c.KVCacheMemoryBytes > 0 {
		cp.AvailableKVBytes = c.KVCacheMemoryBytes
	} else {
		cp.AvailableKVBytes = cp.RequestedBytes - cp.WeightBytesPerGPU - cp.ActivationBytes - cp.NonTorchBytes
		if cp.CUDAGraphSubtracted {
			cp.AvailableKVBytes -= cp.CUDAGraphBytes
		}
	}
	if c.pipelineSize() > 1 { // each stage a worker; the poorest stage's pool (pipeline.go)
		if err := pipelineCapacity(c, p, pool, &cp, total); err != nil {
			return cp, fmt.Errorf("capacity: %s on %s: %w", c.Model.Name, c.GPU.Name, err)
		}
	}
	if c.NumGPUBlocksOverride > 0 {
		cp.NumGPUBlocks = c.NumGPUBlocksOverride
	} else if c.pipelineSize() == 1 {
		if err := cp.checkMemory(c, pool, total); err != nil {
			return cp, fmt.Errorf("capacity: %s on %s: %w", c.Model.Name, c.GPU.Name, err)
		}
		cp.NumGPUBlocks = int(cp.AvailableKVBytes / pool.blockBytes)
	}
	cp.MaxConcurrency = float64(cp.NumGPUBlocks) / float64(cp.BlocksPerMaxLenRequest)
	cp.KVCacheTokens = c.memory().kvCacheTokens(cp, c.MaxModelLen)
	return cp, nil
}

// checkMemory reports what vLLM refuses to start with: weights beyond the
// budget, no memory left for KV, or less KV than one max_model_len request
// needs (kv_cache_utils.py check_enough_kv_cache_memory, with vLLM's
// estimate of the longest length that fits).
func (cp Capacity) checkMemory(c *Config, pool kvPoolShape, total float64) error {
	if c.KVCacheMemoryBytes > 0 {
		if float64(cp.WeightBytesPerGPU+c.KVCacheMemoryBytes) > total {
			return fmt.Errorf("--kv-cache-memory-bytes %.2f GiB plus weights %.2f GiB exceed the GPU's %.2f GiB",
				float64(c.KVCacheMemoryBytes)/bytesPerGiB, float64(cp.WeightBytesPerGPU)/bytesPerGiB, total/bytesPerGiB)
		}
	} else if cp.WeightBytesPerGPU >= cp.RequestedBytes {
		return fmt.Errorf("weights need %.2f GiB per GPU, GPU has %.2f GiB (at --gpu-memory-utilization %v); raise --tensor-parallel-size or quantize",
			float64(cp.WeightBytesPerGPU)/bytesPerGiB, float64(cp.RequestedBytes)/bytesPerGiB, c.GPUMemoryUtilization)
	} else if cp.AvailableKVBytes <= 0 {
		return fmt.Errorf("no memory left for the KV cache: %.2f GiB requested (--gpu-memory-utilization %v) - weights %.2f - activations %.2f - CUDA graphs %.2f - non-torch %.2f GiB; raise --gpu-memory-utilization or lower --max-num-batched-tokens/--max-num-seqs",
			float64(cp.RequestedBytes)/bytesPerGiB, c.GPUMemoryUtilization, float64(cp.WeightBytesPerGPU)/bytesPerGiB,
			float64(cp.ActivationBytes)/bytesPerGiB, float64(cp.CUDAGraphBytes)/bytesPerGiB, float64(cp.NonTorchBytes)/bytesPerGiB)
	}
	need := pool.neededBytes(c.MaxModelLen)
	if need <= cp.AvailableKVBytes {
		return nil
	}
	lo, hi := 0, c.MaxModelLen // largest length whose request fits
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if pool.neededBytes(mid) <= cp.AvailableKVBytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return fmt.Errorf("to serve one request of --max-model-len %d, %.2f GiB KV cache is needed, which is larger than the available KV cache memory (%.2f GiB); the estimated maximum model length is %d: reduce --max-model-len or raise --gpu-memory-utilization",
		c.MaxModelLen, float64(need)/bytesPerGiB, float64(cp.AvailableKVBytes)/bytesPerGiB, lo)
}

// StartupLog renders the lines vLLM logs for this capacity
// (gpu_worker.py "Available KV cache memory", and kv_cache_utils.py's
// combined line since 2026-08-04), one per line.
func (c Capacity) StartupLog(maxModelLen int) string {
	return fmt.Sprintf("Available KV cache memory: %.2f GiB\nGPU KV cache size: %s tokens, Maximum concurrency for %s tokens per request: %.2fx\n",
		float64(c.AvailableKVBytes)/bytesPerGiB, thousands(c.KVCacheTokens), thousands(int64(maxModelLen)), c.MaxConcurrency)
}

// thousands formats n as Python's f"{n:,}".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func divUp(a, b int) int { return (a + b - 1) / b }
