package fidelity

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

func testRecord() Record {
	return Record{
		ID: "t-replay", Source: "test", Ref: Ref{URL: "https://example.org"}, Model: "qwen3-8b", GPU: "h100-sxm", TP: 1,
		VLLMVersion: "0.11.0",
		Workload: Load{Dataset: "random", InputLen: Length{Min: 800, Max: 1000}, OutputLen: Length{Min: 90, Max: 110},
			NumPrompts: 40},
		Concurrency: 4,
		Measured:    Metrics{TPOT: Stat{Mean: 8}, TTFT: Stat{Mean: 60}},
	}
}

// TestRequestsFollowTheSource: lengths stay in the source's range and are
// the same every time (seeded by the id); an open loop arrives at the
// rate, a burst all at once; distinct prompts repeat with their prefix.
func TestRequestsFollowTheSource(t *testing.T) {
	r := testRecord()
	a, err := requests(&r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := requests(&r)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("two draws of one record differ")
		}
		if p, o := a[i].PromptTokens, a[i].AnswerTokens; p < 800 || p > 1000 || o < 90 || o > 110 || a[i].ArrivalS != 0 {
			t.Fatalf("request %d: prompt %d, output %d, arrival %v outside the record", i, p, o, a[i].ArrivalS)
		}
	}

	r.Concurrency, r.RequestRate, r.Workload.NumPrompts = 0, 5, 1000
	open, _ := requests(&r)
	if rate := float64(len(open)-1) / open[len(open)-1].ArrivalS; math.Abs(rate-5) > 0.5 {
		t.Errorf("open loop at 5 req/s arrives at %.2f req/s", rate)
	}
	r.RequestRate = -1
	burst, _ := requests(&r)
	if len(burst) != 1000 || burst[999].ArrivalS != 0 {
		t.Errorf("burst: %d requests, last at %v; want 1000 at 0", len(burst), burst[999].ArrivalS)
	}

	r.RequestRate, r.Workload.DistinctPrompts, r.Workload.NumPrompts = 5, 3, 10
	cyc, _ := requests(&r)
	for i := 3; i < len(cyc); i++ {
		if cyc[i].PromptTokens != cyc[i%3].PromptTokens || cyc[i].PrefixID != cyc[i%3].PrefixID || cyc[i].PrefixTokens != cyc[i].PromptTokens {
			t.Fatalf("request %d does not repeat prompt %d whole: %+v vs %+v", i, i%3, cyc[i], cyc[i%3])
		}
	}
}

// TestDefaultPrompts: a closed loop sends at most ten a stream (at least
// 50), an open loop at most 1,000, a burst every prompt.
func TestDefaultPrompts(t *testing.T) {
	for _, c := range []struct {
		conc    int
		rate    float64
		n, want int
	}{{1, 0, 1000, 50}, {64, 0, 640, 640}, {64, 0, 0, 640}, {0, 2, 5000, 1000}, {0, -1, 5000, 5000}, {0, 2, 0, 200}} {
		r := Record{Concurrency: c.conc, RequestRate: c.rate, Workload: Load{NumPrompts: c.n}}
		if got := defaultPrompts(&r); got != c.want {
			t.Errorf("concurrency %d rate %v prompts %d: replay sends %d, want %d", c.conc, c.rate, c.n, got, c.want)
		}
	}
}

// TestVLLMVersionFromDate: a nightly replays as the release before its
// date; a named release as itself.
func TestVLLMVersionFromDate(t *testing.T) {
	for _, c := range []struct{ version, date, want string }{
		{"v0.11.0", "2026-05-01", "0.11.0"},
		{"nightly-e2fa2859", "2026-08-07", "0.26.1"},
		{"nightly-5e35a6f4", "2026-05-20", "0.21.0"},
		{"custom", "2025-12-20", "0.13.0"},
		{"", "", ""},
	} {
		r := Record{VLLMVersion: c.version, Date: c.date}
		if got := vllmVersion(&r); got != c.want {
			t.Errorf("%q on %s: %q, want %q", c.version, c.date, got, c.want)
		}
	}
}

