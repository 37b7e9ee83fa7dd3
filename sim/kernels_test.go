package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

// TestKernelTable: the kernels vLLM runs per weight format, GPU
// architecture, release and environment, as its source picks them.
func TestKernelTable(t *testing.T) {
	for _, tc := range []struct {
		model, gpu, quant, version string
		env                        map[string]string
		linear, experts            string
	}{
		// Dense bf16: cuBLAS everywhere.
		{model: "llama-3.1-8b", gpu: "l40s", linear: "cuBLAS BF16"},
		// FP8 W8A8: CUTLASS 2.x on Ada, 3.x on Hopper and Blackwell,
		// Marlin weight-only on Ampere; torch._scaled_mm on Ada before 0.5.4.
		{model: "llama-3.1-8b", gpu: "l40s", quant: "fp8", linear: "CUTLASS 2.x FP8 scaled_mm (sm89)"},
		{model: "llama-3.1-8b", gpu: "l4", quant: "fp8", linear: "CUTLASS 2.x FP8 scaled_mm (sm89)"},
		{model: "llama-3.1-8b", gpu: "l40s", quant: "fp8", version: "0.5.3", linear: "torch._scaled_mm FP8 (cuBLASLt, sm89)"},
		{model: "llama-3.1-8b", gpu: "h100-sxm", quant: "fp8", linear: "CUTLASS 3.x FP8 scaled_mm (sm90)"},
		{model: "llama-3.1-8b", gpu: "b200", quant: "fp8", linear: "CUTLASS 3.x FP8 scaled_mm (sm100)"},
		{model: "llama-3.1-8b", gpu: "a100-80g", quant: "fp8", linear: "Marlin W8A16 (FP8 weight-only)"},
		// AWQ: Marlin from Ampere on, Hopper included (Machete takes no
		// zero points).
		{model: "qwen3-8b", gpu: "l4", quant: "awq", linear: "Marlin W4A16 (awq_marlin)"},
		{model: "qwen3-8b", gpu: "h100-sxm", quant: "awq", linear: "Marlin W4A16 (awq_marlin)"},
		// NVFP4 dense: CUTLASS FP4 on Blackwell, Marlin before.
		{model: "llama-3.1-70b", gpu: "b200", quant: "nvfp4", linear: "CUTLASS FP4 scaled_mm (sm100)"},
		{model: "llama-3.1-70b", gpu: "h100-sxm", quant: "nvfp4", linear: "Marlin W4A16 (NVFP4 weight-only)"},
		// MXFP4 experts (gpt-oss): Marlin before Hopper, before 0.10.2 and
		// under VLLM_MXFP4_USE_MARLIN; Triton on Hopper from 0.10.2;
		// FlashInfer on Blackwell, BF16 activations unless told MXFP8.
		{model: "gpt-oss-120b", gpu: "a100-80g", linear: "cuBLAS BF16", experts: "Marlin MoE MXFP4×BF16"},
		{model: "gpt-oss-120b", gpu: "h100-sxm", version: "0.10.1", experts: "Marlin MoE MXFP4×BF16"},
		{model: "gpt-oss-120b", gpu: "h200", version: "0.18.0", experts: "Triton matmul_ogs MXFP4×BF16 (triton_kernels)"},
		{model: "gpt-oss-120b", gpu: "h200", version: "0.18.0", env: map[string]string{"VLLM_MXFP4_USE_MARLIN": "1"}, experts: "Marlin MoE MXFP4×BF16"},
		{model: "gpt-oss-120b", gpu: "h200", version: "0.18.0", env: map[string]string{"VLLM_MXFP4_USE_MARLIN": "0"}, experts: "Triton matmul_ogs MXFP4×BF16 (triton_kernels)"},
		{model: "gpt-oss-120b", gpu: "h100-sxm", env: map[string]string{"VLLM_USE_FLASHINFER_MOE_MXFP4_BF16": "1"}, experts: "FlashInfer MoE MXFP4×BF16 (sm90)"},
		{model: "gpt-oss-120b", gpu: "b200", experts: "FlashInfer TRT-LLM MoE MXFP4×BF16"},
		{model: "gpt-oss-120b", gpu: "b200", env: map[string]string{"VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8": "1"}, experts: "FlashInfer TRT-LLM MoE MXFP4×MXFP8"},
		{model: "gpt-oss-120b", gpu: "l40s", experts: "Marlin MoE MXFP4×BF16"},
		// Block-FP8 experts: DeepGEMM where allowed, Triton when it is
		// turned off; Marlin W8A16 on Ampere.
		{model: "minimax-m2.5", gpu: "h200", linear: "CUTLASS/DeepGEMM block-scaled FP8", experts: "DeepGEMM grouped FP8 / Triton fused_moe"},
		{model: "minimax-m2.5", gpu: "h200", env: map[string]string{"VLLM_USE_DEEP_GEMM": "0"}, experts: "Triton fused_moe FP8 W8A8"},
		{model: "minimax-m2.5", gpu: "a100-80g", experts: "Marlin MoE W8A16 (FP8 weight-only)"},
		// INT4 experts (Kimi-K2.5): Marlin MoE, FlashInfer's W4A16 when told.
		{model: "kimi-k2.5", gpu: "h200", experts: "Marlin MoE W4A16"},
		{model: "kimi-k2.5", gpu: "b200", env: map[string]string{"VLLM_USE_FLASHINFER_MOE_INT4": "1"}, experts: "FlashInfer TRT-LLM MoE W4A16"},
		// NVIDIA's NVFP4 MoE checkpoints: FlashInfer's NVFP4 MoE on
		// Blackwell, bf16 attention.
		{model: "kimi-k2.5", gpu: "b200", quant: "nvfp4", linear: "cuBLAS BF16", experts: "FlashInfer CUTLASS MoE NVFP4"},
		// BF16 experts: Triton fused_moe.
		{model: "qwen3-30b-a3b", gpu: "h100-sxm", experts: "Triton fused_moe BF16"},
	} {
		c := Config{Model: simtest.Model(t, tc.model), GPU: simtest.GPU(t, tc.gpu), TensorParallelSize: 1,
			Quantization: tc.quant, VLLMVersion: tc.version, Env: tc.env}
		got := c.Kernels()
		name := tc.model + " " + tc.quant + " on " + tc.gpu + " " + tc.version
		if tc.linear != "" && got.Linear != tc.linear {
			t.Errorf("%s %v: linear %q, want %q", name, tc.env, got.Linear, tc.linear)
		}
		if tc.experts != "" && got.Experts != tc.experts {
			t.Errorf("%s %v: experts %q, want %q", name, tc.env, got.Experts, tc.experts)
		}
		if !c.Model.IsMoE() && got.Experts != "" {
			t.Errorf("%s: a dense model names expert kernels %q", name, got.Experts)
		}
		if s := got.String(); !strings.HasPrefix(s, "linear "+got.Linear) {
			t.Errorf("%s: String() = %q", name, s)
		}
	}
}

