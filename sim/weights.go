package sim

import (
	"math"

	"github.com/thinkcap/thinkcap/profiles"
)

// This file is what a GPU holds besides the KV cache: the weights, and the
// memory vLLM's startup profile charges against gpu_memory_utilization
// (vllm/v1/worker/gpu_worker.py determine_available_memory).

const bytesPerGiB = 1 << 30

// paramSplit splits a model's parameters by how they are stored and read.
type paramSplit struct {
	embed     float64 // input embedding, vocab × hidden
	lmHead    float64 // output projection, vocab × hidden; 0 when tied
	dense     float64 // non-embedding parameters outside the routed experts
	expert    float64 // one routed expert of one layer: gate, up and down projections
	moeLayers int     // layers with routed experts
}

// modelParams derives the split from the profile. The number of MoE layers
// is not in the profile when dense and MoE layers mix (DeepSeek: 3 dense +
// 58 MoE); it follows from the parameter counts, since the routed experts a
// token does not use are the only difference between total and active
// parameters: moeLayers = (total − active) / ((E − k) × expert), rounded and
// clamped to the layer count (gpt-oss quotes active without the input
// embedding, which the rounding absorbs).
func modelParams(m *profiles.Model) paramSplit {
	h, v := float64(m.HiddenSize), float64(m.VocabSize)
	p := paramSplit{embed: v * h, lmHead: v * h}
	if m.TiedEmbeddings {
		p.lmHead = 0
	}
	if m.IsMoE() {
		p.expert = 3 * h * float64(m.MoEIntermediateSize)
		p.moeLayers = m.Layers
		inactive := float64(m.NumExperts-m.ExpertsPerToken) * p.expert
		if m.IntermediateSize > 0 && m.ActiveParamsB > 0 && m.TotalParamsB > m.ActiveParamsB && inactive > 0 {
			n := int(math.Round((m.TotalParamsB - m.ActiveParamsB) * 1e9 / inactive))
			p.moeLayers = min(max(n, 1), m.Layers)
		}
	}
	total := m.TotalParamsB * 1e9
	if total <= 0 {
		total = p.embed + p.lmHead + p.routed(m) + estimateDense(m)
	}
	p.dense = max(total-p.embed-p.lmHead-p.routed(m), 0)
	return p
}

// estimateDense approximates the non-embedding, non-routed parameters from
// the architecture when the profile gives no parameter count: GQA attention
// (q, k, v, o) plus the dense FFN in every layer, or shared experts in MoE
// layers.
func estimateDense(m *profiles.Model) float64 {
	h, d := float64(m.HiddenSize), float64(m.HeadDim)
	attn := h*float64(m.NumHeads+2*m.NumKVHeads)*d + float64(m.NumHeads)*d*h
	ffn := 3 * h * float64(m.IntermediateSize)
	if m.IsMoE() {
		ffn = 3 * h * float64(m.MoEIntermediateSize*m.SharedExperts)
	}
	return float64(m.Layers) * (attn + ffn)
}

func (p paramSplit) routed(m *profiles.Model) float64 {
	return float64(p.moeLayers*m.NumExperts) * p.expert
}

// activeNonEmbedding is the weights one token passes through, without the
// embedding and LM head: 2 × this is the linear FLOPs per token.
func (p paramSplit) activeNonEmbedding(m *profiles.Model) float64 {
	return p.dense + float64(p.moeLayers*m.ExpertsPerToken)*p.expert
}

// dtypeBytes is the storage size of one weight (profiles.DtypeBytes: block
// formats include their scales, 4.25 bits for mxfp4, 4.5 for nvfp4); an
// empty or unknown dtype is bf16.
func dtypeBytes(dtype string) float64 {
	if b, ok := profiles.DtypeBytes(dtype); ok {
		return b
	}
	return 2
}