// TestTraceGradient: the trace's gradient is the replay's sensitivity. The
// step time is homogeneous of degree one in the parameters, so in a closed
// loop that never idles TPOT is Σ gradient × parameter; and nudging one
// coefficient moves the re-simulated TPOT and TTFT as the gradient says.
func TestTraceGradient(t *testing.T) {
	r := testRecord()
	cfg, tr := traceAtProfiles(t, &r)
	x := calibrate.ParamsOf(cfg.Step)
	sum := dotParams(tr.Grad[MetricTPOT], x)
	if e := math.Abs(sum-tr.Pred.TPOT.Mean) / tr.Pred.TPOT.Mean; e > 0.01 {
		t.Errorf("Σ gradient × parameter = %.4f ms, TPOT %.4f ms (%.2f%% apart)", sum, tr.Pred.TPOT.Mean, 100*e)
	}
	// TPOT in the closed loop of four; TTFT alone (concurrency 1, a long
	// prompt): with others decoding, a request's wait for the step under
	// way depends on where in it the request lands, which a small change
	// of the coefficients shifts in a deterministic replay.
	alone := r
	alone.ID, alone.Concurrency = "t-alone", 1
	alone.Workload.InputLen = Length{Min: 4000, Max: 4000}
	trAlone, err := trace(cfg, &alone)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"per_layer_overhead_us", "weight_bandwidth_efficiency", "compute_efficiency", "api_request_overhead_ms", "api_prompt_token_us"} {
		k := paramIndex(t, name)
		nudged := append([]float64(nil), x...)
		delta := 0.05 * max(math.Abs(x[k]), 1)
		nudged[k] += delta
		c2 := cfg
		c2.Step = calibrate.WithParams(cfg.Step, nudged)
		for _, check := range []struct {
			m    string
			rec  *Record
			base *calibrate.Trace
		}{{MetricTPOT, &r, tr}, {MetricTTFT, &alone, trAlone}} {
			tr2, err := trace(c2, check.rec)
			if err != nil {
				t.Fatal(err)
			}
			got := tr2.Pred.Mean(check.m) - check.base.Pred.Mean(check.m)
			want := check.base.Grad[check.m][k] * delta
			// 5 µs of slack: the API time shifts where arrivals land among the
			// steps, which moves a batch or two and TPOT by a hair.
			if math.Abs(got-want) > 0.05*math.Abs(want)+0.005 {
				t.Errorf("%s +%.3g: %s moves %.4f ms, the gradient says %.4f", name, delta, check.m, got, want)
			}
		}
	}
	if tr.Grad[MetricTTFT][paramIndex(t, "api_prompt_token_us")] < 0.8e-3 {
		t.Error("TTFT does not grow with api_prompt_token_us by about a microsecond a prompt token")
	}
}

// TestTraceGradientWeighsShortOutputs: with outputs from 4 to hundreds of
// tokens (a ShareGPT burst's), the mean TPOT a client computes weighs a
// short request's decode steps more than a long one's; the TPOT gradient
// is that mean's, so Σ gradient × parameter is the predicted mean TPOT,
// not the decode time per token (the mean ITL), which lies well apart.
func TestTraceGradientWeighsShortOutputs(t *testing.T) {
	r := testRecord()
	r.ID, r.Concurrency = "t-sharegpt", 0
	r.RequestRate = -1 // every prompt at once
	r.Workload = Load{Dataset: "sharegpt", InputLen: Length{Mean: 220}, OutputLen: Length{Mean: 200}, NumPrompts: 300}
	cfg, tr := traceAtProfiles(t, &r)
	x := calibrate.ParamsOf(cfg.Step)
	dot := func(g []float64) float64 { return dotParams(g, x) }
	tpot, itl := tr.Pred.TPOT.Mean, tr.Pred.ITL.Mean
	if math.Abs(tpot/itl-1) < 0.1 {
		t.Fatalf("mean TPOT %.2f ms and mean ITL %.2f ms are too close for the test to tell them apart", tpot, itl)
	}
	if got := dot(tr.Grad[MetricTPOT]); math.Abs(got/tpot-1) > 0.01 {
		t.Errorf("Σ TPOT gradient × parameter = %.3f ms, the mean TPOT %.3f ms (the mean ITL is %.3f)", got, tpot, itl)
	}
	if got := dot(tr.Grad[calibrate.GradITL]); math.Abs(got/itl-1) > 0.01 {
		t.Errorf("Σ ITL gradient × parameter = %.3f ms, the mean ITL %.3f ms", got, itl)
	}
}