// TestEveryFormatHasAKernel: every format a deployment can take resolves to
// a row of the tables on every GPU of the catalog.
func TestEveryFormatHasAKernel(t *testing.T) {
	cat := simtest.Catalog(t)
	for _, gpu := range cat.GPUNames() {
		for _, q := range Quantizations {
			for _, model := range []string{"llama-3.1-8b", "gpt-oss-20b", "minimax-m2.5", "kimi-k2.5", "qwen3-30b-a3b"} {
				c := Config{Model: simtest.Model(t, model), GPU: simtest.GPU(t, gpu), TensorParallelSize: 1, Quantization: q}
				k := c.Kernels()
				if strings.Contains(k.Linear+k.Experts, "no kernel table entry") {
					t.Errorf("%s --quantization %q on %s: %s", model, q, gpu, k)
				}
			}
		}
	}
}

// TestAdaFP8SlowerPerFLOP: at the same fitted coefficients an FP8 prefill
// on an L40S (CUTLASS 2.x) costs more per FP8 FLOP than on an H100 (3.x),
// while bf16 costs the same per BF16 FLOP: the factor is the kernel's.
func TestAdaFP8SlowerPerFLOP(t *testing.T) {
	perFLOP := func(gpu, quant string) float64 {
		g := simtest.GPU(t, gpu)
		g.Step = simtest.GPU(t, "h100-sxm").Step // one generation's fit for both
		m, c := stepModelFor(t, Config{Model: simtest.Model(t, "llama-3.1-8b"), GPU: g, TensorParallelSize: 1, Quantization: quant})
		peak := c.GPU.BF16TFLOPS
		if quant == "fp8" {
			peak = c.GPU.FP8TFLOPS
		}
		return m.linearNsPerToken * peak
	}
	if ada, hopper := perFLOP("l40s", "fp8"), perFLOP("h100-sxm", "fp8"); ada < hopper*1.2 {
		t.Errorf("FP8 linear time per token × FP8 peak: L40S %.4g, H100 %.4g; want the L40S's CUTLASS 2.x slower per FLOP", ada, hopper)
	}
	// Equal but for the rounding of dividing by one peak and multiplying by it.
	if ada, hopper := perFLOP("l40s", ""), perFLOP("h100-sxm", ""); math.Abs(ada-hopper) > 1e-12*hopper {
		t.Errorf("BF16 linear time per token × BF16 peak: L40S %.17g, H100 %.17g; want equal", ada, hopper)
	}
}

