package loadgen

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"
)

var telemetryT0 = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// sampleAt is a sample s seconds after telemetryT0.
func sampleAt(s float64, snap Snapshot) Sample {
	return Sample{Time: telemetryT0.Add(time.Duration(s * float64(time.Second))), Snapshot: snap}
}

// telemetryState builds a snapshot with the scheduler gauges and the token and
// preemption counters present.
func telemetryState(kv, running, waiting, preempt, prompt, gen float64) Snapshot {
	return Snapshot{
		Present:    FieldKVUsage | FieldRunning | FieldWaiting | FieldPreemptions | FieldPromptTokens | FieldGenerationTokens,
		KVUsage:    kv,
		KVUsageMax: kv,
		Running:    running, Waiting: waiting,
		Preemptions: preempt, PromptTokens: prompt, GenerationTokens: gen,
		Families: []string{metricKVUsage, metricRunning},
	}
}

func telemetryNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSummarizeDeltasMeansPeaks(t *testing.T) {
	samples := []Sample{
		sampleAt(0, telemetryState(0.10, 2, 0, 4, 1000, 100)), // before the window: baseline
		sampleAt(2, telemetryState(0.50, 6, 1, 4, 3000, 400)),
		sampleAt(4, telemetryState(0.90, 10, 5, 9, 6000, 900)),
		sampleAt(5, telemetryState(0.30, 3, 0, 9, 6500, 1200)),
		sampleAt(9, telemetryState(0.05, 0, 0, 12, 9999, 9999)), // after the window
	}
	tel := Summarize(samples, telemetryT0.Add(time.Second), telemetryT0.Add(6*time.Second))
	if tel.Samples != 4 {
		t.Errorf("Samples = %d, want 4 (baseline at 0 s through 5 s)", tel.Samples)
	}
	if *tel.Preemptions != 5 || *tel.PromptTokens != 5500 || *tel.GenerationTokens != 1100 {
		t.Errorf("deltas = %v %v %v", *tel.Preemptions, *tel.PromptTokens, *tel.GenerationTokens)
	}
	// Step function over [1, 6]: 0.1 for 1 s, 0.5 for 2 s, 0.9 for 1 s, 0.3 for 1 s.
	if want := (0.1 + 1.0 + 0.9 + 0.3) / 5; !telemetryNear(tel.KVUsage.Mean, want) || tel.KVUsage.Peak != 0.9 {
		t.Errorf("kv = %+v, want mean %v peak 0.9", *tel.KVUsage, want)
	}
	if want := (2.0 + 12 + 10 + 3) / 5; !telemetryNear(tel.Running.Mean, want) || tel.Running.Peak != 10 {
		t.Errorf("running = %+v, want mean %v", *tel.Running, want)
	}
	if want := (0.0 + 2 + 5 + 0) / 5; !telemetryNear(tel.Waiting.Mean, want) || tel.Waiting.Peak != 5 {
		t.Errorf("waiting = %+v, want mean %v", *tel.Waiting, want)
	}
	if tel.SpecDecode != nil || tel.PrefixCache != nil || tel.Capacity != nil || tel.RequestSuccess != nil {
		t.Errorf("absent metrics must stay nil: %+v", tel)
	}
	if tel.CounterResets != 0 || !slices.Equal(tel.Families, []string{metricKVUsage, metricRunning}) {
		t.Errorf("resets %d families %v", tel.CounterResets, tel.Families)
	}
	// Nothing absent may marshal as NaN or as a misleading zero.
	b, err := json.Marshal(tel)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"spec_decode", "prefix_cache", "capacity"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s in %s", k, b)
		}
	}
}

func TestSummarizeCounterReset(t *testing.T) {
	// The server restarts between 2 s and 3 s: counters start again from 0.
	samples := []Sample{
		sampleAt(0, telemetryState(0.1, 1, 0, 10, 100, 50)),
		sampleAt(1, telemetryState(0.1, 1, 0, 12, 200, 80)),
		sampleAt(2, telemetryState(0.1, 1, 0, 15, 300, 90)),
		sampleAt(3, telemetryState(0.0, 0, 0, 1, 20, 5)),
		sampleAt(4, telemetryState(0.2, 1, 0, 4, 60, 25)),
	}
	tel := Summarize(samples, telemetryT0, telemetryT0.Add(4*time.Second))
	if *tel.Preemptions != 2+3+1+3 || *tel.PromptTokens != 100+100+20+40 || *tel.GenerationTokens != 30+10+5+20 {
		t.Errorf("deltas = %v %v %v", *tel.Preemptions, *tel.PromptTokens, *tel.GenerationTokens)
	}
	if tel.CounterResets != 1 {
		t.Errorf("CounterResets = %d, want 1", tel.CounterResets)
	}
}

