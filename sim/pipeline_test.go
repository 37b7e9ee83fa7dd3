package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

// TestStageLayers: vLLM's get_pp_indices without VLLM_PP_LAYER_PARTITION:
// n // pp each, the remainder one each to the stages before the last.
func TestStageLayers(t *testing.T) {
	for _, tt := range []struct {
		n, pp int
		want  []int
	}{
		{36, 1, []int{36}},
		{36, 2, []int{18, 18}},
		{5, 2, []int{3, 2}},
		{5, 3, []int{2, 2, 1}},
		{61, 4, []int{15, 15, 16, 15}},
		{62, 4, []int{15, 16, 16, 15}},
		{4, 4, []int{1, 1, 1, 1}},
	} {
		if got := stageLayers(tt.n, tt.pp); !slices.Equal(got, tt.want) {
			t.Errorf("stageLayers(%d, %d) = %v; want %v", tt.n, tt.pp, got, tt.want)
		}
	}
}

// TestPipelineCapacity: with PP = 2 each stage is a worker holding half
// the layers' weights (plus the embedding on the first, the LM head on the
// last) and half the layers' KV; the replica's blocks are the smaller of
// the two stages' counts, each floor(available / (block × its layers' KV
// per token)). Against PP = 1 on one GPU, that is more than twice the
// blocks: half the KV per block, and more memory left per GPU.
func TestPipelineCapacity(t *testing.T) {
	base := Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm")}
	one := refResolved(t, base)
	cp1, err := ComputeCapacity(&one)
	if err != nil {
		t.Fatal(err)
	}
	pp := base
	pp.PipelineParallelSize = 2
	two := refResolved(t, pp)
	cp2, err := ComputeCapacity(&two)
	if err != nil {
		t.Fatal(err)
	}

	// The model's arithmetic, stage by stage (36 layers: 18 + 18).
	p := modelParams(&one.Model)
	vocab := (p.embed + p.lmHead) * 2
	body := float64(cp1.WeightBytesPerGPU) - vocab
	forwardOnly := one
	forwardOnly.MaxNumSeqs = 0
	act := []int64{int64(activationPeakBytes(&forwardOnly, p)), cp1.ActivationBytes}
	layerBytes := int64(8 * 128 * 2 * 2) // 8 KV heads × 128 × K,V × bf16
	blockBytes := int64(16 * 18 * layerBytes)
	want := -1
	for i := range 2 {
		w := int64(body/2 + p.embed*2) // the first stage's embedding, the last's head: vocab × hidden each
		avail := cp1.AvailableKVBytes + cp1.WeightBytesPerGPU - w + cp1.ActivationBytes - act[i]
		if b := int(avail / blockBytes); want < 0 || b < want {
			want = b
		}
	}
	if cp2.NumGPUBlocks != want {
		t.Errorf("PP=2 blocks %d; want min over stages %d", cp2.NumGPUBlocks, want)
	}
	if cp2.KVBytesPerToken != 18*layerBytes || cp1.KVBytesPerToken != 36*layerBytes {
		t.Errorf("KV bytes per token per GPU: PP=2 %d, PP=1 %d; want 18 and 36 layers' worth", cp2.KVBytesPerToken, cp1.KVBytesPerToken)
	}
	if cp2.NumGPUBlocks <= 2*cp1.NumGPUBlocks {
		t.Errorf("PP=2 blocks %d; want more than twice PP=1's %d (half the KV per block, less weight per GPU)", cp2.NumGPUBlocks, cp1.NumGPUBlocks)
	}
	// Same tokens per block; the pool is in blocks of the whole model.
	if cp2.BlocksPerMaxLenRequest != cp1.BlocksPerMaxLenRequest {
		t.Errorf("blocks per max-length request %d vs %d", cp2.BlocksPerMaxLenRequest, cp1.BlocksPerMaxLenRequest)
	}
}

// TestPipelineCapacityUnevenStages: with the KV memory given, every stage
// has the same bytes, so the stage with the most layers (3 of 5 at PP=2)
// sets the block count.
func TestPipelineCapacityUnevenStages(t *testing.T) {
	m := simtest.Model(t, "qwen3-8b")
	m.Layers = 5
	layerBytes := int64(8 * 128 * 2 * 2)
	mem := int64(1 << 30)
	for _, tt := range []struct{ pp, mostLayers int }{{1, 5}, {2, 3}, {3, 2}, {5, 1}} {
		c := refResolved(t, Config{Model: m, GPU: simtest.GPU(t, "h100-sxm"), PipelineParallelSize: tt.pp, KVCacheMemoryBytes: mem})
		cp, err := ComputeCapacity(&c)
		if err != nil {
			t.Fatal(err)
		}
		if want := int(mem / (16 * int64(tt.mostLayers) * layerBytes)); cp.NumGPUBlocks != want {
			t.Errorf("PP=%d: %d blocks; want %d (the %d-layer stage)", tt.pp, cp.NumGPUBlocks, want, tt.mostLayers)
		}
	}
}

