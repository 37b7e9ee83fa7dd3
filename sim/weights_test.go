package sim

import (
	"bufio"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
)

// refQwen25VL7B is Qwen2.5-VL-7B-Instruct's text stack (config.json); it is not
// in the catalog.
func refQwen25VL7B() profiles.Model {
	return profiles.Model{Name: "qwen2.5-vl-7b", Layers: 28, HiddenSize: 3584, NumHeads: 28, NumKVHeads: 4,
		HeadDim: 128, IntermediateSize: 18944, VocabSize: 152064, TotalParamsB: 8.29, ActiveParamsB: 8.29,
		MaxModelLen: 128000, WeightDtype: "bf16"}
}

// refGPU24 is a 24 GB consumer card as torch reports it (RTX 3090: 23.58 GiB).
func refGPU24() profiles.GPU { return profiles.GPU{Name: "rtx-3090", MemoryGiB: 23.58} }

func refResolved(t testing.TB, c Config) Config {
	t.Helper()
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	return c
}

func refRelErr(got, want float64) float64 { return (got - want) / want }

// refPoint is one V1 row of testdata/vllm/kv-capacity-datapoints.md.
type refPoint struct {
	availGiB    float64 // 0 when not logged
	tokens      int64
	concurrency float64 // 0 when not logged
	blocks      int     // "derived: N GPU blocks", when given
}

// refDatapoints parses the fixture table by row id.
func refDatapoints(t *testing.T) map[string]refPoint {
	t.Helper()
	f, err := os.Open("../testdata/vllm/kv-capacity-datapoints.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	num := regexp.MustCompile(`[\d,]+(\.\d+)?`)
	derived := regexp.MustCompile(`derived: ([\d,]+) (GPU|cuda) blocks`)
	parse := func(s string) float64 {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(num.FindString(s), ",", ""), 64)
		return v
	}
	points := map[string]refPoint{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "|")
		if len(cols) < 15 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "S") {
			continue
		}
		p := refPoint{availGiB: parse(cols[11]), tokens: int64(parse(cols[12])), concurrency: parse(cols[13])}
		if m := derived.FindStringSubmatch(cols[12]); m != nil {
			p.blocks = int(parse(m[1]))
		}
		points[strings.TrimSpace(cols[1])] = p
	}
	if len(points) < 9 {
		t.Fatalf("parsed %d data points from the fixture, want at least 9", len(points))
	}
	return points
}

// refStartupLog holds what the S1 log says.
type refStartupLog struct {
	weightsGiB, availGiB float64
	tokens, maxLen       int64
	concurrency          float64
}

var (
	refReAvail   = regexp.MustCompile(`Available KV cache memory: ([\d.]+) GiB`)
	refReTokens  = regexp.MustCompile(`GPU KV cache size: ([\d,]+) tokens`)
	refReConc    = regexp.MustCompile(`Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x`)
	refReWeights = regexp.MustCompile(`Model loading took ([\d.]+) GiB`)
)

// refParseStartupLog reads the capacity lines of a vLLM startup log; it
// accepts the old two-line and the new one-line forms.
func refParseStartupLog(t *testing.T, text string) refStartupLog {
	t.Helper()
	f := func(re *regexp.Regexp, i int) float64 {
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %q in log", re)
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[i], ",", ""), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	l := refStartupLog{availGiB: f(refReAvail, 1), tokens: int64(f(refReTokens, 1)), maxLen: int64(f(refReConc, 1)), concurrency: f(refReConc, 2)}
	if refReWeights.MatchString(text) {
		l.weightsGiB = f(refReWeights, 1)
	}
	return l
}

// TestModelParams checks the parameter split against the architectures
// (each model's Hugging Face config.json, cited in profiles/data/models.yaml).
func TestModelParams(t *testing.T) {
	cases := []struct {
		model          string
		moeLayers      int
		activeNonEmbB  float64 // billions, ±1 %
		denseB         float64
		weightGiBPerTP float64 // on an A100 at TP 1, ±1 %: the bf16 checkpoint (or its own dtype)
	}{
		// 8.19B × 2 B.
		{"qwen3-8b", 0, 6.95, 6.95, 15.26},
		// 94 × 128 experts × 3·4096·1536; active = 22.19B − 1.24B of embedding and head.
		{"qwen3-235b-a22b", 94, 20.93, 6.74, 437.9},
		// Dense layers and MoE layers mixed: (671 − 37) / (248 experts × 3·7168·2048) → 58.
		{"deepseek-r1", 58, 35.7, 15.2, 625.7},
		// gpt-oss quotes active without the input embedding: 3.61 − 0.58 of LM head.
		// Its 12.80 GiB checkpoint loads as 13.66 under Marlin's padding (an A100
		// logged 13.72 under 0.19.0, mxfp4.go).
		{"gpt-oss-20b", 24, 3.03, 0.64, 13.66},
	}
	for _, tc := range cases {
		m := simtest.Model(t, tc.model)
		p := modelParams(&m)
		if p.moeLayers != tc.moeLayers {
			t.Errorf("%s: moeLayers = %d; want %d", tc.model, p.moeLayers, tc.moeLayers)
		}
		if got := p.activeNonEmbedding(&m) / 1e9; math.Abs(refRelErr(got, tc.activeNonEmbB)) > 0.01 {
			t.Errorf("%s: active non-embedding = %.3gB; want %.3gB", tc.model, got, tc.activeNonEmbB)
		}
		if got := p.dense / 1e9; math.Abs(refRelErr(got, tc.denseB)) > 0.01 {
			t.Errorf("%s: dense = %.3gB; want %.3gB", tc.model, got, tc.denseB)
		}
		c := Config{Model: m, GPU: simtest.GPU(t, "a100-80g"), TensorParallelSize: 1, VLLMVersion: "0.11.0"}
		if got := weightBytesPerGPU(&c, p) / bytesPerGiB; math.Abs(refRelErr(got, tc.weightGiBPerTP)) > 0.01 {
			t.Errorf("%s: weights = %.2f GiB; want %.2f", tc.model, got, tc.weightGiBPerTP)
		}
	}
}

