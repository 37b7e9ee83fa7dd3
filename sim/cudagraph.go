package sim

// This file is CUDA graphs. vLLM captures the model's forward pass as CUDA
// graphs at startup, one per batch size of a capture list, and replays the
// smallest captured size that holds a step's tokens (padding the rest): a
// replay is one launch from the host where the pass itself launches every
// kernel of every layer (vllm/v1/cudagraph_dispatcher.py dispatches by the
// step's token count; the default mode since 0.11, FULL_AND_PIECEWISE,
// replays a full graph for decode steps and a piecewise one, attention
// outside, for mixed steps: vllm/config/compilation.py cudagraph_mode). A
// step of more tokens than the largest captured size runs without a graph,
// and --enforce-eager captures none (vllm/config/model.py enforce_eager;
// the V1 engine then also skips torch.compile: CompilationMode.NONE).
//
// Without a graph the host launches the pass's kernels one by one, each
// after PyTorch's dispatch and the CUDA driver's launch call, and the step
// pays eager_launch_us for each (profiles.DefaultEagerLaunchUs unless the
// profile says): launches × the per-kernel host time, added to the GPU's
// pass. The launches are counted from vLLM's eager
// layer (vllm/model_executor/models/llama.py LlamaDecoderLayer: the fused
// residual-add RMSNorm, the QKV GEMM, rotary embedding, the KV-cache write,
// the attention kernel, the output GEMM, the second norm, the gate-up GEMM,
// SiLU-and-multiply and the down GEMM: ten), plus what other layers add.
//
// Simplified: the launches are charged in full, though the host runs ahead
// of a GPU whose kernels outlast a launch (a step of thousands of prompt
// tokens hides most of them: there the charge, a few milliseconds against a
// step of tens, overstates it); a piecewise graph's attention kernels,
// launched outside it, are left to the fitted per-layer floor; the drafter
// of speculative decoding launches nothing extra; and eager mode's loss of
// torch.compile's fusions is not priced.

// Kernels one decoder layer launches in eager mode (see above).
const (
	denseLayerKernels = 10
	// moeLayerKernels are what routed experts add: the router GEMM, top-k,
	// the alignment of tokens to experts and the sum of the experts'
	// outputs (vllm/model_executor/layers/fused_moe/fused_moe.py; the two
	// grouped GEMMs and the activation replace the dense MLP's).
	moeLayerKernels = 4
	// mlaLayerKernels are what multi-head latent attention adds: the
	// low-rank query and KV projections' second GEMM, their two norms and
	// the two batched GEMMs that absorb the up-projections
	// (vllm/model_executor/layers/mla.py).
	mlaLayerKernels = 5
	// allReduceKernels are tensor parallelism's two all-reduces a layer.
	allReduceKernels = 2
	// quantKernels are the activation quantisations in front of a W8A8 or
	// W4A4 layer's four GEMMs (vllm/_custom_ops.py scaled_fp8_quant).
	quantKernels = 4
)

// eagerLaunches is how many kernels one pass of c's model launches without
// a CUDA graph.
func eagerLaunches(c *Config) float64 {
	m := &c.Model
	perLayer := float64(denseLayerKernels)
	if c.TensorParallelSize > 1 {
		perLayer += allReduceKernels
	}
	if d := linearDtype(c); d == "fp8" || d == "nvfp4" {
		perLayer += quantKernels
	}
	return perLayer*float64(m.Layers) + float64(moeLayerKernels*modelParams(m).moeLayers+mlaLayerKernels*mlaLayers(m))
}

// CUDAGraphMaxTokens is the most tokens a step may hold and still replay a
// CUDA graph: the largest captured size, 0 with --enforce-eager.
func (c *Config) CUDAGraphMaxTokens() int {
	if c.EnforceEager {
		return 0
	}
	return largestCaptureSize(c.cudaGraphCaptureLimit(), c.captureSizesBy16())
}

// cudaGraphCaptureLimit is max_cudagraph_capture_size: the one given
// (--max-cudagraph-capture-size, --cuda-graph-sizes before 0.11.1), else
// the release's default, never above --max-num-batched-tokens (vLLM drops
// the capture sizes above it). The default was 512 until 0.10 (the V1
// engine's capture list, then --cuda-graph-sizes' default, vllm PR 17201),
// then 2 × --max-num-seqs capped at 512 (vllm PR 20628, first in 0.10.0),
// times the tokens a speculative decode step holds a request
// (vllm/config/vllm.py _set_cudagraph_sizes).
func (c *Config) cudaGraphCaptureLimit() int {
	limit := c.MaxCUDAGraphCaptureSize
	if limit == 0 {
		limit = 512
		if !c.release().Before(VLLMVersion{0, 10, 0}) {
			limit = min(2*c.MaxNumSeqs*(1+specTokens(c)), 512)
		}
	}
	return min(limit, c.MaxNumBatchedTokens)
}

// captureSizesBy16 reports whether the capture list steps by 16 from 256
// (vllm PR 26016, first in 0.11.1); before, it stepped by 8 throughout.
func (c *Config) captureSizesBy16() bool { return !c.release().Before(VLLMVersion{0, 11, 1}) }

// largestCaptureSize is the largest size of vLLM's capture list, 1, 2, 4,
// then multiples of 8 (of 16 from 256 when by16), at most limit; 0 when
// limit is below 1.
func largestCaptureSize(limit int, by16 bool) int {
	switch {
	case by16 && limit >= 256:
		return limit - (limit-256)%16
	case limit >= 8:
		return limit - limit%8
	case limit >= 4:
		return 4
	case limit >= 2:
		return 2
	}
	return max(limit, 0)
}

// launchNs is the host's launches of a pass of tokens: none when a CUDA
// graph holds it.
func (s *StepModel) launchNs(tokens float64) float64 {
	if tokens > s.graphTokens {
		return s.eagerNs
	}
	return 0
}