// TestTraceGradientPreempted: in a burst that outgrows its KV cache, the
// requests preempted after their first token wait again without adding to
// their TTFT; the TTFT gradient charges a step only to those still
// awaiting a first token, so nudging a coefficient moves the re-simulated
// TTFT as the gradient says (charging every waiting request overstated
// it a hundredfold here).
func TestTraceGradientPreempted(t *testing.T) {
	r := testRecord()
	r.ID, r.Concurrency, r.RequestRate = "t-preempted", 0, -1
	// Every prompt fits at once; their outputs do not.
	r.Engine.AvailableKVGiB = 11
	r.Workload = Load{Dataset: "random", InputLen: Length{Min: 512, Max: 512}, OutputLen: Length{Min: 2048, Max: 2048}, NumPrompts: 100}
	cfg, tr := traceAtProfiles(t, &r)
	if tr.Pred.Preemptions < 20 {
		t.Fatalf("%d preemptions: the test needs a burst that outgrows its cache", tr.Pred.Preemptions)
	}
	for _, name := range []string{"per_request_overhead_us", "per_layer_overhead_us"} {
		if delta, got, want := ttftNudge(t, cfg, &r, tr, name); math.Abs(got-want) > 0.15*math.Abs(got)+1 {
			t.Errorf("%s +%.3g: TTFT moves %.1f ms, the gradient says %.1f (%d preemptions)", name, delta, got, want, tr.Pred.Preemptions)
		}
	}
}

// ttftNudge raises the coefficient name 5% above cfg's, replays r and
// returns the nudge, how far the mean TTFT moved from tr's and how far
// tr's gradient says it moves (ms).
func ttftNudge(t *testing.T, cfg sim.Config, r *Record, tr *calibrate.Trace, name string) (delta, got, want float64) {
	t.Helper()
	x := calibrate.ParamsOf(cfg.Step)
	k := paramIndex(t, name)
	nudged := append([]float64(nil), x...)
	delta = 0.05 * x[k]
	nudged[k] += delta
	c2 := cfg
	c2.Step = calibrate.WithParams(cfg.Step, nudged)
	tr2, err := trace(c2, r)
	if err != nil {
		t.Fatal(err)
	}
	return delta, tr2.Pred.TTFT.Mean - tr.Pred.TTFT.Mean, tr.Grad[MetricTTFT][k] * delta
}