func TestWeightDtypes(t *testing.T) {
	m := simtest.Model(t, "qwen3-8b")
	p := modelParams(&m)
	embedGiB := (p.embed + p.lmHead) * 2 / bytesPerGiB
	for _, tc := range []struct {
		quant string
		bytes float64
	}{{"", 2}, {"fp8", 1}, {"mxfp4", 4.25 / 8}, {"nvfp4", 4.5 / 8}} {
		c := Config{Model: m, TensorParallelSize: 2, Quantization: tc.quant}
		want := (embedGiB + p.dense*tc.bytes/bytesPerGiB) / 2
		if got := weightBytesPerGPU(&c, p) / bytesPerGiB; math.Abs(got-want) > 1e-9 {
			t.Errorf("--quantization %q: %.3f GiB per GPU; want %.3f (embedding and head stay bf16)", tc.quant, got, want)
		}
	}
	// DeepSeek-R1 ships fp8; --quantization fp8 changes nothing.
	r1 := simtest.Model(t, "deepseek-r1")
	a := weightBytesPerGPU(&Config{Model: r1, TensorParallelSize: 8}, modelParams(&r1))
	b := weightBytesPerGPU(&Config{Model: r1, TensorParallelSize: 8, Quantization: "fp8"}, modelParams(&r1))
	if a != b {
		t.Errorf("deepseek-r1: %v vs %v bytes with --quantization fp8", a, b)
	}
}

// NVIDIA's NVFP4 checkpoint of an MoE model quantizes the routed experts
// and exports the rest in bf16: Kimi-K2.5-NVFP4 on four GPUs holds about
// 149 GB each (570.7 GB of experts at 4.5 bits, 18.9 GB of attention,
// shared experts and dense layer, 4.7 GB of embedding and head), where
// taking the profile's INT4 experts (no scales) and quantizing the
// attention too would say 129 GB and leave twice the KV cache the corpus
// measures (InferenceX Kimi-K2.5 4×B200 queues from 64 running 9k-token
// requests).
func TestNVFP4MoEQuantizesExpertsOnly(t *testing.T) {
	m := simtest.Model(t, "kimi-k2.5")
	p := modelParams(&m)
	c := Config{Model: m, TensorParallelSize: 4, Quantization: "nvfp4"}
	if got := expertDtype(&c); got != "nvfp4" {
		t.Errorf("experts of the NVFP4 checkpoint: %q; want nvfp4", got)
	}
	if got := linearDtype(&c); got != "bf16" {
		t.Errorf("attention of the NVFP4 checkpoint: %q; want bf16", got)
	}
	want := ((p.embed+p.lmHead)*2 + p.dense*2 + p.routed(&m)*4.5/8) / 4
	if got := weightBytesPerGPU(&c, p); math.Abs(got/want-1) > 1e-9 || got < 145e9 || got > 152e9 {
		t.Errorf("Kimi-K2.5-NVFP4 TP4: %.1f GB per GPU; want %.1f (about 149)", got/1e9, want/1e9)
	}
	// Without --quantization the profile's own INT4 experts stand, W4A16
	// with a bf16 scale per 32 weights: 4.5 bits, as many bytes as NVFP4's.
	base := Config{Model: m, TensorParallelSize: 4}
	if got := expertDtype(&base); got != "int4" {
		t.Errorf("Kimi-K2.5 experts: %q; want the profile's int4", got)
	}
	if got := weightBytesPerGPU(&base, p); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("Kimi-K2.5 INT4 TP4: %.1f GB per GPU; want %.1f (experts at 4.5 bits)", got/1e9, want/1e9)
	}
	// A dense model's NVFP4 checkpoint quantizes every linear layer.
	d := simtest.Model(t, "qwen3-8b")
	if got := linearDtype(&Config{Model: d, Quantization: "nvfp4"}); got != "nvfp4" {
		t.Errorf("dense NVFP4: %q; want nvfp4", got)
	}
}

