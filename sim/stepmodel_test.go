package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
)

// stepModelFor resolves c and builds its step model.
func stepModelFor(t testing.TB, c Config) (*StepModel, Config) {
	t.Helper()
	c = refResolved(t, c)
	m, err := NewStepModel(&c)
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

// decodeITLms is the concurrency-1 decode step of a request with ctx tokens
// in its KV cache, in milliseconds.
func decodeITLms(m *StepModel, ctx int) float64 {
	return float64(m.StepTime(&Batch{NumReqs: 1, DecodeReqs: 1, DecodeTokens: 1, ContextTokens: int64(ctx)})) / 1e6
}

var calibrationContexts = []int{256, 1024, 4096, 16384, 32768, 65536, 125000}

// TestDecodeITLCalibration: with the embedded GPU profiles' coefficients,
// concurrency-1 decode ITL reproduces the vLLM FP8-KV blog's fits
// (https://blog.vllm.ai/2026/04/22/fp8-kvcache.html: vLLM v0.19.1,
// ITL = intercept + slope × ctx)
// within 10 % from 256 to 125,000 context tokens, and gpt-oss-20b's bf16
// slopes within 10 %.
func TestDecodeITLCalibration(t *testing.T) {
	llama := simtest.Model(t, "llama-3.1-8b")
	llama.MaxModelLen = 131072
	series := []struct {
		gpu, kv              string
		intercept, slopeMsPT float64
	}{
		{"h100-sxm", "auto", 6.44, 4.37e-5},
		{"h100-sxm", "fp8", 6.58, 2.37e-5},
		{"b200", "auto", 3.93, 1.80e-5},
		{"b200", "fp8", 3.96, 9.72e-6},
	}
	for _, s := range series {
		m, _ := stepModelFor(t, Config{Model: llama, GPU: simtest.GPU(t, s.gpu), KVCacheDtype: s.kv})
		worst := 0.0
		for _, ctx := range calibrationContexts {
			got, want := decodeITLms(m, ctx), s.intercept+s.slopeMsPT*float64(ctx)
			if e := refRelErr(got, want); math.Abs(e) > math.Abs(worst) {
				worst = e
			}
			if e := refRelErr(got, want); math.Abs(e) > 0.10 {
				t.Errorf("llama-3.1-8b %s kv %s ctx %d: ITL %.3f ms; want %.3f ms ± 10%%", s.gpu, s.kv, ctx, got, want)
			}
		}
		t.Logf("llama-3.1-8b %s kv %s: ITL(256) %.2f ms, ITL(125k) %.2f ms, worst error %+.1f%%",
			s.gpu, s.kv, decodeITLms(m, 256), decodeITLms(m, 125000), 100*worst)
	}
	for _, s := range []struct {
		gpu   string
		slope float64
	}{{"h100-sxm", 8.94e-6}, {"b200", 3.56e-6}} {
		m, _ := stepModelFor(t, Config{Model: simtest.Model(t, "gpt-oss-20b"), GPU: simtest.GPU(t, s.gpu)})
		got := (decodeITLms(m, 125000) - decodeITLms(m, 8192)) / (125000 - 8192)
		e := refRelErr(got, s.slope)
		t.Logf("gpt-oss-20b %s: slope %.3g ms/token (blog %.3g, %+.1f%%), ITL(256) %.2f ms", s.gpu, got, s.slope, 100*e, decodeITLms(m, 256))
		if math.Abs(e) > 0.10 {
			t.Errorf("gpt-oss-20b %s: slope %.3g ms/token; want %.3g ± 10%%", s.gpu, got, s.slope)
		}
	}
}

func TestStepTimeMonotone(t *testing.T) {
	for _, model := range []string{"qwen3-8b", "qwen3-30b-a3b", "gpt-oss-20b", "deepseek-r1-distill-llama-8b"} {
		m, _ := stepModelFor(t, Config{Model: simtest.Model(t, model), GPU: simtest.GPU(t, "h100-sxm")})
		prev := int64(0)
		for ctx := int64(0); ctx <= 1<<20; ctx += 1 << 14 {
			d := m.StepTime(&Batch{NumReqs: 8, DecodeReqs: 8, DecodeTokens: 8, ContextTokens: ctx})
			if d < prev {
				t.Fatalf("%s: step time falls from %d to %d ns at context %d", model, prev, d, ctx)
			}
			prev = d
		}
		prefill := func(n int) int64 {
			return m.StepTime(&Batch{NumReqs: 1, PrefillTokens: n, PrefillAttnPairs: int64(n) * int64(n+1) / 2})
		}
		decode := func(reqs int) int64 {
			return m.StepTime(&Batch{NumReqs: reqs, DecodeReqs: reqs, DecodeTokens: reqs, ContextTokens: int64(reqs) * 2000})
		}
		for n := 1; n < 8192; n += 7 {
			if a, b := prefill(n), prefill(n+7); b < a {
				t.Fatalf("%s: prefill of %d tokens takes %d ns, of %d %d", model, n+7, b, n, a)
			}
		}
		for reqs := 1; reqs < 1024; reqs++ {
			if a, b := decode(reqs), decode(reqs+1); b < a {
				t.Fatalf("%s: decode batch of %d takes %d ns, of %d %d", model, reqs+1, b, reqs, a)
			}
		}
		if prefill(8192) < 3*prefill(1) || decode(1024) < 3*decode(1) {
			t.Errorf("%s: prefill 1→8192 tokens %d→%d ns, decode batch 1→1024 %d→%d ns: want growth", model,
				prefill(1), prefill(8192), decode(1), decode(1024))
		}
	}
}

// TestTensorParallel: TP=2 halves the weights read per GPU and adds the
// all-reduces.
func TestTensorParallel(t *testing.T) {
	model, gpu := simtest.Model(t, "llama-3.1-70b"), simtest.GPU(t, "h100-sxm")
	m1, _ := stepModelFor(t, Config{Model: model, GPU: gpu, TensorParallelSize: 2})
	m2, _ := stepModelFor(t, Config{Model: model, GPU: gpu, TensorParallelSize: 4})
	if r := m1.denseBytes / m2.denseBytes; math.Abs(r-2) > 1e-9 {
		t.Errorf("weights per GPU TP2/TP4 = %v; want 2", r)
	}
	if m1.ar.fixedNs <= 0 || m1.ar.nsPerToken <= 0 || m2.ar.nsPerToken <= m1.ar.nsPerToken {
		t.Errorf("all-reduce terms: TP2 %v+%v/token, TP4 %v/token", m1.ar.fixedNs, m1.ar.nsPerToken, m2.ar.nsPerToken)
	}
	b := Batch{NumReqs: 1, DecodeReqs: 1, DecodeTokens: 1, ContextTokens: 1000}
	d2, d4 := m1.StepTime(&b), m2.StepTime(&b)
	if !(d4 < d2 && float64(d4) > float64(d2)/2) {
		t.Errorf("decode step TP2 %d ns, TP4 %d ns: want TP4 faster but not twice (all-reduce, overheads)", d2, d4)
	}
	m0, _ := stepModelFor(t, Config{Model: simtest.Model(t, "llama-3.1-8b"), GPU: gpu})
	if m0.ar.fixedNs != 0 || m0.ar.nsPerToken != 0 {
		t.Error("TP1 has all-reduce cost")
	}
}

// TestFP8KVCache: fp8 KV halves the bytes read; at long context the step is
// faster, at short context it is not (the read penalty).
func TestFP8KVCache(t *testing.T) {
	model, gpu := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
	bf, _ := stepModelFor(t, Config{Model: model, GPU: gpu})
	f8, _ := stepModelFor(t, Config{Model: model, GPU: gpu, KVCacheDtype: "fp8"})
	long := Batch{NumReqs: 64, DecodeReqs: 64, DecodeTokens: 64, ContextTokens: 64 * 30000}
	if a, b := f8.StepTime(&long), bf.StepTime(&long); a >= b {
		t.Errorf("fp8 KV at 30k context: %d ns, bf16 %d ns; want fp8 faster", a, b)
	}
	if f8.kvFullBytes*2 != bf.kvFullBytes {
		t.Errorf("fp8 KV bytes %v; want half of %v", f8.kvFullBytes, bf.kvFullBytes)
	}
}

// TestMoEExpertsTouched: an MoE step reads more weights than the active
// experts of one token and never more than all experts.
func TestMoEExpertsTouched(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-30b-a3b"), GPU: simtest.GPU(t, "h100-sxm")})
	m, err := NewStepModel(&c)
	if err != nil {
		t.Fatal(err)
	}
	e, k := float64(c.Model.NumExperts), float64(c.Model.ExpertsPerToken)
	if got := m.experts(1); math.Abs(got-k) > 1e-9 {
		t.Errorf("experts(1) = %v; want %v", got, k)
	}
	prev := 0.0
	for _, n := range []int{2, 8, 32, 128, 1024, 100000} {
		got := m.experts(n)
		want := e * (1 - math.Pow(1-k/e, float64(n)))
		if got < k || got > e || got < prev || math.Abs(got-want) > 1e-6 {
			t.Errorf("experts(%d) = %v; want %v in [%v, %v]", n, got, want, k, e)
		}
		prev = got
	}
	dense, _ := stepModelFor(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm")})
	if dense.experts(100) != 0 || dense.expertBytes != 0 {
		t.Error("dense model reads experts")
	}
}

// TestDraftingCost: ngram drafts for free; EAGLE-3 and a draft model add
// their sequential passes to a decode step.
func TestDraftingCost(t *testing.T) {
	model, gpu := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
	draft := simtest.Model(t, "qwen3-0.6b")
	base, _ := stepModelFor(t, Config{Model: model, GPU: gpu})
	b := Batch{NumReqs: 16, DecodeReqs: 16, DecodeTokens: 16 * 4, DraftTokens: 16 * 3, ContextTokens: 16 * 4000}
	plain := base.StepTime(&b)
	// ngram drafting turns async scheduling off (vllm/config/vllm.py):
	// its step is the synchronous engine's, with nothing drafted on the GPU.
	sync := false
	syncBase, _ := stepModelFor(t, Config{Model: model, GPU: gpu, AsyncScheduling: &sync})
	plainSync := syncBase.StepTime(&b)
	got := map[string]int64{}
	for _, sc := range []*SpeculativeConfig{
		{Method: SpecNgram, NumSpeculativeTokens: 3},
		{Method: SpecEagle3, Model: "eagle3-head", NumSpeculativeTokens: 3},
		{Method: SpecMTP, NumSpeculativeTokens: 3},
		{Method: SpecDraftModel, Model: "Qwen/Qwen3-0.6B", NumSpeculativeTokens: 3},
	} {
		c := Config{Model: model, GPU: gpu, Speculative: sc}
		if sc.Method == SpecDraftModel {
			c.DraftModel = &draft
		}
		m, _ := stepModelFor(t, c)
		got[sc.Method] = m.StepTime(&b)
	}
	if got[SpecNgram] != plainSync {
		t.Errorf("ngram step %d ns; want %d (no GPU drafting, synchronous scheduling)", got[SpecNgram], plainSync)
	}
	// Each of the K = 3 drafting passes runs a model smaller than the
	// target on the same requests, so it costs less than a target step: an
	// EAGLE or MTP layer far less, a 28-layer draft model up to one step
	// (its layers' kernel floors add up).
	for _, method := range []string{SpecEagle3, SpecMTP, SpecDraftModel} {
		extra := float64(got[method]-plain) / 1e6
		limit := float64(plain) / 1e6
		if method == SpecDraftModel {
			limit *= 3
		}
		t.Logf("%s adds %.2f ms to a 16-request decode step of %.2f ms", method, extra, float64(plain)/1e6)
		if extra <= 0 || extra > limit {
			t.Errorf("%s adds %.2f ms; want (0, %.2f]", method, extra, limit)
		}
	}
	if got[SpecDraftModel] <= got[SpecEagle3] {
		t.Error("a 0.6B draft model should cost more than one EAGLE-3 layer")
	}
}

func TestNewStepModelErrors(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm"), TensorParallelSize: 2, KVCacheDtype: "fp8"})
	c.Step.WeightBandwidthEfficiency = 1.5
	c.Step.FP8KVReadPenalty = 0
	c.Step.StepOverheadMs = -1
	c.GPU.InterconnectGBps = 0
	_, err := NewStepModel(&c)
	if err == nil {
		t.Fatal("NewStepModel succeeded with bad coefficients")
	}
	for _, want := range []string{"weight_bandwidth_efficiency 1.5 must be in (0, 1]", "fp8_kv_read_penalty",
		"step_overhead_ms -1 must be >= 0", "interconnect_gbps"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := NewStepModel(&Config{}); err == nil {
		t.Error("NewStepModel accepted an unresolved config")
	}
}

func TestStepTimeDoesNotAllocate(t *testing.T) {
	draft := simtest.Model(t, "qwen3-0.6b")
	m, _ := stepModelFor(t, Config{Model: simtest.Model(t, "qwen3-30b-a3b"), GPU: simtest.GPU(t, "h100-sxm"), TensorParallelSize: 2,
		Speculative: &SpeculativeConfig{Method: SpecDraftModel, Model: "d", NumSpeculativeTokens: 2}, DraftModel: &draft})
	b := Batch{NumReqs: 40, PrefillTokens: 512, DecodeReqs: 39, DecodeTokens: 117, DraftTokens: 78,
		ContextTokens: 400000, PrefillAttnPairs: 512 * 513 / 2}
	if n := testing.AllocsPerRun(1000, func() { m.StepTime(&b) }); n != 0 {
		t.Errorf("StepTime allocates %v times per call", n)
	}
}

func BenchmarkStepTime(b *testing.B) {
	m, _ := stepModelFor(b, Config{Model: simtest.Model(b, "gpt-oss-20b"), GPU: simtest.GPU(b, "h100-sxm"),
		Speculative: &SpeculativeConfig{Method: SpecEagle3, Model: "h", NumSpeculativeTokens: 3}})
	batch := Batch{NumReqs: 64, PrefillTokens: 1024, DecodeReqs: 63, DecodeTokens: 252, DraftTokens: 189,
		ContextTokens: 2_000_000, PrefillAttnPairs: 1024 * 1025 / 2}
	b.ReportAllocs()
	var sum int64
	for b.Loop() {
		sum += m.StepTime(&batch)
	}
	_ = sum
}

// TestAllReduceViaHost: on a GPU whose all-reduces NCCL stages through host
// memory, host_all_reduce_efficiency prices them (a lower one, a slower
// prefill at TP 2), and an unset one falls back to interconnect_efficiency.
func TestAllReduceViaHost(t *testing.T) {
	gpu := simtest.GPU(t, "a100-80g-pcie")
	if !gpu.AllReduceViaHost {
		t.Fatal("a100-80g-pcie: want all_reduce_via_host (its corpus logs lack GPU P2P)")
	}
	cfg := func(host float64) Config {
		c := Config{Model: simtest.Model(t, "qwen3-8b"), GPU: gpu, TensorParallelSize: 2}
		c.GPU.Step.InterconnectEfficiency, c.GPU.Step.HostAllReduceEfficiency = 0.8, host
		return c
	}
	prefill := Batch{NumReqs: 1, PrefillTokens: 2048, PrefillAttnPairs: 2048 * 2049 / 2}
	slow, _ := stepModelFor(t, cfg(0.2))
	fast, _ := stepModelFor(t, cfg(0.8))
	unset, _ := stepModelFor(t, cfg(0))
	if slow.StepTime(&prefill) <= fast.StepTime(&prefill) {
		t.Errorf("prefill at host efficiency 0.2: %d ns, at 0.8: %d ns; want slower", slow.StepTime(&prefill), fast.StepTime(&prefill))
	}
	if r := slow.ar.nsPerToken / fast.ar.nsPerToken; math.Abs(r-4) > 1e-9 {
		t.Errorf("all-reduce time per token 0.2 / 0.8 = %v; want 4", r)
	}
	if unset.ar.nsPerToken != fast.ar.nsPerToken {
		t.Errorf("unset host efficiency: %v ns/token, want interconnect_efficiency's %v", unset.ar.nsPerToken, fast.ar.nsPerToken)
	}
	nvlink := cfg(0.2)
	nvlink.GPU.AllReduceViaHost = false
	if m, _ := stepModelFor(t, nvlink); m.ar.nsPerToken != fast.ar.nsPerToken {
		t.Errorf("peer-to-peer GPU priced by host efficiency: %v ns/token, want %v", m.ar.nsPerToken, fast.ar.nsPerToken)
	}

	// The latency likewise: host_all_reduce_latency_us where NCCL stages
	// through the host, two a layer; unset, all_reduce_latency_us.
	latency := func(viaHost bool, own, host float64) float64 {
		c := cfg(0.8)
		c.GPU.AllReduceViaHost = viaHost
		c.GPU.Step.AllReduceLatencyUs, c.GPU.Step.HostAllReduceLatencyUs = own, host
		m, _ := stepModelFor(t, c)
		return m.ar.fixedNs
	}
	layers := float64(simtest.Model(t, "qwen3-8b").Layers)
	for _, tc := range []struct {
		viaHost   bool
		own, host float64
		wantUs    float64
	}{{true, 10, 40, 40}, {true, 10, 0, 10}, {false, 10, 40, 10}} {
		if got := latency(tc.viaHost, tc.own, tc.host); math.Abs(got-2*layers*tc.wantUs*1e3) > 1e-6 {
			t.Errorf("via host %v, latency %g, host latency %g: %g ns a step, want %g µs × 2 × %g layers", tc.viaHost, tc.own, tc.host, got, tc.wantUs, layers)
		}
	}
}

// TestHostAllReduceProtocols: through host memory an all-reduce costs the
// cheaper of NCCL's two protocols, so a lone decode's small all-reduces
// take the low-latency one and a prefill's megabytes the Simple one; a
// step never costs more than with either alone, and a GPU with
// peer-to-peer ignores the low-latency coefficients.
func TestHostAllReduceProtocols(t *testing.T) {
	cfg := func(viaHost bool, smallEff float64) Config {
		c := Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "a100-80g-pcie"), TensorParallelSize: 2}
		c.GPU.AllReduceViaHost = viaHost
		k := &c.GPU.Step
		k.HostAllReduceEfficiency, k.HostAllReduceLatencyUs = 0.3, 40
		k.HostSmallAllReduceEfficiency, k.HostSmallAllReduceLatencyUs = smallEff, 5
		return c
	}
	both, _ := stepModelFor(t, cfg(true, 0.02))
	simple, _ := stepModelFor(t, cfg(true, 0))
	decode := Batch{NumReqs: 1, DecodeReqs: 1, DecodeTokens: 1, ContextTokens: 1000}
	prefill := Batch{NumReqs: 1, PrefillTokens: 8192, PrefillAttnPairs: 8192 * 8193 / 2}
	layers := float64(simtest.Model(t, "qwen3-8b").Layers)
	if got, want := both.ar.ns(1), 2*layers*5e3+both.ar.smallNsPerToken; math.Abs(got-want) > 1e-6 {
		t.Errorf("lone decode's all-reduces: %g ns, want the low-latency protocol's %g", got, want)
	}
	if got, want := both.ar.ns(8192), simple.ar.ns(8192); got != want {
		t.Errorf("8192-token prefill's all-reduces: %g ns, want Simple's %g", got, want)
	}
	if d, s := both.StepTime(&decode), simple.StepTime(&decode); d >= s {
		t.Errorf("lone decode with the low-latency protocol: %d ns, Simple alone %d ns; want faster", d, s)
	}
	if p, s := both.StepTime(&prefill), simple.StepTime(&prefill); p != s {
		t.Errorf("prefill with both protocols %d ns, Simple alone %d ns; want equal", p, s)
	}
	for tokens := 1.0; tokens <= 1<<14; tokens *= 2 {
		got := both.ar.ns(tokens)
		small := both.ar.smallFixedNs + both.ar.smallNsPerToken*tokens
		if got != min(small, simple.ar.ns(tokens)) {
			t.Errorf("%g tokens: %g ns, want the cheaper of %g and %g", tokens, got, small, simple.ar.ns(tokens))
		}
	}
	p2p, _ := stepModelFor(t, cfg(false, 0.02))
	if p2p.ar.smallNsPerToken != 0 {
		t.Errorf("peer-to-peer GPU has a low-latency host protocol: %+v", p2p.ar)
	}
}

// TestNormAllReduces: MiniMax-M2's Q/K normalisation over every head adds
// one all-reduce a layer under TP, a latency with next to no bytes (two
// fp32 sums a token), and nothing at TP 1.
func TestNormAllReduces(t *testing.T) {
	gpu := simtest.GPU(t, "h100-sxm")
	model := simtest.Model(t, "minimax-m2.5")
	if model.NormAllReduces != 1 {
		t.Fatalf("minimax-m2.5 norm_all_reduces %d, want 1 (qk_norm_type per_layer)", model.NormAllReduces)
	}
	plain := model
	plain.NormAllReduces = 0
	for _, tp := range []int{1, 4, 8} {
		with, rc := stepModelFor(t, Config{Model: model, GPU: gpu, TensorParallelSize: tp})
		without, _ := stepModelFor(t, Config{Model: plain, GPU: gpu, TensorParallelSize: tp})
		decode := Batch{NumReqs: 1, DecodeReqs: 1, DecodeTokens: 1, ContextTokens: 1000}
		extra := float64(with.StepTime(&decode) - without.StepTime(&decode))
		want := 0.0
		if tp > 1 {
			want = float64(model.Layers) * rc.Step.AllReduceLatencyUs * 1e3
		}
		if math.Abs(extra-want) > 0.01*want+2 {
			t.Errorf("TP %d: the norm all-reduces add %.0f ns to a lone decode, want %.0f (one latency a layer)", tp, extra, want)
		}
		if tp > 1 {
			// A token's two fp32 sums against its two bf16 hidden states.
			bytes := 8 / (4 * float64(model.HiddenSize)) * without.ar.nsPerToken * 1024
			if d := with.ar.ns(1024) - without.ar.ns(1024) - want; math.Abs(d-bytes) > 1 {
				t.Errorf("TP %d: 1,024 tokens' norm all-reduces cost %.0f ns beyond their latency, want %.0f", tp, d, bytes)
			}
		}
	}
}

// TestExpertOverlap: an MoE layer's grouped GEMMs hide only half the
// shorter of their weight reads and FLOPs under the longer. A 256-request
// MiniMax-M2.5 decode on H100 TP 4 reads every expert (memory-bound), yet
// its experts' FLOPs still add half their time to the step, which a
// roofline's max would not; a dense model's step has no such term.
func TestExpertOverlap(t *testing.T) {
	gpu := simtest.GPU(t, "h100-sxm")
	for _, tc := range []struct {
		model string
		moe   bool
	}{{"minimax-m2.5", true}, {"qwen3-32b", false}} {
		m, _ := stepModelFor(t, Config{Model: simtest.Model(t, tc.model), GPU: gpu, TensorParallelSize: 4})
		b := Batch{NumReqs: 256, DecodeReqs: 256, DecodeTokens: 256, ContextTokens: 256 * 1500}
		l := loadOf(&b)
		noFLOPs := *m
		noFLOPs.expertNsPerToken = 0
		got := m.passNs(l) - noFLOPs.passNs(l)
		want := 0.0
		if tc.moe {
			mem, flops := m.expertBytes*m.experts(256)*m.expertNsPerByte, m.expertNsPerToken*256
			if flops >= mem {
				t.Fatalf("%s: 256 decodes' experts are not memory-bound (%.0f ns of FLOPs, %.0f of reads)", tc.model, flops, mem)
			}
			want = expertOverlapLoss * flops
		}
		if math.Abs(got-want) > 1e-6*max(want, 1) {
			t.Errorf("%s: the experts' FLOPs add %.0f ns to a memory-bound step, want %.0f", tc.model, got, want)
		}
	}
}

// TestPrefillFloor: the compute floor is 2 × active parameters × tokens at
// the tensor-core peak over the replica's GPUs, and no step the model
// prices for that prefill is shorter.
func TestPrefillFloor(t *testing.T) {
	gpu := simtest.GPU(t, "h100-sxm")
	for _, tc := range []struct {
		model string
		tp    int
	}{{"qwen3-8b", 1}, {"llama-3.1-70b", 4}, {"gpt-oss-120b", 2}, {"qwen3-235b-a22b", 8}} {
		c := Config{Model: simtest.Model(t, tc.model), GPU: gpu, TensorParallelSize: tc.tp}
		m, rc := stepModelFor(t, c)
		floor := PrefillFloorSeconds(&rc, 4096)
		b := Batch{NumReqs: 1, PrefillTokens: 4096, PrefillAttnPairs: 4096 * 4097 / 2}
		if step := float64(m.StepTime(&b)) / 1e9; floor <= 0 || floor > step {
			t.Errorf("%s TP %d: floor %.4f s, step %.4f s; want 0 < floor <= step", tc.model, tc.tp, floor, step)
		}
	}
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: gpu})
	p := modelParams(&c.Model)
	want := 2 * p.activeNonEmbedding(&c.Model) * 1000 / (gpu.BF16TFLOPS * 1e12)
	if got := PrefillFloorSeconds(&c, 1000); math.Abs(got-want) > 1e-12 {
		t.Errorf("qwen3-8b, 1,000 tokens: %.6f s, want %.6f", got, want)
	}
}