// traceAtProfiles traces r at the embedded profiles' coefficients.
func traceAtProfiles(t *testing.T, r *Record) (sim.Config, *calibrate.Trace) {
	t.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cfg, skip := config(cat, r)
	if skip != "" {
		t.Fatal(skip)
	}
	tr, err := trace(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, tr
}

// dotParams is Σ g × x: a homogeneous prediction's value from its gradient.
func dotParams(g, x []float64) float64 {
	sum := 0.0
	for k := range x {
		sum += g[k] * x[k]
	}
	return sum
}

func paramIndex(t *testing.T, name string) int {
	t.Helper()
	for k, p := range calibrate.Params {
		if p.Key == name {
			return k
		}
	}
	t.Fatalf("no parameter %s", name)
	return -1
}

// TestConfigSkips: records thinkcap cannot replay say why.
func TestConfigSkips(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Record)
		want string
	}{
		{func(r *Record) { r.Model = "no/such-model" }, "no model profile"},
		{func(r *Record) { r.Model = "Qwen/Qwen3-Next-80B-A3B-Instruct" }, "no model profile for Qwen/Qwen3-Next-80B-A3B-Instruct: hybrid linear attention"},
		{func(r *Record) { r.GPU = "TPU v6" }, "no GPU profile"},
		{func(r *Record) { r.Quantization = "bitsandbytes" }, "quantization bitsandbytes not modelled"},
		{func(r *Record) { r.Model = "Qwen/Qwen3-8B-GPTQ-Int8" }, "quantization of Qwen/Qwen3-8B-GPTQ-Int8 not modelled: GPTQ INT8 weights"},
		{func(r *Record) { r.Model, r.Quantization = "Qwen/Qwen3-8B-AWQ", "fp8" }, "config: --quantization fp8 contradicts --model Qwen/Qwen3-8B-AWQ"},
		{func(r *Record) { r.DP = 2 }, "data parallel"},
		{func(r *Record) { r.TP = 3 }, "config:"},
	} {
		r := testRecord()
		c.edit(&r)
		if _, skip := config(cat, &r); skip == "" || !strings.Contains(skip, c.want) {
			t.Errorf("skip %q, want it to say %q", skip, c.want)
		}
	}
	// A quantized checkpoint's id replays on its base model with the
	// format its name says, given by the record or not; a GPU named as
	// its datasheet writes it is its profile.
	for _, q := range []string{"", "awq"} {
		r := testRecord()
		r.Model, r.Quantization, r.GPU = "Qwen/Qwen3-8B-AWQ", q, "H100 NVL"
		if cfg, skip := config(cat, &r); skip != "" || cfg.Model.Name != "qwen3-8b" || cfg.Quantization != "awq" || cfg.GPU.Name != "h100-nvl" {
			t.Errorf("Qwen3-8B-AWQ (record quantization %q) on an H100 NVL: %s %q on %s, skip %q; want qwen3-8b awq on h100-nvl",
				q, cfg.Model.Name, cfg.Quantization, cfg.GPU.Name, skip)
		}
	}
	// fp4 is nvfp4 for most checkpoints, mxfp4 (the profile's own) for gpt-oss.
	r := testRecord()
	r.Model, r.Quantization = "openai/gpt-oss-120b", "fp4"
	if cfg, skip := config(cat, &r); skip != "" || cfg.Quantization != "" {
		t.Errorf("gpt-oss fp4: quantization %q, skip %q; want the profile's mxfp4 experts", cfg.Quantization, skip)
	}
	// int4 is Kimi-K2's own checkpoint (the profile's experts), and no
	// other model's.
	r.Model, r.Quantization, r.GPU, r.TP = "moonshotai/Kimi-K2.5", "int4", "h200", 8
	if cfg, skip := config(cat, &r); skip != "" || cfg.Quantization != "" || cfg.ExpertDtype() != "int4" {
		t.Errorf("Kimi-K2.5 int4: quantization %q, experts %q, skip %q; want the profile's int4 experts", cfg.Quantization, cfg.ExpertDtype(), skip)
	}
	r.Model = "Qwen/Qwen3-235B-A22B-Instruct-2507"
	if _, skip := config(cat, &r); !strings.Contains(skip, "int4 not modelled") {
		t.Errorf("Qwen3-235B int4: skip %q, want int4 not modelled", skip)
	}
	r.GPU, r.TP, r.Quantization = "h100-sxm", 1, "fp4"
	r.Model = "nvidia/Llama-3.3-70B-Instruct-FP4"
	r.TP = 2
	if cfg, skip := config(cat, &r); skip != "" || cfg.Quantization != "nvfp4" || cfg.Model.Name != "llama-3.1-70b" {
		t.Errorf("Llama 3.3 FP4: %s %q, skip %q; want llama-3.1-70b nvfp4", cfg.Model.Name, cfg.Quantization, skip)
	}
}

// TestConfigEngineDefaults: a record that does not say has prefix caching
// on (vLLM's default) and one that says off has it off; ep turns on expert
// parallelism.
func TestConfigEngineDefaults(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	r := testRecord()
	if cfg, skip := config(cat, &r); skip != "" || cfg.DisablePrefixCaching || cfg.EnableExpertParallel {
		t.Errorf("unsaid: prefix caching off %v, EP %v (skip %q); want vLLM's defaults", cfg.DisablePrefixCaching, cfg.EnableExpertParallel, skip)
	}
	off := false
	r.Engine.EnablePrefixCaching = &off
	r.Model, r.TP, r.EP = "Qwen/Qwen3-30B-A3B", 2, true
	if cfg, skip := config(cat, &r); skip != "" || !cfg.DisablePrefixCaching || !cfg.EnableExpertParallel {
		t.Errorf("said: prefix caching off %v, EP %v (skip %q); want off and on", cfg.DisablePrefixCaching, cfg.EnableExpertParallel, skip)
	}
}