// linearDtype is the storage dtype of the linear layers outside the routed
// experts: --quantization quantizes a bf16 checkpoint online; a quantized
// checkpoint keeps its own. NVIDIA's NVFP4 checkpoint of an MoE model is
// the exception: ModelOpt quantizes the routed experts only and lists the
// attention layers (and, for Kimi, the shared experts and the dense layer)
// in hf_quant_config.json's exclude_modules, exported in bf16
// (nvidia/Kimi-K2.5-NVFP4, DeepSeek-R1-0528-NVFP4, MiniMax-M2.5-NVFP4).
func linearDtype(c *Config) string {
	if c.nvfp4MoE() {
		return "bf16"
	}
	if c.Quantization != "" && checkpointQuantization(&c.Model) == "" {
		return c.Quantization
	}
	return c.Model.WeightDtype
}

// expertDtype is the routed experts' dtype: the profile's (gpt-oss ships
// mxfp4 experts in an otherwise bf16 checkpoint; Kimi-K2.5 INT4 ones),
// unless --quantization names another checkpoint of the model (NVIDIA's
// Kimi-K2.5-NVFP4 re-quantizes the experts to NVFP4).
func expertDtype(c *Config) string {
	if q := c.Quantization; q != "" && q != checkpointQuantization(&c.Model) && c.Model.IsMoE() {
		return q
	}
	if c.Model.ExpertWeightDtype != "" {
		return c.Model.ExpertWeightDtype
	}
	return linearDtype(c)
}

// nvfp4MoE reports whether c serves NVIDIA's NVFP4 checkpoint of an MoE
// model. NVIDIA re-quantizes MoE models whatever their base checkpoint
// (Kimi-K2.5's INT4 experts, MiniMax-M2.5's and DeepSeek-R1's fp8), so
// --quantization nvfp4 names that checkpoint (the profile's alias) rather
// than contradicting the profile's own.
func (c *Config) nvfp4MoE() bool { return c.Quantization == "nvfp4" && c.Model.IsMoE() }

// weightBytesPerGPU is the target model's weights on one GPU: embedding and
// LM head in bf16 (vocab-parallel, never quantized by vLLM's fp8/mxfp4
// methods), the rest in its dtype, MXFP4 experts as their backend pads
// them (mxfp4.go), all sharded over TP (experts too: TP
// shards each expert's width; expert parallelism would shard the experts
// instead, for the same bytes). Norms, routers and biases are counted with
// the linear layers, and KV-head replication when TP exceeds the KV heads is
// ignored: both are well under 1 % of the weights.
func weightBytesPerGPU(c *Config, p paramSplit) float64 {
	tp := float64(c.TensorParallelSize)
	return ((p.embed+p.lmHead)*2 + p.dense*dtypeBytes(linearDtype(c)) +
		p.routed(&c.Model)*dtypeBytes(expertDtype(c))*expertStorageFactor(c)) / tp
}

// drafterWeightBytesPerGPU is the speculative drafter's weights on one GPU.
// EAGLE heads are one decoder layer (the target's average active layer) plus
// the fc that fuses the target's hidden states (2 or, for EAGLE-3, 3 hidden
// states into one), in bf16, sharing the target's embedding and LM head. An
// MTP module is a full layer of the target (all its experts) plus a 2h→h
// projection, in the checkpoint's dtypes. A draft model brings all its
// weights, sharded like the target. ngram and suffix have none.
func drafterWeightBytesPerGPU(c *Config, p paramSplit) float64 {
	s := c.Speculative
	if s == nil {
		return 0
	}
	m := &c.Model
	h, tp, layers := float64(m.HiddenSize), float64(c.TensorParallelSize), float64(m.Layers)
	switch s.Method {
	case SpecEagle, SpecEagle3:
		fc := 2 * h * h
		if s.Method == SpecEagle3 {
			fc = 3 * h * h
		}
		return (p.activeNonEmbedding(m)/layers + fc) * 2 / tp
	case SpecMTP:
		layer := p.dense/layers*dtypeBytes(linearDtype(c)) +
			float64(m.NumExperts)*p.expert*dtypeBytes(expertDtype(c)) + 2*h*h*2
		return float64(max(m.MTPLayers, 1)) * layer / tp
	case SpecDraftModel:
		if c.DraftModel == nil {
			return 0
		}
		d := &Config{Model: *c.DraftModel, TensorParallelSize: c.TensorParallelSize}
		return weightBytesPerGPU(d, modelParams(c.DraftModel))
	}
	return 0
}