// TestExpertParallelImbalance: with --enable-expert-parallel a small
// decode batch waits for its busiest rank (more expert bytes than the
// evenly sharded experts), a batch that touches every expert everywhere
// costs the same, and the expected largest of n normals is the tabled one.
func TestExpertParallelImbalance(t *testing.T) {
	for n, want := range map[int]float64{1: 0, 2: 0.5642, 4: 1.0294, 8: 1.4236} {
		if got := expectedMaxNormal(n); math.Abs(got-want) > 1e-3 {
			t.Errorf("expectedMaxNormal(%d) = %.4f; want %.4f", n, got, want)
		}
	}
	shard, _ := expertsEP(256, 8, 4, 8192)
	even := expertsTouchedTable(256, 8, 8192)
	if r := shard[4] / even[4]; r < 1.15 || r > 1.6 {
		t.Errorf("4 tokens on 4 EP ranks: busiest rank %.2f× the even share; want about 1.3×", r)
	}
	if r := shard[len(shard)-1] / even[len(even)-1]; math.Abs(r-1) > 1e-3 {
		t.Errorf("every expert touched: %.4f× the even share; want 1", r)
	}
	step := func(ep bool, decode int) int64 {
		sm, _ := stepModelFor(t, Config{Model: simtest.Model(t, "minimax-m2.5"), GPU: simtest.GPU(t, "h100-sxm"), TensorParallelSize: 4, EnableExpertParallel: ep})
		return sm.StepTime(&Batch{NumReqs: decode, DecodeReqs: decode, DecodeTokens: decode, ContextTokens: int64(decode) * 1024})
	}
	if tp, ep := step(false, 4), step(true, 4); ep <= tp {
		t.Errorf("4 decodes: EP step %d ns not slower than TP's %d", ep, tp)
	}
	if tp, ep := step(false, 512), step(true, 512); float64(ep) > 1.01*float64(tp) {
		t.Errorf("512 decodes: EP step %d ns; TP's %d (every expert touched on every rank)", ep, tp)
	}
}