// TestPipelineValidation: vLLM's bounds (at least one stage, no stage
// without a layer) and thinkcap's (no speculative decoding with PP).
func TestPipelineValidation(t *testing.T) {
	small := simtest.Model(t, "qwen3-8b")
	small.Layers = 4
	for _, tt := range []struct {
		name string
		c    Config
		want string // "" valid
	}{
		{"default", Config{Model: small}, ""},
		{"pp = layers", Config{Model: small, PipelineParallelSize: 4}, ""},
		{"pp > layers", Config{Model: small, PipelineParallelSize: 5}, "--pipeline-parallel-size 5 exceeds the 4 layers"},
		{"negative", Config{Model: small, PipelineParallelSize: -1}, "--pipeline-parallel-size must be at least 1"},
		{"speculative", Config{Model: small, PipelineParallelSize: 2, Speculative: &SpeculativeConfig{Method: SpecNgram, NumSpeculativeTokens: 2}}, "with --speculative-config is not modelled"},
	} {
		c := tt.c
		c.GPU = simtest.GPU(t, "h100-sxm")
		err := c.Resolve()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v; want %q", tt.name, err, tt.want)
		}
		if tt.want == "" && c.PipelineParallelSize < 1 {
			t.Errorf("%s: resolved PP %d", tt.name, c.PipelineParallelSize)
		}
	}
	if c := (Config{TensorParallelSize: 2, PipelineParallelSize: 4}); c.GPUsPerReplica() != 8 {
		t.Errorf("GPUs per replica %d; want TP × PP = 8", c.GPUsPerReplica())
	}
	if err := CheckFlag("pipeline-parallel-size", 0); err == nil {
		t.Error("--pipeline-parallel-size 0 accepted")
	}
}

// TestPipelineStepTime: at one request a decode step with PP = 2 takes the
// sum of both stages (one pass of the whole model) plus one activation
// transfer: no faster than PP = 1. At a large batch the two micro-batches
// overlap, and tokens per second per replica rise against PP = 1 on half
// the GPUs with the same batch.
func TestPipelineStepTime(t *testing.T) {
	gpu := simtest.GPU(t, "h100-sxm")
	// PP turns async scheduling off; the PP=1 baseline runs without it too,
	// so the two differ by the pipeline alone.
	sync := false
	one, _ := stepModelFor(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: gpu, AsyncScheduling: &sync})
	two, _ := stepModelFor(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: gpu, PipelineParallelSize: 2})

	b1 := &Batch{NumReqs: 1, DecodeReqs: 1, DecodeTokens: 1, ContextTokens: 4096}
	s1, s2 := one.StepTimeNs(b1), two.StepTimeNs(b1)
	xfer := two.xferFixedNs + two.xferNsPerToken
	if diff := s2 - s1 - xfer; diff < -1 || diff > 1 {
		t.Errorf("batch 1: PP=2 step %.0f ns; want PP=1's %.0f + one transfer %.0f", s2, s1, xfer)
	}
	if s2 < s1 {
		t.Errorf("batch 1: PP=2 step %.0f ns faster than PP=1 %.0f: the bubbles are missing", s2, s1)
	}

	big := &Batch{NumReqs: 256, DecodeReqs: 256, DecodeTokens: 256, ContextTokens: 256 * 4096}
	half := &Batch{NumReqs: 128, DecodeReqs: 128, DecodeTokens: 128, ContextTokens: 128 * 4096}
	tp1, tp2 := 256/one.StepTimeNs(big), 256/two.StepTimeNs(big)
	if tp2 <= tp1*1.2 {
		t.Errorf("batch 256: PP=2 %.3g tokens/ns; want well above PP=1's %.3g", tp2, tp1)
	}
	// The step is one micro-batch of 128 through the whole model.
	wantNs := two.passNs(loadOf(half)) + two.xferFixedNs + two.xferNsPerToken*128 + two.fixedNs + two.perReqNs*256
	if got := two.StepTimeNs(big); got-wantNs > 1 || wantNs-got > 1 {
		t.Errorf("batch 256: PP=2 step %.0f ns; want one 128-request micro-batch's trip %.0f", got, wantNs)
	}
}

// TestPipelinePrefillStaysWhole: a request stays in one micro-batch, so a
// lone prompt's prefill beside many decodes is not halved by PP = 2: the
// step lasts at least that prefill's pass through the whole model, while
// two prompts of half the length spread over both micro-batches.
func TestPipelinePrefillStaysWhole(t *testing.T) {
	gpu := simtest.GPU(t, "h100-sxm")
	one, _ := stepModelFor(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: gpu})
	two, _ := stepModelFor(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: gpu, PipelineParallelSize: 2})
	const n = 4096
	alone := one.StepTimeNs(&Batch{NumReqs: 1, PrefillTokens: n, PrefillAttnPairs: n * (n + 1) / 2})
	mixed := &Batch{NumReqs: 65, DecodeReqs: 64, DecodeTokens: 64, ContextTokens: 64 * 4096,
		PrefillTokens: n, PrefillAttnPairs: n * (n + 1) / 2}
	if got := two.StepTimeNs(mixed); got < alone {
		t.Errorf("PP=2, one %d-token prompt beside 64 decodes: step %.2f ms; want at least the prompt's own pass %.2f ms", n, got/1e6, alone/1e6)
	}
	split := &Batch{NumReqs: 66, DecodeReqs: 64, DecodeTokens: 64, ContextTokens: 64 * 4096,
		PrefillTokens: n, PrefillAttnPairs: 2 * (n / 2) * (n/2 + 1) / 2}
	if two.StepTimeNs(split) >= two.StepTimeNs(mixed) {
		t.Errorf("PP=2: two prompts of %d tokens take %.2f ms, no less than one of %d (%.2f ms)", n/2, two.StepTimeNs(split)/1e6, n, two.StepTimeNs(mixed)/1e6)
	}
}