func TestSummarizeSpecDecodeAcceptance(t *testing.T) {
	spec := func(drafts, draftTokens, accepted float64, perPos ...float64) Snapshot {
		return Snapshot{
			Present:            FieldSpecDrafts | FieldSpecDraftTokens | FieldSpecAccepted | FieldSpecAcceptedPerPos,
			SpecDrafts:         drafts,
			SpecDraftTokens:    draftTokens,
			SpecAccepted:       accepted,
			SpecAcceptedPerPos: perPos,
		}
	}
	// K = 3 drafts per step. Over the window: 200 drafts, 600 draft
	// tokens, 360 accepted (160 at position 0, 120 at 1, 80 at 2).
	samples := []Sample{
		sampleAt(0, spec(100, 300, 50, 30, 15, 5)),
		sampleAt(1, spec(200, 600, 250, 130, 75, 45)),
		sampleAt(2, spec(300, 900, 410, 190, 135, 85)),
	}
	sd := Summarize(samples, telemetryT0, telemetryT0.Add(2*time.Second)).SpecDecode
	if sd == nil {
		t.Fatal("no spec decode stats")
	}
	if sd.Drafts != 200 || sd.DraftTokens != 600 || sd.Accepted != 360 {
		t.Errorf("counts = %+v", *sd)
	}
	if !telemetryNear(sd.AcceptanceLength, 1+360.0/200) || !telemetryNear(sd.AcceptanceRate, 0.6) {
		t.Errorf("length %v rate %v, want 2.8 and 0.6", sd.AcceptanceLength, sd.AcceptanceRate)
	}
	if !slices.Equal(sd.AcceptedPerPos, []float64{160, 120, 80}) {
		t.Errorf("per pos = %v", sd.AcceptedPerPos)
	}
	want := []float64{0.8, 0.6, 0.4}
	for i := range want {
		if !telemetryNear(sd.PerPosAcceptanceRate[i], want[i]) {
			t.Errorf("per-position rate = %v, want %v", sd.PerPosAcceptanceRate, want)
		}
	}

	// No drafts in the window: acceptance length is 0 (undefined), not NaN.
	idle := Summarize(samples[:1], telemetryT0, telemetryT0.Add(time.Second)).SpecDecode
	if idle == nil || idle.AcceptanceLength != 0 || idle.AcceptanceRate != 0 {
		t.Errorf("idle = %+v", idle)
	}
}

func TestSummarizePrefixSuccessCapacity(t *testing.T) {
	cc := &CacheConfig{NumGPUBlocks: 2375, BlockSize: 16, CacheDtype: "auto", Engines: 1}
	snap := func(q, h float64, success map[string]float64) Snapshot {
		return Snapshot{
			Present:        FieldPrefixQueries | FieldPrefixHits | FieldRequestSuccess | FieldCacheConfig,
			PrefixQueries:  q,
			PrefixHits:     h,
			RequestSuccess: success,
			CacheConfig:    cc,
		}
	}
	samples := []Sample{
		sampleAt(0, snap(1000, 100, map[string]float64{"stop": 5, "length": 1})),
		sampleAt(1, snap(3000, 1100, map[string]float64{"stop": 9, "length": 1})),
		// "abort" first appears here: prometheus_client creates a
		// labelled series at its first increment, so it counts from 0.
		sampleAt(2, snap(5000, 1600, map[string]float64{"stop": 12, "length": 2, "abort": 1})),
	}
	tel := Summarize(samples, telemetryT0, telemetryT0.Add(2*time.Second))
	if p := tel.PrefixCache; p == nil || p.Queries != 4000 || p.Hits != 1500 || !telemetryNear(p.HitRate, 0.375) {
		t.Errorf("prefix = %+v", tel.PrefixCache)
	}
	if rs := tel.RequestSuccess; rs["stop"] != 7 || rs["length"] != 1 || rs["abort"] != 1 {
		t.Errorf("success = %v", rs)
	}
	c := tel.Capacity
	if c == nil || c.NumGPUBlocks != 2375 || c.BlockSize != 16 || c.KVCacheTokens != 38000 || !c.KVCacheTokensDerived || c.Engines != 1 {
		t.Errorf("capacity = %+v", c)
	}

	cc2 := &CacheConfig{NumGPUBlocks: 77160, BlockSize: 16, KVCacheSizeTokens: 1234560, KVCacheMaxConcurrency: 37.68, Engines: 1}
	c = Summarize([]Sample{sampleAt(0, Snapshot{Present: FieldCacheConfig, CacheConfig: cc2})}, telemetryT0, telemetryT0).Capacity
	if c == nil || c.KVCacheTokens != 1234560 || c.KVCacheTokensDerived || c.MaxConcurrency != 37.68 {
		t.Errorf("labelled capacity = %+v", c)
	}
}