// TestTritonAttentionBeforeHopper: gpt-oss (attention sinks) on an A100
// prices its attention FLOPs at the Triton backend's efficiency; on an
// H100 (FlashAttention 3), and a model without sinks on an A100, at
// attention_compute_efficiency.
func TestTritonAttentionBeforeHopper(t *testing.T) {
	prefill := func(model, gpu string, triton float64) int64 {
		g := simtest.GPU(t, gpu)
		g.Step.TritonAttentionComputeEfficiency = triton
		sm, _ := stepModelFor(t, Config{Model: simtest.Model(t, model), GPU: g})
		return sm.StepTime(&Batch{NumReqs: 1, PrefillTokens: 2048, ContextTokens: 30000, PrefillAttnPairs: 2048*30000 + 2048*2049/2})
	}
	if slow, fast := prefill("gpt-oss-20b", "a100-80g", 0.05), prefill("gpt-oss-20b", "a100-80g", 0.9); slow <= fast {
		t.Errorf("gpt-oss on A100: a slower Triton kernel (%d ns) is not slower than a fast one (%d ns)", slow, fast)
	}
	for _, c := range [][2]string{{"gpt-oss-20b", "h100-sxm"}, {"qwen3-8b", "a100-80g"}} {
		if a, b := prefill(c[0], c[1], 0.05), prefill(c[0], c[1], 0.9); a != b {
			t.Errorf("%s on %s: the Triton efficiency moved the step (%d vs %d ns)", c[0], c[1], a, b)
		}
	}
}

