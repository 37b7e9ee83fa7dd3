package sim

// This file is how vLLM stores MXFP4 experts (gpt-oss) on a GPU: each MoE
// backend pads the experts' dimensions to its kernel's tiles, and the
// padding is memory the weights take ("Model loading took").
// vllm/model_executor/layers/quantization/mxfp4.py (Mxfp4MoEMethod
// create_weights, get_mxfp4_backend) picks the backend and its padding:
//
//   - Marlin (weight-only FP4; every GPU before Hopper, and Hopper without
//     triton_kernels): the intermediate size per TP rank to a multiple of
//     128, the hidden size to 256.
//   - Triton (triton_kernels' matmul_ogs on Hopper): the intermediate size
//     to 64, then the Hopper value layout pads the bytes of each expert
//     matrix, the packed (quantised) axis to 64 bytes and the other to 256
//     (triton_kernels tensor_details/layout_details/hopper_value.py
//     _padded_shape, through mxfp4_utils.py _swizzle_mxfp4).
//   - FlashInfer on Blackwell (SM100, MXFP4×MXFP8 or ×BF16): both sizes to
//     256.
//   - ROCm: both sizes to 128 (mxfp4_utils.py get_padding_alignment).
//
// gpt-oss's hidden and intermediate sizes are 2880, a multiple of none of
// these: "Model loading took" 65.97 GiB on an H100 under Marlin (vLLM
// 0.10.1, vllm-project/vllm#23278) and 64.38 GiB under Triton (0.14.1,
// #33155), against a 60.8 GiB checkpoint; the padded shapes give 65.9 and
// 64.2 GiB, and 17.15 GiB a GPU for corpus row R-06 (A100, Marlin, TP 4)
// against its logged 17.22 (TestMXFP4WeightsMatchLogs).

type mxfp4Backend int

const (
	mxfp4Marlin mxfp4Backend = iota
	mxfp4Triton              // triton_kernels with the Hopper value layout
	mxfp4FlashInfer
	mxfp4ROCm
	mxfp4FlashInferCUTLASS // FlashInfer's CUTLASS MoE: MXFP4×MXFP8 on SM100, ×BF16 on SM90
)

// tritonKernelsSince is the release from which vLLM's images carry the
// triton_kernels package, and so Hopper takes the Triton backend. Before
// 0.10.2 it came with a few installs only: 0.10.1's H100 log (#23278) and
// R-06's A100 log (0.10.1.1, 17.22 GiB a GPU) are Marlin's.
//
// A GPU before Hopper takes Marlin: get_mxfp4_backend sends compute
// capability below 9 to Marlin before it looks for triton_kernels
// (mxfp4.py, "current_platform.get_device_capability()[0] < 9"; vLLM later
// bounded Triton to SM 9.0-10.x as well, #29339). An early 0.10.1 install
// with triton_kernels loaded gpt-oss-20b unpadded on an RTX 3090 (12.88
// GiB), so not every install of that time did. The corpus agrees with
// Marlin: GPUStack's A100 runs of gpt-oss-120b under 0.11.0 with
// 32,000-token prompts decode at a median inter-token latency of 24 ms
// between 677 ms prefill steps (p99), so most steps carry no prefill, the
// queue waiting on KV memory: about four such requests fit, as Marlin's
// 65.9 GiB of weights leave (3.4 in the replay), not the seven that
// unpadded weights would: with Marlin's padding the replay's TPOT errors on
// those runs fell by half or more (docs/fidelity-log.md).
var tritonKernelsSince = VLLMVersion{0, 10, 2}

// String is the backend as vLLM's log names it.
func (b mxfp4Backend) String() string {
	return [...]string{"Marlin", "Triton", "FlashInfer", "ROCm Triton", "FlashInfer CUTLASS"}[b]
}

// hasMXFP4Experts reports whether c's model has routed experts in MXFP4.
func hasMXFP4Experts(c *Config) bool {
	return c.Model.IsMoE() && expertDtype(c) == "mxfp4"
}

// mxfp4BackendName is the MoE backend padding c's MXFP4 experts, or ""
// when the model has none.
func mxfp4BackendName(c *Config) string {
	if !hasMXFP4Experts(c) {
		return ""
	}
	return mxfp4BackendFor(c).String()
}

// mxfp4BackendFor is the backend vLLM picks for c's GPU, release and
// environment (get_mxfp4_backend: VLLM_MXFP4_USE_MARLIN forces Marlin on
// Hopper; VLLM_USE_FLASHINFER_MOE_MXFP4_BF16 there and
// VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS on Blackwell take
// FlashInfer's CUTLASS MoE, whose padding is 128 both ways).
func mxfp4BackendFor(c *Config) mxfp4Backend {
	v := c.release()
	switch c.GPU.Generation {
	case "blackwell":
		if c.envOn("VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS") {
			return mxfp4FlashInferCUTLASS
		}
		return mxfp4FlashInfer
	case "cdna3":
		return mxfp4ROCm
	case "hopper":
		switch {
		case c.envOn("VLLM_USE_FLASHINFER_MOE_MXFP4_BF16"):
			return mxfp4FlashInferCUTLASS
		case c.envOn("VLLM_MXFP4_USE_MARLIN") || v.Before(tritonKernelsSince):
			return mxfp4Marlin
		}
		return mxfp4Triton
	}
	return mxfp4Marlin
}

// expertStorageFactor is the bytes one routed expert takes on a GPU over
// its checkpoint bytes: 1 except for MXFP4 experts, whose backend pads them.
// The scales (one byte per 32 values) are taken as padded like the values.
// The step model reads the checkpoint's bytes, not these: charged the
// padding, Hopper's fitted expert bandwidth would have to exceed the
// datasheet's (it sits at its bound of 1 already), so the kernels do not
// stream the padded tiles at full cost, or the uniform-routing coverage
// overstates the experts a step reads; the corpus cannot tell which.
func expertStorageFactor(c *Config) float64 {
	m := &c.Model
	if !hasMXFP4Experts(c) || m.MoEIntermediateSize <= 0 {
		return 1
	}
	h := m.HiddenSize
	ip := max(m.MoEIntermediateSize/max(c.TensorParallelSize, 1), 1) // per TP rank
	both := func(align int) float64 { return float64(roundUp(ip, align)*roundUp(h, align)) / float64(ip*h) }
	switch mxfp4BackendFor(c) {
	case mxfp4Marlin:
		return float64(roundUp(ip, 128)*roundUp(h, 256)) / float64(ip*h)
	case mxfp4FlashInfer:
		return both(256)
	case mxfp4ROCm:
		return both(128) // mxfp4_utils.py get_padding_alignment: 128 (256 on gfx950)
	case mxfp4FlashInferCUTLASS:
		return both(128)
	}
	// Triton on Hopper. gate_up is hidden × 2·intermediate quantised along
	// hidden, down is intermediate × hidden quantised along intermediate;
	// in bytes the quantised axis holds two values a byte.
	ip64 := roundUp(ip, 64)
	w13 := float64(roundUp(h/2, 64)*roundUp(2*ip64, 256)) / (float64(h) / 2 * float64(2*ip))
	w2 := float64(roundUp(ip64/2, 64)*roundUp(h, 256)) / (float64(ip) / 2 * float64(h))
	return (2*w13 + w2) / 3 // gate_up is two of an expert's three matrices
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }
