package sim

import (
	"slices"
	"strings"

	"github.com/thinkcap/thinkcap/profiles"
)

// This file is which GEMM kernels vLLM runs a deployment's linear layers
// and routed experts with, and what that does to their price. vLLM picks a
// kernel from the weight format, the GPU's compute capability, the release
// and a few environment variables; the step model prices each kernel at the
// tensor-core rate its activations run at, at the generation's fitted
// efficiency times the kernel's own factor where a kernel measurement says
// it reaches less. docs/step-model.md tabulates which release changed
// which default.

// Kernels names the kernels of a deployment's matrix multiplies, as vLLM's
// startup log and source name them.
type Kernels struct {
	Linear  string `json:"linear"`
	Experts string `json:"experts,omitempty"` // "" for a dense model
}

// String is the one line simulate prints: "linear … / experts …".
func (k Kernels) String() string {
	if k.Experts == "" {
		return "linear " + k.Linear
	}
	return "linear " + k.Linear + " / experts " + k.Experts
}

// Kernels are the kernels vLLM runs c's linear layers and routed experts
// with.
func (c *Config) Kernels() Kernels {
	k := Kernels{Linear: linearKernel(c).name}
	if c.Model.IsMoE() {
		k.Experts = expertKernel(c).name
	}
	return k
}

// UnmeasuredKernels lists the kernels of c whose price rests on no corpus
// point and no kernel measurement: the generation's fitted efficiency is
// carried over to them unchanged.
func (c *Config) UnmeasuredKernels() []string {
	var out []string
	if l := linearKernel(c); !l.measured {
		out = append(out, l.name)
	}
	if c.Model.IsMoE() {
		if e := expertKernel(c); !e.measured {
			out = append(out, e.name)
		}
	}
	return out
}

// gemmKernel is one kernel family as the step model prices it.
type gemmKernel struct {
	name string
	// rate is the tensor-core rate its multiplies run at: "bf16" for
	// weight-only kernels (Marlin, Machete, Triton's W4A16), which
	// dequantise the weights and multiply in bf16; "fp8" or "fp4" for
	// kernels that quantise the activations as well.
	rate string
	// efficiency multiplies the generation's fitted compute efficiency
	// (1: the kernel the fit's points ran, or one no measurement tells
	// apart from it).
	efficiency float64
	// measured: a corpus point or a kernel measurement stands behind its
	// price (else the fitted efficiency of another kernel is carried over).
	measured bool
}

// kernelRule is one row of the kernel table: when a deployment's weight
// format, GPU architecture, release and environment match, vLLM runs kernel.
type kernelRule struct {
	formats []string // weight formats ("" matches bf16 and fp16)
	archs   []string // GPU generations; nil matches every one
	since   VLLMVersion
	before  VLLMVersion // zero: no upper bound
	// env is an environment variable the rule needs: "KEY" set to a true
	// value, "KEY=0" set to a false one (unset is the release's default);
	// "" none.
	env    string
	kernel gemmKernel
}

func (r *kernelRule) matches(c *Config, format string) bool {
	if !slices.Contains(r.formats, format) || (r.archs != nil && !slices.Contains(r.archs, c.GPU.Generation)) {
		return false
	}
	v := c.release()
	if v.Before(r.since) || (r.before != VLLMVersion{} && !v.Before(r.before)) {
		return false
	}
	if r.env == "" {
		return true
	}
	if key, ok := strings.CutSuffix(r.env, "=0"); ok {
		v, set := c.Env[key]
		return set && !truthy(v)
	}
	return c.envOn(r.env)
}

// envOn reports whether the server's environment sets key to a true value
// (vllm/envs.py reads its booleans as bool(int(value))).
func (c *Config) envOn(key string) bool { return truthy(c.Env[key]) }

func truthy(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v != "" && v != "0" && v != "false"
}

// adaFP8Efficiency is CUTLASS 2.x FP8 GEMMs' efficiency on Ada (sm89)
// relative to the CUTLASS 3.x kernels on Hopper that the fit's FP8 points
// ran. vLLM's cutlass_scaled_mm sends compute capability 8.9 to its CUTLASS
// 2.x kernels (csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu,
// cutlass_scaled_mm_sm89: scaled_mm_c2x_sm89_fp8_dispatch.cuh), warp-level
// mma.sync without Hopper's TMA and warpgroup MMA. The corpus has no Ada
// FP8 point, so the factor is a kernel measurement's: vLLM's own GEMM
// benchmark on an L40S with the tuned sm89 kernels (vLLM pull request 6677,
// benchmarks/cutlass_benchmarks/w8a8_benchmarks.py, Llama-2-7B's shapes)
// ran M=256 at 251-329 TFLOP/s (34-45% of the L40S's 733 FP8 TFLOP/s,
// 40% on average) and M=512 at 368 (50%); 0.40 over the Hopper fit's 0.53
// is 0.75.
const adaFP8Efficiency = 0.75