// b200Decode is a TP 8 decode step of 16 requests at 2,000 tokens of
// context on B200s whose step coefficients set changes.
func b200Decode(t *testing.T, model, quant string, set func(*profiles.StepCoefficients)) int64 {
	g := simtest.GPU(t, "b200")
	set(&g.Step)
	sm, _ := stepModelFor(t, Config{Model: simtest.Model(t, model), GPU: g, TensorParallelSize: 8, Quantization: quant})
	return sm.StepTime(&Batch{NumReqs: 16, DecodeReqs: 16, DecodeTokens: 16, ContextTokens: 16 * 2000})
}

// INT4 weight-only experts (Kimi-K2's own checkpoint) stream their weights
// through their own kernels' efficiency; NVIDIA's NVFP4 checkpoint of the
// same model and an fp8 MoE do not see it.
func TestINT4ExpertKernels(t *testing.T) {
	decode := func(model, quant string, bw float64) int64 {
		return b200Decode(t, model, quant, func(k *profiles.StepCoefficients) { k.INT4ExpertBandwidthEfficiency = bw })
	}
	if slow, fast := decode("kimi-k2.5", "", 0.3), decode("kimi-k2.5", "", 0.9); float64(slow) < 1.3*float64(fast) {
		t.Errorf("Kimi-K2.5 INT4 decode: %d ns at 30%% of bandwidth, %d ns at 90%%; the experts' reads should dominate", slow, fast)
	}
	for _, c := range [][2]string{{"kimi-k2.5", "nvfp4"}, {"minimax-m2.5", ""}} {
		if a, b := decode(c[0], c[1], 0.3), decode(c[0], c[1], 0.9); a != b {
			t.Errorf("%s --quantization %q: the INT4 efficiency moved the step (%d vs %d ns)", c[0], c[1], a, b)
		}
	}
}

