package sim

import (
	"math"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
)

// decodeBatch is n decoding requests of ctx tokens each.
func decodeBatch(n, ctx int) Batch {
	return Batch{NumReqs: n, DecodeReqs: n, DecodeTokens: n, ContextTokens: int64(n * ctx)}
}

// eagerExtraNs is what --enforce-eager adds to c's step of batch b.
func eagerExtraNs(t *testing.T, c Config, b Batch) float64 {
	t.Helper()
	graphed, _ := stepModelFor(t, c)
	c.EnforceEager = true
	eager, _ := stepModelFor(t, c)
	return eager.StepTimeNs(&b) - graphed.StepTimeNs(&b)
}

// TestEagerStepsPayTheLaunches: without CUDA graphs a step pays the host's
// launch of every kernel of every layer, ten a dense layer at
// eager_launch_us each, on top of the graphed step, so the cost grows with
// the layers; a step a CUDA graph holds pays none of it.
func TestEagerStepsPayTheLaunches(t *testing.T) {
	model := simtest.Model(t, "qwen3-8b")
	c := Config{Model: model, GPU: simtest.GPU(t, "l4"), MaxModelLen: 8192, AsyncScheduling: new(bool)}
	for _, n := range []int{1, 64} {
		b := decodeBatch(n, 1000)
		extra := eagerExtraNs(t, c, b)
		want := float64(denseLayerKernels*model.Layers) * profiles.DefaultEagerLaunchUs * 1e3
		if math.Abs(extra-want) > 1 {
			t.Errorf("%d decodes: eager adds %.0f ns, want %d layers × %d kernels × %.1f µs = %.0f ns", n, extra, model.Layers, denseLayerKernels, profiles.DefaultEagerLaunchUs, want)
		}
		deeper := c
		deeper.Model.Layers *= 2
		if got := eagerExtraNs(t, deeper, b); math.Abs(got-2*extra) > 1 {
			t.Errorf("%d decodes: eager adds %.0f ns with %d layers, want twice the %.0f ns of %d", n, got, deeper.Model.Layers, extra, model.Layers)
		}
	}
	c.Step = simtest.GPU(t, "l4").Step
	c.Step.EagerLaunchUs = 10
	if got, want := eagerExtraNs(t, c, decodeBatch(1, 1000)), float64(denseLayerKernels*model.Layers)*10e3; math.Abs(got-want) > 1 {
		t.Errorf("eager_launch_us 10: eager adds %.0f ns, want %.0f", got, want)
	}
}

// TestLargeStepsRunEager: a step of more tokens than the largest captured
// CUDA graph runs without one and pays the launches, and the largest
// captured size follows the release's default or the flag.
func TestLargeStepsRunEager(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm"), MaxModelLen: 8192, MaxNumSeqs: 1024})
	m, err := NewStepModel(&c)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.CUDAGraphMaxTokens(); got != 512 {
		t.Fatalf("max-num-seqs 1024: largest CUDA graph %d tokens, want min(2 × 1024, 512) = 512", got)
	}
	launches := eagerLaunches(&c) * profiles.DefaultEagerLaunchUs * 1e3
	in, out := decodeBatch(512, 1000), decodeBatch(513, 1000)
	// The step of 513 costs a request's decode more than the step of 512
	// (measured as the 511-to-512 difference) plus the launches.
	below := decodeBatch(511, 1000)
	perReq := m.StepTimeNs(&in) - m.StepTimeNs(&below)
	if got := m.StepTimeNs(&out) - m.StepTimeNs(&in) - perReq; math.Abs(got-launches) > 0.01*launches {
		t.Errorf("a decode batch of 513 over one of 512 costs %.0f ns beyond a request's, want the launches, %.0f", got, launches)
	}

	for _, tc := range []struct {
		version           string
		maxNumSeqs, given int
		eager             bool
		want              int
		why               string
	}{
		{"0.9.2", 64, 0, false, 512, "512 before 0.10 whatever --max-num-seqs"},
		{"0.10.1", 64, 0, false, 128, "2 × --max-num-seqs from 0.10"},
		{"0.31.0", 150, 0, false, 288, "2 × 150 = 300, the capture list steps by 16 from 256 since 0.11.1"},
		{"0.11.0", 150, 0, false, 296, "300, the capture list steps by 8 before 0.11.1"},
		{"0.31.0", 256, 64, false, 64, "--max-cudagraph-capture-size 64"},
		{"0.31.0", 256, 0, true, 0, "--enforce-eager captures none"},
	} {
		c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm"), MaxModelLen: 8192,
			VLLMVersion: tc.version, MaxNumSeqs: tc.maxNumSeqs, MaxCUDAGraphCaptureSize: tc.given, EnforceEager: tc.eager})
		if got := c.CUDAGraphMaxTokens(); got != tc.want {
			t.Errorf("vLLM %s, max-num-seqs %d: largest CUDA graph %d tokens, want %d (%s)", tc.version, tc.maxNumSeqs, got, tc.want, tc.why)
		}
	}
}

// TestLargestCaptureSize: vLLM's capture list is 1, 2, 4, then multiples
// of 8, and from 0.11.1 multiples of 16 from 256.
func TestLargestCaptureSize(t *testing.T) {
	for _, tc := range []struct {
		limit int
		by16  bool
		want  int
	}{{0, true, 0}, {1, true, 1}, {3, true, 2}, {7, true, 4}, {8, true, 8}, {255, true, 248}, {300, true, 288}, {300, false, 296}, {512, true, 512}} {
		if got := largestCaptureSize(tc.limit, tc.by16); got != tc.want {
			t.Errorf("largestCaptureSize(%d, by16 %v) = %d, want %d", tc.limit, tc.by16, got, tc.want)
		}
	}
}

// TestEagerHoldsNoGraphMemory: --enforce-eager captures no CUDA graph, so
// vLLM's CUDA-graph memory estimate is nothing.
func TestEagerHoldsNoGraphMemory(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm"), MaxModelLen: 8192})
	if cudaGraphBytes(&c) <= 0 {
		t.Fatal("with CUDA graphs: no graph memory")
	}
	c.EnforceEager = true
	if got := cudaGraphBytes(&c); got != 0 {
		t.Errorf("--enforce-eager: %.0f bytes of CUDA-graph memory, want 0", got)
	}
}