// linearKernels is the table for the linear layers outside the routed
// experts, first match wins. Sources:
//   - bf16: torch.matmul, cuBLAS (UnquantizedLinearMethod).
//   - fp8 W8A8: cutlass_scaled_mm per architecture (scaled_mm_entry.cu):
//     CUTLASS 3.x on sm90 and sm100, 2.x on sm89; before 0.5.4 vLLM sent
//     sm89 to torch._scaled_mm instead (pull request 6384 turned CUTLASS
//     off on Ada, 6950 on again). Below sm89 no FP8 tensor cores: FP8
//     weights run Marlin W8A16 (quantization/fp8.py use_marlin).
//   - block FP8 (128×128 scales): CUTLASS block-scaled GEMMs or DeepGEMM on
//     Hopper and Blackwell, Triton w8a8_block_fp8_matmul elsewhere
//     (quantization/utils/fp8_utils.py), priced by
//     block_fp8_compute_efficiency.
//   - awq: awq_marlin from sm80 (quantization/awq_marlin.py; vLLM converts
//     an awq checkpoint to it), AWQ's own GEMM kernels below.
//   - gptq: gptq_marlin picks through choose_mp_linear_kernel
//     (quantization/kernels/mixed_precision/__init__.py), Machete first on
//     Hopper (symmetric weights: Machete takes no zero points), Marlin
//     elsewhere; ExLlama where neither can.
//   - nvfp4 W4A4: CUTLASS FP4 GEMMs on Blackwell (cutlass_scaled_fp4_mm,
//     or FlashInfer's), Marlin W4A16 before (marlin_utils_fp4.py).
//   - mxfp4 linear layers (a checkpoint other than gpt-oss's, which keeps
//     them in bf16): Marlin W4A16 (compressed_tensors_w4a16_mxfp4.py).
var linearKernels = []kernelRule{
	{formats: []string{"", "bf16", "fp16"}, kernel: gemmKernel{name: "cuBLAS BF16", rate: "bf16", efficiency: 1, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"ada"}, before: VLLMVersion{0, 5, 4}, kernel: gemmKernel{name: "torch._scaled_mm FP8 (cuBLASLt, sm89)", rate: "fp8", efficiency: adaFP8Efficiency, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"ada"}, kernel: gemmKernel{name: "CUTLASS 2.x FP8 scaled_mm (sm89)", rate: "fp8", efficiency: adaFP8Efficiency, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"hopper"}, kernel: gemmKernel{name: "CUTLASS 3.x FP8 scaled_mm (sm90)", rate: "fp8", efficiency: 1, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"blackwell"}, kernel: gemmKernel{name: "CUTLASS 3.x FP8 scaled_mm (sm100)", rate: "fp8", efficiency: 1, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"ampere"}, kernel: gemmKernel{name: "Marlin W8A16 (FP8 weight-only)", rate: "bf16", efficiency: 1, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"cdna3"}, kernel: gemmKernel{name: "hipBLASLt FP8 scaled_mm", rate: "fp8", efficiency: 1}},
	{formats: []string{"awq"}, archs: []string{"ampere", "ada", "hopper", "blackwell"}, kernel: gemmKernel{name: "Marlin W4A16 (awq_marlin)", rate: "bf16", efficiency: 1, measured: true}},
	{formats: []string{"gptq"}, archs: []string{"hopper"}, since: VLLMVersion{0, 6, 2}, kernel: gemmKernel{name: "Machete W4A16 (gptq_marlin)", rate: "bf16", efficiency: 1}},
	{formats: []string{"gptq"}, archs: []string{"ampere", "ada", "hopper", "blackwell"}, kernel: gemmKernel{name: "Marlin W4A16 (gptq_marlin)", rate: "bf16", efficiency: 1}},
	{formats: []string{"awq", "gptq"}, kernel: gemmKernel{name: "ExLlama/Triton W4A16", rate: "bf16", efficiency: 1}},
	{formats: []string{"nvfp4"}, archs: []string{"blackwell"}, kernel: gemmKernel{name: "CUTLASS FP4 scaled_mm (sm100)", rate: "fp4", efficiency: 1, measured: true}},
	{formats: []string{"nvfp4"}, kernel: gemmKernel{name: "Marlin W4A16 (NVFP4 weight-only)", rate: "bf16", efficiency: 1}},
	{formats: []string{"mxfp4"}, kernel: gemmKernel{name: "Marlin W4A16 (MXFP4 weight-only)", rate: "bf16", efficiency: 1}},
}