// TestCacheHitExcludesTTFT: a TTFT faster than the GPUs can compute the
// prompt is left out of the fit and the scoreboard with the reason; a
// possible one is kept, a burst is held to (N+1)/2 floors, a single
// prompt the client sent before as its test run is a hit, and a record
// that declares its shared prefix is replayed with it, not judged.
func TestCacheHitExcludesTTFT(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	point := func(edit func(*Record)) *Point {
		r := testRecord()
		edit(&r)
		p := &Point{Record: &r}
		p.cfg, p.Skip = config(cat, &r)
		if p.Skip != "" {
			t.Fatal(p.Skip)
		}
		return p
	}
	// qwen3-8b on one H100: 800 tokens need 2 × 6.95e9 × 800 / 989e12 ≈ 11 ms.
	for _, tc := range []struct {
		name string
		edit func(*Record)
		hit  bool
	}{
		{"possible", func(r *Record) { r.Measured.TTFT = Stat{Mean: 60} }, false},
		{"below the floor", func(r *Record) { r.Measured.TTFT = Stat{Mean: 5} }, true},
		{"median only", func(r *Record) { r.Measured.TTFT = Stat{Median: 5} }, true},
		{"burst of 40 at once", func(r *Record) {
			r.Concurrency, r.RequestRate, r.Measured.TTFT = 0, -1, Stat{Mean: 100}
		}, true}, // 20.5 floors ≈ 230 ms
		{"shared prefix declared", func(r *Record) { r.Workload.PrefixLen, r.Measured.TTFT = 700, Stat{Mean: 5} }, false},
		{"repeated prompts declared", func(r *Record) { r.Workload.DistinctPrompts, r.Measured.TTFT = 4, Stat{Mean: 5} }, false},
		// One prompt, already sent by the client's initial test run: a
		// cache hit even above the floor; not with caching off, and not
		// from a client that sends no test run.
		{"one prompt after the test run", func(r *Record) {
			r.Workload.NumPrompts, r.Workload.Client, r.Measured.TTFT = 1, "benchmark_serving.py", Stat{Mean: 60}
		}, true},
		{"one prompt, caching off", func(r *Record) {
			off := false
			r.Workload.NumPrompts, r.Workload.Client, r.Measured.TTFT, r.Engine.EnablePrefixCaching = 1, "vllm bench serve", Stat{Mean: 60}, &off
		}, false},
		{"one prompt, no test run", func(r *Record) {
			r.Workload.NumPrompts, r.Workload.Client, r.Measured.TTFT = 1, "genai-perf", Stat{Mean: 60}
		}, false},
	} {
		p := point(tc.edit)
		why := p.excluded(MetricTTFT)
		if (why != "") != tc.hit || (tc.hit && !strings.Contains(why, "prefix cache")) {
			t.Errorf("%s: excluded %q, want a cache hit: %v", tc.name, why, tc.hit)
		}
		if p.excluded(MetricTPOT) != "" {
			t.Errorf("%s: TPOT excluded", tc.name)
		}
	}
}