func TestSummarizeWindowEdges(t *testing.T) {
	samples := []Sample{
		sampleAt(2, telemetryState(0.5, 1, 0, 0, 10, 10)),
		sampleAt(3, telemetryState(0.7, 1, 0, 0, 20, 20)),
	}
	// Nothing before from: the first sample in the window is the baseline.
	tel := Summarize(samples, telemetryT0, telemetryT0.Add(10*time.Second))
	if tel.Samples != 2 || *tel.PromptTokens != 10 {
		t.Errorf("samples %d prompt %v", tel.Samples, *tel.PromptTokens)
	}
	// 0.5 over [2, 3], 0.7 over [3, 10]: the time before the first
	// sample is not observed.
	if want := (0.5 + 0.7*7) / 8; !telemetryNear(tel.KVUsage.Mean, want) {
		t.Errorf("kv mean %v, want %v", tel.KVUsage.Mean, want)
	}
	// Empty, inverted and all-after windows.
	for _, w := range [][2]float64{{4, 1}, {0, 1}} {
		tel := Summarize(samples, telemetryT0.Add(time.Duration(w[0]*1e9)), telemetryT0.Add(time.Duration(w[1]*1e9)))
		if tel.Samples != 0 || tel.KVUsage != nil || tel.Preemptions != nil {
			t.Errorf("window %v: %+v", w, tel)
		}
	}
	if tel := Summarize(nil, telemetryT0, telemetryT0.Add(time.Second)); tel.Samples != 0 {
		t.Errorf("no samples: %+v", tel)
	}
	// A single sample: zero-length step, plain value.
	one := Summarize(samples[:1], telemetryT0.Add(2*time.Second), telemetryT0.Add(2*time.Second))
	if one.KVUsage == nil || one.KVUsage.Mean != 0.5 || *one.PromptTokens != 0 {
		t.Errorf("one sample: %+v", one)
	}
}

func TestSummarizeSkipsPartialSamples(t *testing.T) {
	// The middle scrape was cut short: it has the gauges but no counters.
	partial := Snapshot{Present: FieldKVUsage, KVUsage: 0.4, KVUsageMax: 0.4}
	samples := []Sample{
		sampleAt(0, telemetryState(0.2, 1, 0, 3, 100, 10)),
		sampleAt(1, partial),
		sampleAt(2, telemetryState(0.6, 1, 0, 5, 300, 30)),
	}
	tel := Summarize(samples, telemetryT0, telemetryT0.Add(2*time.Second))
	if *tel.Preemptions != 2 || *tel.PromptTokens != 200 || tel.CounterResets != 0 {
		t.Errorf("deltas %v %v resets %d", *tel.Preemptions, *tel.PromptTokens, tel.CounterResets)
	}
	if !telemetryNear(tel.KVUsage.Mean, 0.3) || tel.KVUsage.Peak != 0.6 {
		t.Errorf("kv %+v", *tel.KVUsage)
	}
	// Running holds its 0 s value through the partial sample.
	if tel.Running.Mean != 1 {
		t.Errorf("running %+v", *tel.Running)
	}
}