// mla_layer_overhead_us adds to every layer of an MLA model (Kimi-K2.5:
// 61) and to no layer of a GQA one.
func TestMLALayerOverhead(t *testing.T) {
	decode := func(model, quant string, us float64) int64 {
		return b200Decode(t, model, quant, func(k *profiles.StepCoefficients) { k.MLALayerOverheadUs = us })
	}
	if d := decode("kimi-k2.5", "nvfp4", 20) - decode("kimi-k2.5", "nvfp4", 0); d < 61*20*1000*99/100 || d > 61*20*1000*101/100 {
		t.Errorf("Kimi-K2.5: 20 µs per MLA layer added %d ns; want 61 layers × 20 µs", d)
	}
	if a, b := decode("gpt-oss-120b", "", 20), decode("gpt-oss-120b", "", 0); a != b {
		t.Errorf("gpt-oss-120b (GQA): the MLA overhead moved the step (%d vs %d ns)", a, b)
	}
}

// block_fp8_compute_efficiency prices the linear layers of a block-scaled
// FP8 checkpoint (Qwen's, DeepSeek's, MiniMax's) and no other: not a
// per-tensor FP8 one (NVIDIA's Llama), not the bf16 checkpoint.
func TestBlockFP8Linear(t *testing.T) {
	prefill := func(model, quant string, eff float64) int64 {
		g := simtest.GPU(t, "h100-sxm")
		g.Step.BlockFP8ComputeEfficiency = eff
		sm, _ := stepModelFor(t, Config{Model: simtest.Model(t, model), GPU: g, TensorParallelSize: 2, Quantization: quant})
		return sm.StepTime(&Batch{NumReqs: 1, PrefillTokens: 8192, PrefillAttnPairs: 8192 * 8193 / 2})
	}
	if slow, fast := prefill("qwen3-32b", "fp8", 0.1), prefill("qwen3-32b", "fp8", 0.9); slow <= fast {
		t.Errorf("Qwen3-32B-FP8 prefill: %d ns at 10%% of the FP8 peak, %d ns at 90%%", slow, fast)
	}
	for _, c := range [][2]string{{"qwen3-32b", ""}, {"llama-3.1-70b", "fp8"}} {
		if a, b := prefill(c[0], c[1], 0.1), prefill(c[0], c[1], 0.9); a != b {
			t.Errorf("%s --quantization %q: the block-FP8 efficiency moved the step (%d vs %d ns)", c[0], c[1], a, b)
		}
	}
}