// expertKernels is the table for the routed experts' grouped GEMMs, first
// match wins. Sources:
//   - mxfp4: get_mxfp4_backend (quantization/mxfp4.py): on Blackwell
//     FlashInfer's TRT-LLM MoE, MXFP4 × MXFP8 under
//     VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8 (or its CUTLASS MoE under
//     …_MXFP8_CUTLASS), MXFP4 × BF16 by default; on Hopper FlashInfer's
//     MXFP4 × BF16 under VLLM_USE_FLASHINFER_MOE_MXFP4_BF16, Marlin under
//     VLLM_MXFP4_USE_MARLIN or without triton_kernels (before 0.10.2's
//     images: mxfp4.go tritonKernelsSince), else triton_kernels'
//     matmul_ogs; below sm90 Marlin.
//   - fp8: block-scaled FP8 experts run DeepGEMM's grouped GEMMs on Hopper
//     and Blackwell where VLLM_USE_DEEP_GEMM (vllm/envs.py) allows,
//     FlashInfer's MoE under VLLM_USE_FLASHINFER_MOE_FP8, else vLLM's
//     Triton fused_moe (quantization/fp8.py Fp8MoEMethod); below sm89
//     Marlin MoE W8A16.
//   - int4 (compressed-tensors W4A16): Marlin MoE
//     (compressed_tensors_moe.py CompressedTensorsWNA16MarlinMoEMethod),
//     FlashInfer's TRT-LLM W4A16 MoE under VLLM_USE_FLASHINFER_MOE_INT4.
//   - nvfp4: FlashInfer's CUTLASS or TRT-LLM NVFP4 MoE on Blackwell
//     (quantization/modelopt.py), Marlin MoE W4A16 before.
//   - bf16: vLLM's Triton fused_moe.
var expertKernels = []kernelRule{
	{formats: []string{"mxfp4"}, archs: []string{"blackwell"}, env: "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS", kernel: gemmKernel{name: "FlashInfer CUTLASS MoE MXFP4×MXFP8", rate: "fp8", efficiency: 1}},
	{formats: []string{"mxfp4"}, archs: []string{"blackwell"}, env: "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8", kernel: gemmKernel{name: "FlashInfer TRT-LLM MoE MXFP4×MXFP8", rate: "fp8", efficiency: 1, measured: true}},
	{formats: []string{"mxfp4"}, archs: []string{"blackwell"}, kernel: gemmKernel{name: "FlashInfer TRT-LLM MoE MXFP4×BF16", rate: "bf16", efficiency: 1}},
	{formats: []string{"mxfp4"}, archs: []string{"hopper"}, env: "VLLM_USE_FLASHINFER_MOE_MXFP4_BF16", kernel: gemmKernel{name: "FlashInfer MoE MXFP4×BF16 (sm90)", rate: "bf16", efficiency: 1}},
	{formats: []string{"mxfp4"}, archs: []string{"hopper"}, env: "VLLM_MXFP4_USE_MARLIN", kernel: marlinMXFP4},
	{formats: []string{"mxfp4"}, archs: []string{"hopper"}, before: tritonKernelsSince, kernel: marlinMXFP4},
	{formats: []string{"mxfp4"}, archs: []string{"hopper"}, kernel: tritonMXFP4},
	{formats: []string{"mxfp4"}, archs: []string{"cdna3"}, kernel: gemmKernel{name: "Triton matmul_ogs MXFP4 (ROCm)", rate: "bf16", efficiency: 1}},
	{formats: []string{"mxfp4"}, kernel: marlinMXFP4},
	{formats: []string{"fp8"}, archs: []string{"ampere"}, kernel: gemmKernel{name: "Marlin MoE W8A16 (FP8 weight-only)", rate: "bf16", efficiency: 1, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"hopper", "blackwell"}, env: "VLLM_USE_FLASHINFER_MOE_FP8", kernel: gemmKernel{name: "FlashInfer MoE FP8", rate: "fp8", efficiency: 1}},
	{formats: []string{"fp8"}, archs: []string{"hopper", "blackwell"}, env: "VLLM_USE_DEEP_GEMM=0", kernel: gemmKernel{name: "Triton fused_moe FP8 W8A8", rate: "fp8", efficiency: 1, measured: true}},
	{formats: []string{"fp8"}, archs: []string{"hopper", "blackwell"}, kernel: gemmKernel{name: "DeepGEMM grouped FP8 / Triton fused_moe", rate: "fp8", efficiency: 1, measured: true}},
	{formats: []string{"fp8"}, kernel: gemmKernel{name: "Triton fused_moe FP8 W8A8", rate: "fp8", efficiency: 1}},
	{formats: []string{"int4"}, archs: []string{"blackwell"}, env: "VLLM_USE_FLASHINFER_MOE_INT4", kernel: gemmKernel{name: "FlashInfer TRT-LLM MoE W4A16", rate: "bf16", efficiency: 1, measured: true}},
	{formats: []string{"int4", "awq", "gptq"}, kernel: gemmKernel{name: "Marlin MoE W4A16", rate: "bf16", efficiency: 1, measured: true}},
	{formats: []string{"nvfp4"}, archs: []string{"blackwell"}, kernel: gemmKernel{name: "FlashInfer CUTLASS MoE NVFP4", rate: "fp4", efficiency: 1, measured: true}},
	{formats: []string{"nvfp4"}, kernel: gemmKernel{name: "Marlin MoE W4A16 (NVFP4 weight-only)", rate: "bf16", efficiency: 1}},
	{formats: []string{"", "bf16", "fp16"}, kernel: gemmKernel{name: "Triton fused_moe BF16", rate: "bf16", efficiency: 1, measured: true}},
}