// The overheads of vLLM's startup profile. Derivation from the two
// end-to-end anchors of testdata/vllm/kv-capacity-datapoints.md:
//
//	S4 Qwen3-8B, A100-40GB (39.39 GiB), TP1, util 0.9, 8192 tokens/256 seqs:
//	  requested ceil(39.39 × 0.9) = 35.45 GiB − weights 15.26 − logged KV 19.20
//	  = 0.99 GiB for activations + non-torch memory.
//	S1 Qwen3-VL-235B-A22B FP8, B200 (178.36 GiB), TP4, util 0.9, 8192/1024:
//	  160.52 − logged weights 56.04 − logged KV 96.48 = 8.00 GiB.
//
// Both logs predate the CUDA-graph estimate (v0.21), so neither contains it.
// S4: the sampler run dominates (below): 24 B × 256 × 151,936 = 0.87 GiB,
// plus the kept hidden states (0.06 GiB) and 0.15 GiB non-torch = 1.08 GiB,
// 0.09 GiB above the anchor (-0.4 % of the KV pool). S1 with the same terms
// gives 3.48 + 0.06 + 1.15 = 4.69 GiB. The other 3.3 GiB, and the 1.0 GiB of
// weights the log shows beyond the text stack's 55.03 GiB, are Qwen3-VL's
// vision tower and its encoder profile (a 16,384-token image whose outputs
// stay cached through the text pass), which a text-only profile does not
// have: S1 end to end comes out 4.5 % high.
const (
	// The sampler's cost: the dummy sampler run on max_num_seqs rows of
	// vocab-wide logits (gpu_model_runner.py _dummy_sampler_run) holds fp32
	// logits (4 B), the top-k/top-p sort's fp32 values and int64 indices
	// (12 B), the softmax probabilities (4 B) and random sampling's
	// exponential noise (4 B) per logit (vllm/v1/sample/ops/
	// topk_topp_sampler.py forward_native, apply_top_k_top_p) before 0.17;
	// the bytes per logit are the release's (memory.go).
	// nonTorchBaseBytes: memory allocated outside PyTorch after vLLM's
	// baseline snapshot on one GPU (cuBLAS workspaces, kernel modules loaded
	// on first use); V0-era logs print "non_torch_memory takes" 0.05-0.2 GiB
	// at TP 1.
	nonTorchBaseBytes = 0.15 * bytesPerGiB
	// nonTorchPeer*Bytes: NCCL communicators' buffers (and NVLS buffers on
	// NVSwitch systems) plus vLLM's custom all-reduce IPC buffers when
	// TP > 1, as memory_profiling's non_torch_increase sees them
	// (vllm/utils/mem_utils.py; vllm/distributed/device_communicators/
	// custom_all_reduce.py registers its IPC buffers only over NVLink),
	// per peer GPU of the TP group. With NVLink SHARP (NVSwitch parts of
	// 900 GB/s and up: H100, H200, B200) 0.6 GiB a peer: corpus R-28 (TP 2,
	// 0.75 GiB), H100 logs at TP 4 (about 2.1 GiB) and
	// (TP 8, 4.4 GiB), each requested − weights − available KV − the
	// modelled activation peak. A100 NVLink 0.12 GiB a peer, an estimate
	// no corpus row tests (R-03/R-04, once read as NVLink, log no GPU
	// peer-to-peer: they are PCIe rows); PCIe 0.01 (I-21, L40S TP 8, logs
	// "0.21 GiB for non-torch memory"; within 0.5 GiB, the
	// FlashInfer sampler their log names).
	nonTorchPeerNVLSBytes   = 0.6 * bytesPerGiB
	nonTorchPeerNVLinkBytes = 0.12 * bytesPerGiB
	nonTorchPeerPCIeBytes   = 0.01 * bytesPerGiB
	nvlinkGBps, nvlsGBps    = 300, 900
	// cudaGraphSharedBytes is the first graph's pool in vLLM's CUDA-graph
	// estimate (gpu_model_runner.py profile_cudagraph_memory); the marginal
	// cost of each further graph is the release's (memory.go).
	cudaGraphSharedBytes = 256 << 20
)