// TestLoggedKVMemorySizesReplay: a record's engine.available_kv_gib sizes
// the replay's KV cache as --kv-cache-memory-bytes would, whatever the
// memory model would have left.
func TestLoggedKVMemorySizesReplay(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	r := testRecord()
	r.Engine.AvailableKVGiB = 3.5
	cfg, skip := config(cat, &r)
	if skip != "" {
		t.Fatal(skip)
	}
	if cfg.KVCacheMemoryBytes != int64(3.5*(1<<30)) {
		t.Fatalf("KV memory %d bytes, want 3.5 GiB", cfg.KVCacheMemoryBytes)
	}
	cp, err := sim.ComputeCapacity(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cp.AvailableKVBytes != cfg.KVCacheMemoryBytes {
		t.Errorf("capacity from %d bytes of KV memory, want the logged %d", cp.AvailableKVBytes, cfg.KVCacheMemoryBytes)
	}
	r.Engine.AvailableKVGiB = 0
	if cfg, _ := config(cat, &r); cfg.KVCacheMemoryBytes != 0 {
		t.Errorf("no logged KV memory: %d bytes given", cfg.KVCacheMemoryBytes)
	}
}

// TestA100LongPromptsQueueOnMemory: GPUStack's gpt-oss-120b on one A100
// (vLLM 0.11.0, 100 prompts of 32,000 tokens at once) decoded at a median
// inter-token latency of 24 ms between prefill steps of up to 0.7 s: most
// steps carried no prefill, the next request waiting for KV memory, with
// about four requests running (a completion every 7.4 s, each decoding for
// 22 s, one prefilling). Marlin's padded experts leave that memory; the
// unpadded weights thinkcap once took left room for seven, and every step
// of the replay carried a prefill chunk (median 358 ms).
func TestA100LongPromptsQueueOnMemory(t *testing.T) {
	recs, err := ReadCorpus("../testdata/measured")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(recs, func(r Record) bool { return r.ID == "rp-gpustack-036" })
	if i < 0 {
		t.Fatal("rp-gpustack-036 not in the corpus")
	}
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	r := &recs[i]
	cfg, skip := config(cat, r)
	if skip != "" {
		t.Fatal(skip)
	}
	reqs, err := requests(r)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 1
	rep, err := sim.Run(cfg, reqs, sim.Options{Concurrency: r.Concurrency})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunningMean < 3 || rep.RunningMean > 5 {
		t.Errorf("%.1f requests running on average, want about 4", rep.RunningMean)
	}
	if p := summarise(rep); p.ITL.Median > 3*r.Measured.ITL.Median {
		t.Errorf("median inter-token latency %.0f ms, want most steps without prefill (measured %.0f ms)", p.ITL.Median, r.Measured.ITL.Median)
	}
}

// TestEarlyStopsReplayed: a run without --ignore-eos whose client counted
// 106 of the 200 tokens asked replays requests that stop early, averaging
// the count, none above the maximum and some at it; with --ignore-eos, or
// with the count at what was asked, every request is the length asked.
func TestEarlyStopsReplayed(t *testing.T) {
	r := testRecord()
	r.Workload.OutputLen = Length{Min: 200, Max: 200}
	r.Workload.NumPrompts = 2000
	r.Measured.Completed, r.Measured.TotalOutputTokens = 2000, 2000*106
	reqs, err := requests(&r)
	if err != nil {
		t.Fatal(err)
	}
	sum, atMax := 0, 0
	for _, q := range reqs {
		if q.AnswerTokens > 200 || q.AnswerTokens < 1 {
			t.Fatalf("output %d outside [1, 200]", q.AnswerTokens)
		}
		sum += q.AnswerTokens
		if q.AnswerTokens == 200 {
			atMax++
		}
	}
	if mean := float64(sum) / float64(len(reqs)); math.Abs(mean-106) > 4 {
		t.Errorf("mean output %.1f; the client counted 106", mean)
	}
	if atMax < len(reqs)/10 || atMax > len(reqs)/2 {
		t.Errorf("%d of %d requests reach max_tokens; an exponential stop of mean ~140 leaves about a quarter", atMax, len(reqs))
	}
	for _, c := range []struct {
		name   string
		ignore bool
		total  int64
	}{{"ignore-eos", true, 2000 * 106}, {"all counted", false, 2000 * 199}} {
		r.Workload.IgnoreEOS, r.Measured.TotalOutputTokens = &c.ignore, c.total
		reqs, err := requests(&r)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range reqs {
			if q.AnswerTokens != 200 {
				t.Fatalf("%s: output %d; want the 200 asked", c.name, q.AnswerTokens)
			}
		}
	}
}

// TestStoppingMean: μ(1 − e^(−max/μ)) = mean at the μ found.
func TestStoppingMean(t *testing.T) {
	for _, c := range [][2]float64{{106, 200}, {94, 100}, {10, 1000}, {199, 200}} {
		mu := stoppingMean(c[0], c[1])
		if got := mu * -math.Expm1(-c[1]/mu); math.Abs(got-c[0]) > 1e-6*c[0] {
			t.Errorf("stoppingMean(%v, %v) = %v: clamped mean %v", c[0], c[1], mu, got)
		}
	}
}

// TestOfflineEagerRecord: a record of `vllm bench throughput` replays
// through the LLM class (no API server), one with engine.enforce_eager
// without CUDA graphs; nudging api_prompt_token_us moves the re-simulated
// TTFT as the gradient says (the engine's queue absorbs the tokenizer's).
func TestOfflineEagerRecord(t *testing.T) {
	r := testRecord()
	r.ID, r.Concurrency, r.RequestRate = "t-offline", 0, -1
	r.Workload.Client = "vllm bench throughput"
	r.Workload.NumPrompts = 200
	eager := true
	r.Engine.EnforceEager = &eager
	cfg, tr := traceAtProfiles(t, &r)
	if cfg.EntryPoint != "llm" || !cfg.EnforceEager {
		t.Fatalf("replayed with entry point %q, enforce-eager %v; want llm, true", cfg.EntryPoint, cfg.EnforceEager)
	}
	if delta, got, want := ttftNudge(t, cfg, &r, tr, "api_prompt_token_us"); math.Abs(got-want) > 0.15*math.Abs(got)+1 {
		t.Errorf("api_prompt_token_us +%.3g: TTFT moves %.1f ms, the gradient says %.1f", delta, got, want)
	}
	if g := tr.Grad[MetricTTFT][paramIndex(t, "api_request_overhead_ms")]; g != 0 {
		t.Errorf("the LLM class's TTFT moves %v ms per ms of the API server's request latency, want 0", g)
	}
}