// TestKVScatterGrowsWithTheWorkingSet: kv_scatter_us_per_gb2 adds W² ×
// the coefficient to a memory-bound decode step reading W GB of KV, so
// doubling every request's context quadruples what it adds, and 0 adds
// nothing.
func TestKVScatterGrowsWithTheWorkingSet(t *testing.T) {
	c := refResolved(t, Config{Model: simtest.Model(t, "qwen3-8b"), GPU: simtest.GPU(t, "h100-sxm")})
	build := func(scatter float64) *StepModel {
		c := c
		c.Step.KVScatterUsPerGB2 = scatter
		m, err := NewStepModel(&c)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	without, with := build(0), build(2)
	added := func(ctx int64) (got, want float64) {
		b := Batch{NumReqs: 64, DecodeReqs: 64, DecodeTokens: 64, ContextTokens: 64 * ctx}
		gb := without.kvFullBytes * float64(b.ContextTokens+int64(b.DecodeTokens)) / 1e9
		return with.StepTimeNs(&b) - without.StepTimeNs(&b), gb * gb * 2 * 1e3
	}
	short, wantShort := added(15000)
	long, wantLong := added(30000)
	for _, c := range []struct{ got, want float64 }{{short, wantShort}, {long, wantLong}} {
		if math.Abs(c.got-c.want) > 1e-6*c.want {
			t.Errorf("scatter added %.0f ns; want W² × 2 µs/GB² = %.0f ns", c.got, c.want)
		}
	}
	if r := long / short; math.Abs(r-4) > 0.01 {
		t.Errorf("doubling the contexts multiplied the scatter's time by %.3f; want about 4", r)
	}
}
