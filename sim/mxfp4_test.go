package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

// TestMXFP4WeightsMatchLogs holds the MXFP4 experts' padded storage to the
// "Model loading took … GiB" of public startup logs, one per backend and
// release range; the checkpoint's own bytes (60.8 GiB for gpt-oss-120b)
// miss the Marlin and Hopper-Triton logs by 5-8 %.
func TestMXFP4WeightsMatchLogs(t *testing.T) {
	for _, tc := range []struct {
		log, model, gpu, version string
		tp                       int
		loggedGiB                float64
		backend                  mxfp4Backend
	}{
		// vllm-project/vllm#23278: H100, vLLM 0.10.1, Marlin's warning logged.
		{"vllm#23278", "gpt-oss-120b", "h100-sxm", "0.10.1", 1, 65.9651, mxfp4Marlin},
		// vllm-project/vllm#33155: H100, vLLM 0.14.1, "Using Triton backend".
		{"vllm#33155", "gpt-oss-120b", "h100-sxm", "0.14.1", 1, 64.38, mxfp4Triton},
		// testdata/capacity R-06: A100 80GB, TP 4, vLLM 0.10.1.1.
		{"R-06", "gpt-oss-120b", "a100-80g", "0.10.1.1", 4, 17.2217, mxfp4Marlin},
		// myoceane.fr "vLLM 部署地端模型系統訊息記錄 A100" (2026-04-18): vLLM 0.19.0.
		{"myoceane A100", "gpt-oss-20b", "a100-80g", "0.19.0", 1, 13.72, mxfp4Marlin},
	} {
		c := refResolved(t, Config{Model: simtest.Model(t, tc.model), GPU: simtest.GPU(t, tc.gpu), TensorParallelSize: tc.tp,
			VLLMVersion: tc.version, MaxModelLen: 8192})
		if got := mxfp4BackendFor(&c); got != tc.backend {
			t.Errorf("%s: backend %d, want %d", tc.log, got, tc.backend)
		}
		got := weightBytesPerGPU(&c, modelParams(&c.Model)) / bytesPerGiB
		if e := refRelErr(got, tc.loggedGiB); math.Abs(e) > 0.01 {
			t.Errorf("%s: %s on %d x %s, vLLM %s: weights %.2f GiB, logged %.2f (%+.1f%%)", tc.log, tc.model, tc.tp, tc.gpu, tc.version, got, tc.loggedGiB, 100*e)
		}
	}
}

// TestExpertStorageFactor: padding only ever adds bytes, only MXFP4 experts
// are padded, and 2880 (gpt-oss) pads by the shapes worked out by hand.
func TestExpertStorageFactor(t *testing.T) {
	cat := simtest.Catalog(t)
	for _, name := range cat.ModelNames() {
		m := simtest.Model(t, name)
		for _, gpu := range []string{"a100-80g", "h100-sxm", "b200", "mi300x"} {
			for _, v := range []string{"0.10.1", "0.11.0", "0.19.0"} {
				for _, tp := range []int{1, 2, 4, 8} {
					c := Config{Model: m, GPU: simtest.GPU(t, gpu), TensorParallelSize: tp, VLLMVersion: v}
					f := expertStorageFactor(&c)
					if f < 1 || f > 2 {
						t.Errorf("%s on %s TP %d, %s: factor %.3f outside [1, 2]", name, gpu, tp, v, f)
					}
					if expertDtype(&c) != "mxfp4" && f != 1 {
						t.Errorf("%s (%s experts) padded by %.3f", name, expertDtype(&c), f)
					}
				}
			}
		}
	}
	m := simtest.Model(t, "gpt-oss-120b")
	for _, tc := range []struct {
		gpu, version string
		tp           int
		want         float64
	}{
		{"a100-80g", "0.10.1", 1, 2944.0 * 3072 / (2880 * 2880)}, // Marlin: 128 and 256
		{"a100-80g", "0.10.1", 4, 768.0 * 3072 / (720 * 2880)},
		{"a100-80g", "0.11.0", 2, 1536.0 * 3072 / (1440 * 2880)},                                 // Marlin before Hopper in every release
		{"b200", "0.19.0", 1, 3072.0 * 3072 / (2880 * 2880)},                                     // FlashInfer: 256 and 256
		{"h100-sxm", "0.19.0", 1, (2*(1472.0*5888)/(1440*5760) + (1472.0*3072)/(1440*2880)) / 3}, // Hopper value layout
	} {
		c := Config{Model: m, GPU: simtest.GPU(t, tc.gpu), TensorParallelSize: tc.tp, VLLMVersion: tc.version}
		if got := expertStorageFactor(&c); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("gpt-oss-120b on %s TP %d, %s: factor %.5f, want %.5f", tc.gpu, tc.tp, tc.version, got, tc.want)
		}
	}
}

// TestExplainNamesMXFP4Backend: --explain says whose padding the weights
// include, and says nothing of it for a model without MXFP4 experts.
func TestExplainNamesMXFP4Backend(t *testing.T) {
	for _, tc := range []struct{ model, gpu, version, want string }{
		{"gpt-oss-120b", "a100-80g", "0.10.1", "Marlin"},
		{"gpt-oss-120b", "a100-80g", "0.11.0", "Marlin"}, // below SM 9.0 in every release
		{"gpt-oss-120b", "h100-sxm", "0.14.1", "Triton"},
		{"gpt-oss-120b", "b200", "0.19.0", "FlashInfer"},
		{"qwen3-8b", "h100-sxm", "0.19.0", ""},
	} {
		c := refResolved(t, Config{Model: simtest.Model(t, tc.model), GPU: simtest.GPU(t, tc.gpu), VLLMVersion: tc.version, MaxModelLen: 8192})
		cp, err := ComputeCapacity(&c)
		if err != nil {
			t.Fatal(err)
		}
		b := cp.Budget(&c)
		if b.MXFP4Backend != tc.want {
			t.Errorf("%s on %s: mxfp4_moe_backend %q, want %q", tc.model, tc.gpu, b.MXFP4Backend, tc.want)
		}
		if got := strings.Contains(b.Explain(), "MoE backend pads them"); got != (tc.want != "") {
			t.Errorf("%s on %s: explain names a backend: %v\n%s", tc.model, tc.gpu, got, b.Explain())
		}
	}
}
