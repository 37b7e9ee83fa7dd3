package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
)

// coverageCatalog is the embedded catalog with its step fits' coverage
// replaced by a small one the cases below can name: Hopper measured on
// h100-sxm alone (Qwen3 and Llama 3, dense, BF16 and FP8, TP 1 and 2, up
// to 256 in flight), Ampere on a100-80g with Llama 3 alone, no Ada.
func coverageCatalog(t *testing.T) *profiles.Catalog {
	t.Helper()
	cat := simtest.Catalog(t)
	delete(cat.StepFits, "ada") // no Ada point, as the cases below have it
	hopper, ampere, all := cat.StepFits["hopper"], cat.StepFits["ampere"], cat.StepFits[profiles.FallbackGeneration]
	hopper.GPUs = []string{"h100-sxm"}
	hopper.Coverage = []profiles.Coverage{{GPU: "h100-sxm", Points: 40, TP: []int{1, 2}, Architectures: []string{"dense"},
		Weights: []string{"bf16", "fp8"}, Families: []string{"llama-3", "qwen3"}, MaxConcurrency: 256,
		Kernels: []string{"CUTLASS 3.x FP8 scaled_mm (sm90)", "cuBLAS BF16"}}}
	hopper.CVFamilyTPOT, hopper.CVFamilyTTFT, hopper.CVFamilyThroughput = 0.24, 0.3, 0.18
	ampere.GPUs = []string{"a100-80g"}
	ampere.Coverage = []profiles.Coverage{{GPU: "a100-80g", Points: 10, TP: []int{1}, Architectures: []string{"dense"},
		Weights: []string{"bf16"}, Families: []string{"llama-3"}, MaxConcurrency: 64}}
	ampere.CVFamilyTPOT, ampere.CVFamilyTTFT, ampere.CVFamilyThroughput = 0, 0, 0
	all.CVFamilyTPOT, all.CVFamilyTTFT, all.CVFamilyThroughput = 0.27, 0, 0.2
	data, err := profiles.EncodeYAML(struct {
		Fits []profiles.StepFit `yaml:"step_fits"`
	}{[]profiles.StepFit{hopper, ampere, all}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.LoadYAML("coverage.yaml", data); err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestCaveats: a deployment the corpus covers has none; each way out of
// it (GPU generation, GPU, model family, dense or MoE, weight format, GEMM
// kernels, TP, eager mode, the LLM class, load) is named with what was measured, and the expectation quotes the
// fit's family-held-out error, or says it has none.
func TestCaveats(t *testing.T) {
	cat := coverageCatalog(t)
	for _, tc := range []struct {
		name        string
		o           DeploymentOptions
		concurrency int
		want        []string // one substring per caveat, in order
		expect      string
	}{
		{name: "covered", o: DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm"}, concurrency: 200},
		{name: "covered fp8 at TP 2", o: DeploymentOptions{Model: "llama-3.1-70b", GPU: "h100-sxm", Engine: Config{TensorParallelSize: 2, Quantization: "fp8"}}},
		{name: "generation", o: DeploymentOptions{Model: "qwen3-8b", GPU: "l40s"},
			want:   []string{"no measurement on ada GPUs (l40s): its step coefficients are the fit over every generation's points"},
			expect: "expect errors like TPOT 27%, saturated throughput 20% or larger (the fit over every generation's mean error on a model family held out of it"},
		{name: "gpu", o: DeploymentOptions{Model: "qwen3-8b", GPU: "h200"},
			want:   []string{"no measurement on h200 itself: it takes the hopper fit, measured on h100-sxm"},
			expect: "expect errors like TPOT 24%, TTFT 30%, saturated throughput 18% or larger (the hopper fit's"},
		{name: "family absent", o: DeploymentOptions{Model: "magistral-small", GPU: "h100-sxm"},
			want: []string{"no measurement of the magistral model family in the fidelity corpus"}, expect: "TPOT 24%"},
		{name: "family not on the generation", o: DeploymentOptions{Model: "qwen3-8b", GPU: "a100-80g"},
			want:   []string{"no measurement of the qwen3 model family on ampere GPUs"},
			expect: "expect larger errors than the fidelity scoreboard's (docs/fidelity.md)"},
		{name: "moe", o: DeploymentOptions{Model: "qwen3-30b-a3b", GPU: "h100-sxm"},
			want: []string{"no measurement of the qwen3-moe model family in the fidelity corpus", "no measurement of a moe model on hopper GPUs",
				"no measurement of the Triton fused_moe BF16 kernels on hopper GPUs"}},
		{name: "weights and kernels", o: DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm", Engine: Config{Quantization: "awq"}},
			want: []string{"no measurement of awq weights on hopper GPUs (measured: bf16, fp8)",
				"no measurement of the Marlin W4A16 (awq_marlin) kernels on hopper GPUs: they are priced at the fitted efficiency of others"}},
		// Ampere's coverage names no kernels: the kernel table says which
		// no measurement prices.
		{name: "kernels by the table", o: DeploymentOptions{Model: "llama-3.1-8b", GPU: "a100-80g", Engine: Config{Quantization: "nvfp4"}},
			want: []string{"no measurement of nvfp4 weights on ampere GPUs (measured: bf16)", "no measurement of the Marlin W4A16 (NVFP4 weight-only) kernels on ampere GPUs"}},
		{name: "tp", o: DeploymentOptions{Model: "qwen3-32b", GPU: "h100-sxm", Engine: Config{TensorParallelSize: 4}},
			want: []string{"no measurement at TP 4 on h100-sxm (measured: TP 1, 2)"}},
		{name: "eager and the LLM class", o: DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm", Engine: Config{EnforceEager: true, EntryPoint: "llm"}},
			want: []string{"no measurement in eager mode (--enforce-eager): its kernel launches are priced at eager_launch_us, 4.7 µs each",
				"no measurement of the LLM class (--entry-point llm)"}},
		{name: "load", o: DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm"}, concurrency: 300,
			want: []string{"no measurement above 256 requests in flight on hopper GPUs (this deployment: 300)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.o.Config(cat)
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.Caveats(tc.concurrency)
			if len(tc.want) == 0 {
				if got != nil {
					t.Fatalf("caveats %q, want none", got)
				}
				return
			}
			if got == nil || len(got.Unmeasured) != len(tc.want) {
				t.Fatalf("caveats %q, want %d: %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got.Unmeasured[i], w) {
					t.Errorf("caveat %d %q, want %q", i, got.Unmeasured[i], w)
				}
			}
			if !strings.Contains(got.Expect, tc.expect) || !strings.Contains(got.Expect, "thinkcap loadtest") || !strings.Contains(got.Expect, "thinkcap calibrate") {
				t.Errorf("expect %q, want %q and how to measure", got.Expect, tc.expect)
			}
		})
	}
}

// TestCaveatsEmbeddedFit: with thinkcap's own step fit, the default
// deployment (Qwen3-8B on one H100) lies inside the corpus, and Qwen3-8B
// on an L40S (no Qwen3 point on Ada, or no Ada point) and on an MI300X
// (no AMD point) do not.
func TestCaveatsEmbeddedFit(t *testing.T) {
	cat := simtest.Catalog(t)
	for _, tc := range []struct {
		gpu    string
		inside bool
	}{{"h100-sxm", true}, {"l40s", false}, {"mi300x", false}} {
		cfg, err := (&DeploymentOptions{Model: "qwen3-8b", GPU: tc.gpu}).Config(cat)
		if err != nil {
			t.Fatal(err)
		}
		got := cfg.Caveats(16)
		if (got == nil) != tc.inside {
			t.Errorf("qwen3-8b on %s: caveats %q, want inside %v", tc.gpu, got, tc.inside)
		}
		if tc.gpu == "mi300x" && (got == nil || !slices.ContainsFunc(got.Unmeasured, func(s string) bool { return strings.Contains(s, "fit over every generation") })) {
			t.Errorf("qwen3-8b on %s: caveats %q, want the fit over every generation named", tc.gpu, got)
		}
	}
	// Coefficients of the user's own (--step-model) rest on the user's
	// measurements: the corpus's coverage does not judge them.
	path := filepath.Join(t.TempDir(), "fit.yaml")
	if err := os.WriteFile(path, []byte("step_overhead_ms: 1.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := (&DeploymentOptions{Model: "qwen3-8b", GPU: "l40s", StepModel: path}).Config(cat)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Caveats(16); got != nil {
		t.Errorf("with --step-model: caveats %q, want none", got)
	}
}