var (
	marlinMXFP4 = gemmKernel{name: "Marlin MoE MXFP4×BF16", rate: "bf16", efficiency: 1, measured: true}
	// tritonMXFP4 shares Marlin's fitted efficiencies: fitted on its own
	// (a triton_expert_compute_efficiency on the corpus's 27 Hopper records
	// of the default backend), leave-one-deployment-out throughput error
	// went from 12.9% to 17.0% and gpt-oss-20b's on H100 from 9% to 64%:
	// too few points to tell it from Marlin's.
	tritonMXFP4 = gemmKernel{name: "Triton matmul_ogs MXFP4×BF16 (triton_kernels)", rate: "bf16", efficiency: 1, measured: true}
)

// resolveKernel is the first rule of table that matches c's format, or a
// kernel named by the format that runs at the BF16 rate.
func resolveKernel(table []kernelRule, c *Config, format string) gemmKernel {
	for i := range table {
		if table[i].matches(c, format) {
			return table[i].kernel
		}
	}
	return gemmKernel{name: format + " (no kernel table entry)", rate: "bf16", efficiency: 1}
}

// linearKernel is the kernel of c's linear layers outside the experts.
func linearKernel(c *Config) gemmKernel {
	k := resolveKernel(linearKernels, c, linearDtype(c))
	if c.BlockFP8Linear() {
		k.name = blockFP8LinearName(c.GPU.Generation)
	}
	return k
}

// blockFP8LinearName names the block-scaled FP8 GEMM of a generation
// (quantization/utils/fp8_utils.py W8A8BlockFp8LinearOp).
func blockFP8LinearName(gen string) string {
	switch gen {
	case "hopper", "blackwell":
		return "CUTLASS/DeepGEMM block-scaled FP8"
	case "ampere":
		return "Marlin W8A16 (FP8 weight-only)"
	}
	return "Triton w8a8_block_fp8_matmul"
}

// expertKernel is the kernel of c's routed experts' grouped GEMMs.
func expertKernel(c *Config) gemmKernel {
	return resolveKernel(expertKernels, c, expertDtype(c))
}

// kernelPeak is the tensor-core peak (FLOP/s) a kernel of rate runs at on
// g: its own where the GPU has it, else the next wider one (FP4 work on a
// GPU without FP4 units runs at the FP8 rate, FP8 without FP8 units at
// BF16's).
func kernelPeak(rate string, g *profiles.GPU) float64 {
	switch {
	case rate == "fp4" && g.FP4TFLOPS > 0:
		return g.FP4TFLOPS * 1e12
	case (rate == "fp4" || rate == "fp8") && g.FP8TFLOPS > 0:
		return g.FP8TFLOPS * 1e12
	}
	return g.BF16TFLOPS * 1e12
}
