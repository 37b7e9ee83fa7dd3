package verify

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/runtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// explicitFields is an Explicit that reports the fields named as set.
func explicitFields(fields ...string) Explicit {
	return func(field string) bool { return slices.Contains(fields, field) }
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b)) }

// runResult is a load-test result record: scheduled at sched, sent lag
// later, with latencies measured from the scheduled time as the load
// generator writes them.
type runResult struct {
	id                        string
	sched, lag                float64
	ttft, ttfa, think, tpot   float64
	e2e, itlMean, itlP99      float64
	prompt, thinkTok, answers int
}

func (rr runResult) result() workload.Result {
	r := workload.Result{Status: workload.StatusOK, TTFTS: rr.ttft, TTFAS: rr.ttfa, ThinkS: rr.think,
		TPOTS: rr.tpot, E2ES: rr.e2e, ITLMeanS: rr.itlMean, ITLP99S: rr.itlP99}
	r.ID, r.ArrivalS, r.ScheduledS, r.SentS = rr.id, rr.sched, rr.sched, rr.sched+rr.lag
	r.PromptTokens, r.ThinkTokens, r.AnswerTokens = rr.prompt, rr.thinkTok, rr.answers
	return r
}

// emulatorMeta is a run's metadata against `thinkcap serve` at time scale 10.
func emulatorMeta(warmup string) loadgen.Metadata {
	return loadgen.Metadata{
		Command:       []string{"thinkcap", "loadtest"},
		TargetURL:     "http://127.0.0.1:8000",
		ServerVersion: "thinkcap-emulator Qwen/Qwen3-8B time_scale=10",
		Model:         "Qwen/Qwen3-8B",
		MaxModelLen:   8192,
		CacheConfig: &loadgen.CacheConfig{NumGPUBlocks: 5000, BlockSize: 16, CacheDtype: "auto",
			EnablePrefixCaching: true, Engines: 1,
			Labels: map[string]string{"num_gpu_blocks": "5000", "block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "True"}},
		Options: map[string]any{"warmup": warmup},
	}
}

// writeRunDir writes a run directory: metadata.json, results.jsonl in the
// given order and, when timeline is not "", timeline.csv. No summary.json.
func writeRunDir(t *testing.T, meta loadgen.Metadata, results []workload.Result, timeline string) string {
	t.Helper()
	dir := t.TempDir()
	if err := loadgen.WriteMetadata(filepath.Join(dir, "metadata.json"), meta); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := workload.NewResultWriter(f)
	for i := range results {
		if err := w.Write(&results[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if timeline != "" {
		if err := os.WriteFile(filepath.Join(dir, "timeline.csv"), []byte(timeline), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const runTimelineCSV = "time_s,replica,kv_usage,running,waiting,preemptions\n" +
	"0.000,0,0.1,1,0,0\n" +
	"0.500,0,0.25,3,1,0\n" +
	"1.250,0,0.4,4,2,1\n"

// loadRunFixture is four requests written out of issue order, each sent
// late by its own lag.
var loadRunFixture = []runResult{
	{id: "c", sched: 2.0, lag: 0.05, ttft: 0.25, ttfa: 0.65, think: 0.4, tpot: 0.010, e2e: 1.05, itlMean: 0.011, itlP99: 0.03, prompt: 300, thinkTok: 40, answers: 40},
	{id: "a", sched: 0.5, lag: 0, ttft: 0.10, ttfa: 0.30, think: 0.2, tpot: 0.005, e2e: 0.50, itlMean: 0.006, itlP99: 0.02, prompt: 100, thinkTok: 40, answers: 40},
	{id: "d", sched: 3.0, lag: 0.01, ttft: 0.11, ttfa: 0.41, think: 0.3, tpot: 0.007, e2e: 0.81, itlMean: 0.008, itlP99: 0.02, prompt: 200, thinkTok: 40, answers: 60},
	{id: "b", sched: 1.0, lag: 0.2, ttft: 0.30, ttfa: 0.70, think: 0.4, tpot: 0.008, e2e: 1.20, itlMean: 0.009, itlP99: 0.04, prompt: 150, thinkTok: 50, answers: 60},
}

func TestLoadRunNormalises(t *testing.T) {
	var results []workload.Result
	byID := map[string]runResult{}
	for _, rr := range loadRunFixture {
		results = append(results, rr.result())
		byID[rr.id] = rr
	}
	dir := writeRunDir(t, emulatorMeta("2"), results, runTimelineCSV)
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	const k = 10.0
	if r.TimeScale != k || r.Dir != dir {
		t.Fatalf("time scale %v, dir %q; want 10, %q", r.TimeScale, r.Dir, dir)
	}
	if r.Summary != nil {
		t.Errorf("Summary = %+v without summary.json, want nil", r.Summary)
	}
	if r.Meta.MaxModelLen != 8192 || r.Meta.CacheConfig == nil || r.Meta.CacheConfig.NumGPUBlocks != 5000 {
		t.Errorf("metadata not read back: %+v", r.Meta)
	}
	var ids []string
	for _, res := range r.Results {
		ids = append(ids, res.ID)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(ids, want) {
		t.Fatalf("results in order %v, want by scheduled time %v", ids, want)
	}
	for i := 1; i < len(r.Results); i++ {
		if r.Results[i].ScheduledS < r.Results[i-1].ScheduledS {
			t.Errorf("results not sorted by ScheduledS at %d", i)
		}
	}
	for _, res := range r.Results {
		rr := byID[res.ID]
		sent := rr.sched + rr.lag
		checks := []struct {
			name      string
			got, want float64
		}{
			{"ArrivalS", res.ArrivalS, sent * k},
			{"SentS", res.SentS, sent * k},
			{"ScheduledS", res.ScheduledS, rr.sched * k},
			{"TTFTS", res.TTFTS, (rr.ttft - rr.lag) * k},
			{"TTFAS", res.TTFAS, (rr.ttfa - rr.lag) * k},
			{"E2ES", res.E2ES, (rr.e2e - rr.lag) * k},
			{"ThinkS", res.ThinkS, rr.think * k},
			{"TPOTS", res.TPOTS, rr.tpot * k},
			{"ITLMeanS", res.ITLMeanS, rr.itlMean * k},
			{"ITLP99S", res.ITLP99S, rr.itlP99 * k},
		}
		for _, c := range checks {
			if !near(c.got, c.want, 1e-9) {
				t.Errorf("%s: %s = %v, want %v", res.ID, c.name, c.got, c.want)
			}
		}
		if res.PromptTokens != rr.prompt || res.ThinkTokens != rr.thinkTok || res.AnswerTokens != rr.answers {
			t.Errorf("%s: token counts changed: %+v", res.ID, res.Request)
		}
	}
	if want := []bool{false, false, true, true}; !slices.Equal(r.Measured, want) {
		t.Errorf("Measured = %v, want %v (warm-up: the first 2 issued)", r.Measured, want)
	}
	if got := r.MeasuredResults(); len(got) != 2 || got[0].ID != "c" || got[1].ID != "d" {
		t.Errorf("MeasuredResults = %v, want c and d", got)
	}
	wantTL := []loadgen.TimelineRow{
		{TimeS: 0, KVUsage: 0.1, Running: 1, Waiting: 0, Preemptions: 0},
		{TimeS: 5, KVUsage: 0.25, Running: 3, Waiting: 1, Preemptions: 0},
		{TimeS: 12.5, KVUsage: 0.4, Running: 4, Waiting: 2, Preemptions: 1},
	}
	if len(r.Timeline) != len(wantTL) {
		t.Fatalf("timeline has %d rows, want %d", len(r.Timeline), len(wantTL))
	}
	for i, w := range wantTL {
		g := r.Timeline[i]
		if !near(g.TimeS, w.TimeS, 1e-9) || g.KVUsage != w.KVUsage || g.Running != w.Running || g.Waiting != w.Waiting || g.Preemptions != w.Preemptions {
			t.Errorf("timeline row %d = %+v, want %+v (times ×10, values as scraped)", i, g, w)
		}
	}
}

// A real server (no time_scale in its version) keeps its times; only the
// send lag comes off.
func TestLoadRunRealServer(t *testing.T) {
	meta := emulatorMeta("0")
	meta.ServerVersion = "0.11.0"
	rr := runResult{id: "x", sched: 1, lag: 0.25, ttft: 0.5, tpot: 0.01, e2e: 2, prompt: 10, thinkTok: 10, answers: 10}
	r, err := LoadRun(writeRunDir(t, meta, []workload.Result{rr.result()}, ""))
	if err != nil {
		t.Fatal(err)
	}
	res := r.Results[0]
	if r.TimeScale != 1 || !near(res.ArrivalS, 1.25, 1e-12) || !near(res.TTFTS, 0.25, 1e-12) || !near(res.E2ES, 1.75, 1e-12) || res.TPOTS != 0.01 {
		t.Errorf("scale %v, result %+v: want scale 1, arrival 1.25, ttft 0.25, e2e 1.75, tpot 0.01", r.TimeScale, res)
	}
	if len(r.Timeline) != 0 || !slices.Equal(r.Measured, []bool{true}) {
		t.Errorf("timeline %v, measured %v: want none and [true]", r.Timeline, r.Measured)
	}
}

func TestLoadRunWarmupDuration(t *testing.T) {
	// Scheduled at 1, 3.5, 29, 30, 40 wall seconds: a 30s warm-up leaves
	// out the first three, whatever the time scale stretches them to.
	var results []workload.Result
	for i, s := range []float64{40, 1, 30, 3.5, 29} {
		rr := runResult{id: fmt.Sprint(s), sched: s, ttft: 0.1, e2e: 0.5, prompt: 10 + i, thinkTok: 5, answers: 5}
		results = append(results, rr.result())
	}
	r, err := LoadRun(writeRunDir(t, emulatorMeta("30s"), results, ""))
	if err != nil {
		t.Fatal(err)
	}
	var sched []float64
	for _, res := range r.Results {
		sched = append(sched, res.ScheduledS)
	}
	if want := []float64{10, 35, 290, 300, 400}; !slices.Equal(sched, want) {
		t.Fatalf("ScheduledS = %v, want %v", sched, want)
	}
	if want := []bool{false, false, false, true, true}; !slices.Equal(r.Measured, want) {
		t.Errorf("Measured = %v, want %v", r.Measured, want)
	}
}

func TestLoadRunErrors(t *testing.T) {
	good := []workload.Result{loadRunFixture[0].result()}

	t.Run("no results", func(t *testing.T) {
		dir := writeRunDir(t, emulatorMeta("0"), good, "")
		if err := os.Remove(filepath.Join(dir, "results.jsonl")); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRun(dir)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "results.jsonl") {
			t.Errorf("err = %v, want one naming %s and results.jsonl", err, dir)
		}
	})
	t.Run("no metadata", func(t *testing.T) {
		dir := writeRunDir(t, emulatorMeta("0"), good, "")
		if err := os.Remove(filepath.Join(dir, "metadata.json")); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRun(dir)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "metadata.json") {
			t.Errorf("err = %v, want one naming %s and metadata.json", err, dir)
		}
	})
	t.Run("bad timeline", func(t *testing.T) {
		dir := writeRunDir(t, emulatorMeta("0"), good, runTimelineCSV+"2.0,0,lots,1,0,0\n")
		_, err := LoadRun(dir)
		if err == nil || !strings.Contains(err.Error(), "timeline.csv") || !strings.Contains(err.Error(), dir) {
			t.Errorf("err = %v, want one naming %s and timeline.csv", err, dir)
		}
	})
	t.Run("bad warmup", func(t *testing.T) {
		_, err := LoadRun(writeRunDir(t, emulatorMeta("soon"), good, ""))
		if err == nil || !strings.Contains(err.Error(), "warmup") {
			t.Errorf("err = %v, want one naming the warmup option", err)
		}
	})
	t.Run("bad summary", func(t *testing.T) {
		dir := writeRunDir(t, emulatorMeta("0"), good, "")
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRun(dir)
		if err == nil || !strings.Contains(err.Error(), "summary.json") {
			t.Errorf("err = %v, want one naming summary.json", err)
		}
	})
}

// configureRun is a run whose metadata carries the server's cache config.
func configureRun(cc loadgen.CacheConfig) *Run {
	return &Run{Dir: "run", TimeScale: 1, Meta: loadgen.Metadata{Model: "Qwen/Qwen3-8B", MaxModelLen: 8192, CacheConfig: &cc}}
}

func serverCache() loadgen.CacheConfig {
	return loadgen.CacheConfig{NumGPUBlocks: 5000, BlockSize: 16, CacheDtype: "auto", EnablePrefixCaching: true,
		Labels: map[string]string{"enable_prefix_caching": "True"}, Engines: 1}
}

func notesContain(notes []string, subs ...string) bool {
	for _, n := range notes {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(n, s)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestConfigureFromCacheConfig(t *testing.T) {
	cfg := runtest.Qwen3OnH100(t)
	cfg.DisablePrefixCaching = true
	setup, err := Configure(&cfg, configureRun(serverCache()), explicitFields())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NumGPUBlocksOverride != 5000 || cfg.MaxModelLen != 8192 || cfg.BlockSize != 16 {
		t.Errorf("blocks %d, max_model_len %d, block size %d; want 5000, 8192, 16", cfg.NumGPUBlocksOverride, cfg.MaxModelLen, cfg.BlockSize)
	}
	if cfg.KVCacheDtype != "auto" || cfg.DisablePrefixCaching || cfg.Replicas != 1 {
		t.Errorf("dtype %q, prefix caching off %v, replicas %d; want auto, false, 1", cfg.KVCacheDtype, cfg.DisablePrefixCaching, cfg.Replicas)
	}
	if !notesContain(setup.Notes, "8192") || !notesContain(setup.Notes, "5000") {
		t.Errorf("notes %q should mention max_model_len 8192 and 5000 blocks", setup.Notes)
	}
	if setup.Spec != nil {
		t.Errorf("Spec = %+v without speculative decoding, want nil", setup.Spec)
	}

	off := serverCache()
	off.EnablePrefixCaching, off.Labels = false, map[string]string{"enable_prefix_caching": "False"}
	cfg = runtest.Qwen3OnH100(t)
	if _, err := Configure(&cfg, configureRun(off), explicitFields()); err != nil {
		t.Fatal(err)
	}
	if !cfg.DisablePrefixCaching {
		t.Error("a server without prefix caching should disable it")
	}
}

func TestConfigureExplicitWins(t *testing.T) {
	cfg := runtest.Qwen3OnH100(t)
	cfg.MaxModelLen = 16384
	setup, err := Configure(&cfg, configureRun(serverCache()), explicitFields("Engine.NumGPUBlocksOverride", "Engine.MaxModelLen"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NumGPUBlocksOverride != 60000 || cfg.MaxModelLen != 16384 {
		t.Errorf("blocks %d, max_model_len %d; want the user's 60000 and 16384", cfg.NumGPUBlocksOverride, cfg.MaxModelLen)
	}
	if notesContain(setup.Notes, "5000") || notesContain(setup.Notes, "8192") {
		t.Errorf("notes %q mention settings the user overrode", setup.Notes)
	}
}

func TestConfigureKVDtypeScalesBlocks(t *testing.T) {
	cfg := runtest.Qwen3OnH100(t)
	cfg.KVCacheDtype = "fp8"
	setup, err := Configure(&cfg, configureRun(serverCache()), explicitFields("Engine.KVCacheDtype"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.KVCacheDtype != "fp8" {
		t.Errorf("dtype %q, want the user's fp8", cfg.KVCacheDtype)
	}
	if b := cfg.NumGPUBlocksOverride; b < 9999 || b > 10001 {
		t.Errorf("blocks %d at fp8, want 10000: the server's 5000 bf16 blocks' memory", b)
	}
	if !notesContain(setup.Notes, "fp8", "5000") || !notesContain(setup.Notes, "1000") {
		t.Errorf("notes %q should say the fp8 blocks come from the server's 5000 auto ones", setup.Notes)
	}

	// bfloat16 is the model's own dtype: "auto", no scaling either way.
	bf16 := serverCache()
	bf16.CacheDtype = "bfloat16"
	cfg = runtest.Qwen3OnH100(t)
	if _, err := Configure(&cfg, configureRun(bf16), explicitFields()); err != nil {
		t.Fatal(err)
	}
	if cfg.KVCacheDtype != "auto" || cfg.NumGPUBlocksOverride != 5000 {
		t.Errorf("server bfloat16: dtype %q, blocks %d; want auto, 5000", cfg.KVCacheDtype, cfg.NumGPUBlocksOverride)
	}
	cfg = runtest.Qwen3OnH100(t)
	cfg.KVCacheDtype = "auto"
	if _, err := Configure(&cfg, configureRun(bf16), explicitFields("Engine.KVCacheDtype")); err != nil {
		t.Fatal(err)
	}
	if cfg.NumGPUBlocksOverride != 5000 {
		t.Errorf("explicit auto against a bfloat16 server: blocks %d, want 5000", cfg.NumGPUBlocksOverride)
	}

	// A server at fp8 sized for the user's auto: half the blocks.
	fp8 := serverCache()
	fp8.CacheDtype = "fp8"
	cfg = runtest.Qwen3OnH100(t)
	cfg.KVCacheDtype = "auto"
	if _, err := Configure(&cfg, configureRun(fp8), explicitFields("Engine.KVCacheDtype")); err != nil {
		t.Fatal(err)
	}
	if b := cfg.NumGPUBlocksOverride; b < 2499 || b > 2501 {
		t.Errorf("auto against an fp8 server: blocks %d, want 2500", b)
	}
}

func TestConfigureEngines(t *testing.T) {
	two := serverCache()
	two.Engines = 2
	cfg := runtest.Qwen3OnH100(t)
	setup, err := Configure(&cfg, configureRun(two), explicitFields())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Replicas != 2 || !notesContain(setup.Notes, "2 replicas") {
		t.Errorf("replicas %d, notes %q; want 2 and a note", cfg.Replicas, setup.Notes)
	}
	cfg = runtest.Qwen3OnH100(t)
	cfg.Replicas = 3
	if _, err := Configure(&cfg, configureRun(two), explicitFields("Engine.Replicas")); err != nil {
		t.Fatal(err)
	}
	if cfg.Replicas != 3 {
		t.Errorf("explicit --replicas 3: replicas %d", cfg.Replicas)
	}
}

// specRun is a run whose summary has the server's speculative counters.
func specRun(al float64, perPos ...float64) *Run {
	return &Run{Dir: "run", TimeScale: 1, Summary: &analysis.Summary{
		SpecDecode: &analysis.SpecDecodeStats{AcceptanceLength: al, PerPosition: perPos}}}
}

// eagleConfig is runtest.Qwen3OnH100 with eagle3 at 3 drafts and its default
// acceptance.
func eagleConfig(t *testing.T) sim.Config {
	t.Helper()
	cfg := runtest.Qwen3OnH100(t)
	sc, err := sim.ParseSpeculativeConfig(`{"method":"eagle3","model":"x","num_speculative_tokens":3}`)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Speculative = sc
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func meanLength(rates []float64) float64 {
	s := 1.0
	for _, r := range rates {
		s += r
	}
	return s
}

func TestConfigureSpecReplaysPerPosition(t *testing.T) {
	cfg := eagleConfig(t)
	assumed := meanLength(sim.DefaultAcceptance(sim.SpecEagle3, 3))
	setup, err := Configure(&cfg, specRun(2.2, 0.7, 0.35, 0.15), explicitFields())
	if err != nil {
		t.Fatal(err)
	}
	sa := setup.Spec
	if sa == nil || sa.Measured != 2.2 || !near(sa.Assumed, assumed, 1e-12) || !sa.Replayed {
		t.Fatalf("Spec = %+v, want measured 2.2, assumed %v, replayed", sa, assumed)
	}
	if got := cfg.Speculative.AcceptanceRates; !slices.Equal(got, []float64{0.7, 0.35, 0.15}) {
		t.Errorf("rates %v, want the measured per-position ones", got)
	}
	if cfg.Speculative.Method != sim.SpecEagle3 || cfg.Speculative.NumSpeculativeTokens != 3 {
		t.Errorf("speculative config changed: %+v", cfg.Speculative)
	}
	if !notesContain(setup.Notes, "2.20") {
		t.Errorf("notes %q should report the measured acceptance length", setup.Notes)
	}
}

func TestConfigureSpecExplicitAcceptance(t *testing.T) {
	cfg := eagleConfig(t)
	user := []float64{0.5, 0.25, 0.1}
	cfg.Speculative.AcceptanceRates = slices.Clone(user)
	setup, err := Configure(&cfg, specRun(2.2, 0.7, 0.35, 0.15), explicitFields("Acceptance"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Speculative.AcceptanceRates; !slices.Equal(got, user) {
		t.Errorf("rates %v, want the user's %v", got, user)
	}
	if sa := setup.Spec; sa == nil || sa.Replayed || sa.Measured != 2.2 || !near(sa.Assumed, 1.85, 1e-12) {
		t.Errorf("Spec = %+v, want measured 2.2, assumed 1.85, not replayed", sa)
	}
}

func TestConfigureSpecWithoutConfig(t *testing.T) {
	cfg := runtest.Qwen3OnH100(t)
	setup, err := Configure(&cfg, specRun(2.2, 0.7, 0.35, 0.15), explicitFields())
	if err != nil {
		t.Fatal(err)
	}
	sc := cfg.Speculative
	if sc == nil || sc.Method != sim.SpecNgram || sc.NumSpeculativeTokens != 3 {
		t.Fatalf("speculative config %+v, want ngram with the counters' 3 drafts", sc)
	}
	if !slices.Equal(sc.AcceptanceRates, []float64{0.7, 0.35, 0.15}) {
		t.Errorf("rates %v, want the measured ones", sc.AcceptanceRates)
	}
	if !notesContain(setup.Notes, "ngram", "3 drafts") {
		t.Errorf("notes %q should say drafting is modelled as ngram", setup.Notes)
	}
	// The assumed length is ngram's default, not zero.
	if sa := setup.Spec; sa == nil || !sa.Replayed || !near(sa.Assumed, meanLength(sim.DefaultAcceptance(sim.SpecNgram, 3)), 1e-12) {
		t.Errorf("Spec = %+v, want replayed with ngram's default assumed", sa)
	}

	// Without per-position counters there is no draft count to model.
	cfg = runtest.Qwen3OnH100(t)
	setup, err = Configure(&cfg, specRun(2.2), explicitFields())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Speculative != nil || setup.Spec != nil || !notesContain(setup.Notes, "--speculative-config") {
		t.Errorf("speculative %+v, spec %+v, notes %q: want none and a note asking for --speculative-config", cfg.Speculative, setup.Spec, setup.Notes)
	}
}

func TestConfigureSpecFallsBackToMeanLength(t *testing.T) {
	for name, perPos := range map[string][]float64{
		"too few positions":  {0.7, 0.35},
		"too many positions": {0.7, 0.35, 0.1, 0.05},
		"increasing":         {0.3, 0.6, 0.3},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := eagleConfig(t)
			setup, err := Configure(&cfg, specRun(2.2, perPos...), explicitFields())
			if err != nil {
				t.Fatal(err)
			}
			rates := cfg.Speculative.AcceptanceRates
			if len(rates) != 3 || !near(meanLength(rates), 2.2, 1e-6) {
				t.Errorf("rates %v (AL %v), want 3 rates of AL 2.2", rates, meanLength(rates))
			}
			if sa := setup.Spec; sa == nil || !sa.Replayed {
				t.Errorf("Spec = %+v, want replayed", sa)
			}
		})
	}

	// A mean length 3 drafts cannot reach is not replayed.
	cfg := eagleConfig(t)
	before := slices.Clone(cfg.Speculative.AcceptanceRates)
	setup, err := Configure(&cfg, specRun(4.5, 0.9, 0.8), explicitFields())
	if err != nil {
		t.Fatal(err)
	}
	if sa := setup.Spec; sa == nil || sa.Replayed || !slices.Equal(cfg.Speculative.AcceptanceRates, before) || !notesContain(setup.Notes, "does not fit") {
		t.Errorf("Spec %+v, rates %v, notes %q: want the assumed rates kept and a note", sa, cfg.Speculative.AcceptanceRates, setup.Notes)
	}
}

// simulatedRunWithSummary is simulatedRun with a summary.json whose ITL and
// server TTFT are the simulator's, as a load test reports every
// inter-token gap and scrapes the server's TTFT histogram.
func simulatedRunWithSummary(t *testing.T, cfg sim.Config, reqs []workload.Request) *Run {
	t.Helper()
	r := simulatedRun(t, cfg, reqs, "sim")
	rep, err := sim.Run(cfg, reqs, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The server's TTFT histogram is the engine's TTFT of its requests.
	engine := analysis.Summarize("loadtest", rep.Results, rep.DurationS).LatencyS.TTFTEngine
	r.Summary = &analysis.Summary{Kind: "loadtest", LatencyS: analysis.Latencies{
		ITL:        analysis.Stat{Mean: rep.ITL.Mean, P50: rep.ITL.P50, P90: rep.ITL.P90, P99: rep.ITL.P99},
		TTFTEngine: engine,
	}}
	return r
}

func TestVerifySimulatorAgainstItself(t *testing.T) {
	cfg := runtest.Qwen3OnH100(t)
	r := simulatedRunWithSummary(t, cfg, runtest.Traffic(t, 200, 6, 1))
	out, err := Verify(cfg, r, explicitFields(), analysis.DefaultTolerances(), DefaultMinRequests)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Comparison.Pass || len(out.Comparison.Failed) > 0 {
		t.Fatalf("the simulator against itself failed %v", out.Comparison.Failed)
	}
	if out.LeftOut != 0 || out.Run != "sim" || out.TimeScale != 1 {
		t.Errorf("left out %d, run %q, scale %v", out.LeftOut, out.Run, out.TimeScale)
	}
	checked := 0
	for _, m := range out.Comparison.Metrics {
		if m.Name == "itl_p50" || m.Name == "itl_p90" || m.Name == "itl_p99" {
			continue // only the mean is in the fixture's summary
		}
		if bothNaN := math.IsNaN(m.Predicted) && math.IsNaN(m.Measured); !bothNaN && !near(m.Predicted, m.Measured, 1e-9) {
			t.Errorf("%s: predicted %v, measured %v, want equal", m.Name, m.Predicted, m.Measured)
		}
		if m.Pass != nil {
			checked++
			if !*m.Pass {
				t.Errorf("%s did not pass", m.Name)
			}
		}
	}
	if checked != len(analysis.DefaultTolerances()) {
		t.Errorf("%d metrics checked, want every default tolerance (%d)", checked, len(analysis.DefaultTolerances()))
	}
	if p := out.Predicted.LatencyS.TTFT.P50; p <= 0 || p != out.Measured.LatencyS.TTFT.P50 {
		t.Errorf("TTFT p50 predicted %v, measured %v", p, out.Measured.LatencyS.TTFT.P50)
	}
	if out.Measured.KVUsage.Mean <= 0 {
		t.Error("fixture has no KV usage to compare")
	}
	// The prediction carries the model's 90% intervals (no traffic
	// draws: the run's own traffic is replayed) and every comparison of a
	// figure they cover shows its band.
	if iv := out.Predicted.Intervals; iv == nil || iv.Seeds != 1 || iv.Traffic != nil || iv.Model["tpot"].Points == 0 {
		t.Fatalf("prediction intervals %+v; want the model's alone", iv)
	}
	for _, m := range out.Comparison.Metrics {
		if strings.HasPrefix(m.Name, "tpot_") && (m.Interval == nil || m.InInterval == nil || !*m.InInterval) {
			t.Errorf("%s: interval %v, inside %v; want the band holding the (equal) measurement", m.Name, m.Interval, m.InInterval)
		}
	}

	half := cfg
	half.NumGPUBlocksOverride /= 2
	out, err = Verify(half, r, explicitFields(), analysis.DefaultTolerances(), DefaultMinRequests)
	if err != nil {
		t.Fatal(err)
	}
	if out.Comparison.Pass || !slices.Contains(out.Comparison.Failed, "kv_usage_mean") {
		t.Errorf("half the KV blocks: failed %v, want kv_usage_mean among them", out.Comparison.Failed)
	}
}

func TestPredictAlignsMeasuredResults(t *testing.T) {
	cfg := runtest.Qwen3OnH100(t)
	reqs := runtest.Traffic(t, 120, 6, 2)
	for i := range reqs {
		reqs[i].ID = fmt.Sprintf("q%03d", i)
	}
	r := simulatedRun(t, cfg, reqs, "sim")
	for i := range 10 {
		r.Measured[i] = false // warm-up
	}
	failed := map[string]bool{}
	for _, i := range []int{5, 40, 41, 77} {
		res := &r.Results[i]
		res.Status, res.HTTPStatus, res.Error = workload.StatusHTTPError, 500, "internal error"
		res.TTFTS, res.TTFAS, res.TPOTS, res.ThinkS, res.E2ES = 0, 0, 0, 0, 0.01
		failed[res.ID] = true
	}
	// Scraped every 2 s: the prediction samples its timeline as often.
	var every2 []loadgen.TimelineRow
	for i, row := range r.Timeline {
		if i%2 == 0 {
			every2 = append(every2, row)
		}
	}
	r.Timeline = every2
	p, err := Predict(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	if p.LeftOut != len(failed) {
		t.Errorf("LeftOut %d, want %d", p.LeftOut, len(failed))
	}
	if len(p.Report.Results) != len(r.Results)-len(failed) {
		t.Errorf("%d requests replayed, want %d", len(p.Report.Results), len(r.Results)-len(failed))
	}
	for _, res := range p.Report.Results {
		if failed[res.ID] {
			t.Errorf("failed request %s replayed", res.ID)
		}
	}
	want := 0
	for i := range r.Results {
		if r.Measured[i] && !failed[r.Results[i].ID] {
			want++
		}
	}
	if len(p.PredictedResults) != want || len(p.MeasuredResults) != want {
		t.Fatalf("%d predicted, %d measured results, want %d each", len(p.PredictedResults), len(p.MeasuredResults), want)
	}
	for k := range p.PredictedResults {
		pr, mr := p.PredictedResults[k], p.MeasuredResults[k]
		if pr.ID != mr.ID || pr.ArrivalS != mr.ArrivalS || pr.PromptTokens != mr.PromptTokens {
			t.Fatalf("index %d: predicted %s at %v, measured %s at %v", k, pr.ID, pr.ArrivalS, mr.ID, mr.ArrivalS)
		}
		var n int
		if _, err := fmt.Sscanf(mr.ID, "q%d", &n); err != nil || n < 10 || failed[mr.ID] {
			t.Errorf("index %d: %s is warm-up or failed", k, mr.ID)
		}
		if pr.Status != workload.StatusOK {
			t.Errorf("%s predicted %s", pr.ID, pr.Status)
		}
	}
	if len(p.PredictedTimeline) < 3 || len(p.MeasuredTimeline) != len(every2) {
		t.Fatalf("timelines of %d and %d points", len(p.PredictedTimeline), len(p.MeasuredTimeline))
	}
	for i := 1; i < len(p.PredictedTimeline); i++ {
		if g := p.PredictedTimeline[i].TimeS - p.PredictedTimeline[i-1].TimeS; !near(g, 2, 1e-9) {
			t.Fatalf("predicted timeline gap %v at %d, want the scrape interval 2", g, i)
		}
	}
	if p.Measured.Requests.Total != want || p.Predicted.Requests.Total != want {
		t.Errorf("summaries over %d and %d requests, want %d", p.Predicted.Requests.Total, p.Measured.Requests.Total, want)
	}
}