// activationPeakBytes is the transient peak of the profile run
// (gpu_model_runner.py profile_run): the larger of the dummy forward pass on
// max_num_batched_tokens tokens and the dummy sampler run on max_num_seqs
// rows (× 1+K with speculative decoding, for the rejection sampler's
// logits) while the pass's hidden states are still held. The forward peak
// is the residual stream and normed input (2 × hidden) plus the widest
// intermediate of a layer: the FFN's gate/up output and activation (3 ×
// intermediate / TP), or for MoE the top-k copies of each token's input and
// expert intermediates, or the attention projections, in bf16.
func activationPeakBytes(c *Config, p paramSplit) float64 {
	m := &c.Model
	tp := float64(c.TensorParallelSize)
	h := float64(m.HiddenSize)
	width := float64(m.NumHeads+2*max(m.NumKVHeads, 1)+m.NumHeads) * float64(max(m.HeadDim, 1)) / tp
	width = max(width, 3*float64(m.IntermediateSize)/tp)
	if m.IsMoE() {
		mi := float64(m.MoEIntermediateSize)
		width = max(width, float64(m.ExpertsPerToken)*(3*mi/tp+h)+3*mi*float64(m.SharedExperts)/tp)
	}
	tokens := float64(c.MaxNumBatchedTokens)
	forward := tokens * 2 * (2*h + width)
	rows := min(c.MaxNumSeqs*(1+specTokens(c)), c.MaxNumBatchedTokens)
	sampler := float64(rows)*float64(m.VocabSize)*c.samplerBytesPerLogit() + tokens*h*2
	return max(forward, sampler)
}

// nonTorchBytes is memory vLLM's profile sees outside PyTorch's allocator.
func nonTorchBytes(c *Config) float64 {
	peers := float64(c.TensorParallelSize - 1)
	switch {
	case c.TensorParallelSize <= 1:
		return nonTorchBaseBytes
	case c.GPU.InterconnectGBps >= nvlsGBps:
		return nonTorchBaseBytes + peers*nonTorchPeerNVLSBytes
	case c.GPU.InterconnectGBps >= nvlinkGBps:
		return nonTorchBaseBytes + peers*nonTorchPeerNVLinkBytes
	}
	return nonTorchBaseBytes + peers*nonTorchPeerPCIeBytes
}

// cudaGraphBytes is vLLM's CUDA-graph memory estimate, subtracted from the
// KV budget by default since v0.21 (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS;
// memory.go says per release whether it is).
// With the default FULL_AND_PIECEWISE mode vLLM captures one PIECEWISE graph
// per capture size up to max_cudagraph_capture_size = min(2 × max_num_seqs ×
// (1+K), 512, max_num_batched_tokens), and one FULL decode graph per size up
// to max_num_seqs × (1+K). Capture sizes are 1, 2, 4, 8..248 by 8, 256..512
// by 16 (vllm/config/vllm.py _set_cudagraph_sizes); --max-cudagraph-capture-size
// sets the largest, and --enforce-eager captures none (cudagraph.go).
func cudaGraphBytes(c *Config) float64 {
	if c.EnforceEager {
		return 0 // no graphs captured
	}
	q := 1 + specTokens(c)
	maxSize := min(2*c.MaxNumSeqs*q, 512, c.MaxNumBatchedTokens)
	if c.MaxCUDAGraphCaptureSize > 0 {
		maxSize = min(c.MaxCUDAGraphCaptureSize, c.MaxNumBatchedTokens)
	}
	graphs := captureSizesUpTo(maxSize) + captureSizesUpTo(min(c.MaxNumSeqs*q, maxSize))
	if graphs == 0 {
		return 0
	}
	return cudaGraphSharedBytes + float64(graphs-1)*c.memory().cudaGraphBytesPerGraph
}

func captureSizesUpTo(n int) int {
	count := 0
	for _, s := range []int{1, 2, 4} {
		if s <= n {
			count++
		}
	}
	for s := 8; s < 256 && s <= n; s += 8 {
		count++
	}
	for s := 256; s <= 512 && s <= n; s += 16 {
		count++
	}
	return count
}

func specTokens(c *Config) int {
	if c.Speculative == nil {
		return 0
	}
	return c.Speculative.NumSpeculativeTokens
}