// TestMarlinAtBF16Rate: Marlin (AWQ, FP8 on Ampere) dequantises to bf16
// and multiplies at the BF16 rate: its FLOPs cost what bf16's do, its
// weights a quarter (AWQ) of the bytes, so a small batch reads less and a
// prefill computes no faster.
func TestMarlinAtBF16Rate(t *testing.T) {
	model := simtest.Model(t, "qwen3-8b")
	gpu := simtest.GPU(t, "l4")
	bf16, _ := stepModelFor(t, Config{Model: model, GPU: gpu, TensorParallelSize: 1})
	awq, _ := stepModelFor(t, Config{Model: model, GPU: gpu, TensorParallelSize: 1, Quantization: "awq"})
	if awq.linearNsPerToken != bf16.linearNsPerToken {
		t.Errorf("AWQ (Marlin) linear FLOP time %.4g ns/token, bf16 %.4g: want the BF16 rate", awq.linearNsPerToken, bf16.linearNsPerToken)
	}
	if awq.denseBytes >= bf16.denseBytes*0.5 {
		t.Errorf("AWQ dense bytes %.3g, bf16 %.3g: want well under half", awq.denseBytes, bf16.denseBytes)
	}
	a100 := simtest.GPU(t, "a100-80g")
	fp8, _ := stepModelFor(t, Config{Model: model, GPU: a100, TensorParallelSize: 1, Quantization: "fp8"})
	b16, _ := stepModelFor(t, Config{Model: model, GPU: a100, TensorParallelSize: 1})
	if fp8.linearNsPerToken != b16.linearNsPerToken {
		t.Errorf("FP8 on an A100 (Marlin W8A16) linear FLOP time %.4g, bf16 %.4g: want the BF16 rate", fp8.linearNsPerToken, b16.linearNsPerToken)
	}
}

// TestUnmeasuredKernels: a kernel the corpus and the cited kernel
// measurements leave unpriced is named, so that simulate can warn.
func TestUnmeasuredKernels(t *testing.T) {
	c := Config{Model: simtest.Model(t, "llama-3.1-70b"), GPU: simtest.GPU(t, "h100-sxm"), TensorParallelSize: 1, Quantization: "nvfp4"}
	if got := c.UnmeasuredKernels(); len(got) != 1 || got[0] != "Marlin W4A16 (NVFP4 weight-only)" {
		t.Errorf("NVFP4 on an H100: unmeasured %q", got)
	}
	c = Config{Model: simtest.Model(t, "gpt-oss-120b"), GPU: simtest.GPU(t, "h200"), TensorParallelSize: 1, VLLMVersion: "0.18.0"}
	if got := c.UnmeasuredKernels(); len(got) != 0 {
		t.Errorf("gpt-oss-120b on an H200: unmeasured %q", got)
	}
}