func TestDrafterWeights(t *testing.T) {
	m, draft := simtest.Model(t, "qwen3-8b"), simtest.Model(t, "qwen3-0.6b")
	p := modelParams(&m)
	layer := p.activeNonEmbedding(&m) / float64(m.Layers)
	h := float64(m.HiddenSize)
	for _, tc := range []struct {
		sc   *SpeculativeConfig
		want float64
	}{
		{nil, 0},
		{&SpeculativeConfig{Method: SpecNgram, NumSpeculativeTokens: 3}, 0},
		{&SpeculativeConfig{Method: SpecSuffix, NumSpeculativeTokens: 3}, 0},
		{&SpeculativeConfig{Method: SpecEagle, NumSpeculativeTokens: 3}, (layer + 2*h*h) * 2},
		{&SpeculativeConfig{Method: SpecEagle3, NumSpeculativeTokens: 3}, (layer + 3*h*h) * 2},
		{&SpeculativeConfig{Method: SpecDraftModel, NumSpeculativeTokens: 3},
			weightBytesPerGPU(&Config{Model: draft, TensorParallelSize: 1}, modelParams(&draft))},
	} {
		c := Config{Model: m, TensorParallelSize: 1, Speculative: tc.sc, DraftModel: &draft}
		if got := drafterWeightBytesPerGPU(&c, p); math.Abs(got-tc.want) > 1 {
			t.Errorf("%+v: drafter weights %.0f; want %.0f", tc.sc, got, tc.want)
		}
	}
	// MTP: one full DeepSeek layer with all 256 experts, about 11B in fp8.
	r1 := simtest.Model(t, "deepseek-r1")
	c := Config{Model: r1, TensorParallelSize: 1, Speculative: &SpeculativeConfig{Method: SpecMTP, NumSpeculativeTokens: 1}}
	if got := drafterWeightBytesPerGPU(&c, modelParams(&r1)) / 1e9; got < 10 || got > 12.5 {
		t.Errorf("deepseek-r1 MTP layer = %.1f GB; want about 11", got)
	}
}

// TestProfileOverheads pins the S4 derivation in weights.go: the sampler
// run dominates the activation peak at 256 sequences, the forward pass at
// large batched-token budgets.
func TestProfileOverheads(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "a100-40g"), MaxNumSeqs: 256, MaxNumBatchedTokens: 8192})
	p := modelParams(&c.Model)
	c.VLLMVersion = "0.16.0" // 24 B a logit before 0.17 (memory.go)
	sampler := 256*151936*24.0 + 8192*4096*2
	if got := activationPeakBytes(&c, p); got != sampler {
		t.Errorf("activation peak %.3f GiB; want the sampler's %.3f GiB", got/bytesPerGiB, sampler/bytesPerGiB)
	}
	c.VLLMVersion = "0.19.1" // 16 B from 0.17: the forward pass is now the larger
	if got, want := activationPeakBytes(&c, p), 8192*2*(2*4096+3*12288.0); got != want || want < 256*151936*16.0+8192*4096*2 {
		t.Errorf("0.19.1: activation peak %.3f GiB; want the forward pass's %.3f GiB", got/bytesPerGiB, want/bytesPerGiB)
	}
	c.MaxNumBatchedTokens = 65536
	forward := 65536 * 2 * (2*4096 + 3*12288.0)
	if got := activationPeakBytes(&c, p); got != forward {
		t.Errorf("activation peak %.3f GiB; want the forward pass's %.3f GiB", got/bytesPerGiB, forward/bytesPerGiB)
	}
	if nonTorchBytes(&Config{TensorParallelSize: 1}) >= nonTorchBytes(&Config{TensorParallelSize: 2}) {
		t.Error("TP > 1 adds no NCCL buffers")
	}
	for n, want := range map[int]int{0: 0, 1: 1, 4: 3, 8: 4, 248: 34, 256: 35, 512: 51, 4096: 51} {
		if got := captureSizesUpTo(n); got != want {
			t.Errorf("captureSizesUpTo(%d) = %d; want %d", n, got, want)
		}
	}
	// 256 sequences: 51 PIECEWISE + 35 FULL graphs, the log behind the fit (1.58 GiB).
	// Before 0.21 (logged, not subtracted).
	c = refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm"), MaxNumSeqs: 256, VLLMVersion: "0.20.1"})
	if got := cudaGraphBytes(&c) / bytesPerGiB; math.Abs(got-1.578) > 0.01 {
		t.Errorf("CUDA graphs for 256 sequences = %.3f GiB; want 1.58", got)
	}
	// From 0.21 the estimate is about half: 16 PIECEWISE graphs → 0.36 GiB (a 0.27.1 log).
	if got := (cudaGraphSharedBytes + 15*memoryModelFor(VLLMVersion{0, 27, 1}).cudaGraphBytesPerGraph) / bytesPerGiB; math.Abs(got-0.36) > 0.01 {
		t.Errorf("CUDA graphs for 16 graphs = %.3f GiB; want 0.36", got)
	}
}
