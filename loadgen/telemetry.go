package loadgen

import (
	"slices"
	"time"
)

// Telemetry is what the server's /metrics said over a measurement window:
// counter deltas, gauge means and peaks, spec-decode acceptance, the prefix
// cache hit rate and the KV capacity. A nil pointer (or map) means the
// server exposed no such metric in the window, so a report can say so
// rather than print a zero.
type Telemetry struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Samples is the number of scrapes used, including the baseline
	// scrape at or before From.
	Samples int `json:"samples"`

	// Preemptions is the increase of vllm:num_preemptions_total. vLLM
	// counts a preemption only when the preempted request next emits
	// output or finishes (vllm/v1/metrics/loggers.py via
	// EngineCoreEventType.PREEMPTED), so preemptions late in the window may
	// show up after it, and ones before it inside it.
	Preemptions *float64 `json:"preemptions,omitempty"`
	// PromptTokens counts each request's full prompt once, at its first
	// output (cached tokens included, re-prefills after preemption not).
	PromptTokens     *float64           `json:"prompt_tokens,omitempty"`
	GenerationTokens *float64           `json:"generation_tokens,omitempty"`
	RequestSuccess   map[string]float64 `json:"request_success,omitempty"`

	// KVUsage is the time-weighted mean over engines and the peak of any
	// engine, as the simulator reports them; Running and Waiting are sums
	// over engines.
	KVUsage *GaugeStats `json:"kv_usage,omitempty"`
	Running *GaugeStats `json:"running,omitempty"`
	Waiting *GaugeStats `json:"waiting,omitempty"`

	// QueueTime is vllm:request_queue_time_seconds over the window: the
	// requests that left the server's waiting queue in it, their mean
	// and quantiles. Nil when the server exposed no such histogram or no
	// request left the queue in the window: a Queue row of "-", not 0.
	QueueTime *HistogramStats `json:"queue_time,omitempty"`
	// TTFT is vllm:time_to_first_token_seconds over the window: the server's
	// TTFT of the requests that got their first token in it; nil when no
	// scrape had it.
	TTFT *HistogramStats `json:"ttft,omitempty"`

	PrefixCache *PrefixCacheStats `json:"prefix_cache,omitempty"`
	SpecDecode  *SpecDecodeStats  `json:"spec_decode,omitempty"`
	Capacity    *ServerCapacity   `json:"capacity,omitempty"`

	// CounterResets counts scrapes where some counter went down: the
	// server restarted within the window. Deltas treat the counter as
	// starting again from zero, as Prometheus's increase() does.
	CounterResets int `json:"counter_resets"`
	// Families is every vllm:* family seen in the window, sorted.
	Families []string `json:"families,omitempty"`
}

// GaugeStats is a gauge's time-weighted mean and its peak over a window.
type GaugeStats struct {
	Mean float64 `json:"mean"`
	Peak float64 `json:"peak"`
}

// PrefixCacheStats is the prefix cache's token counts over a window.
type PrefixCacheStats struct {
	Queries float64 `json:"queries"`
	Hits    float64 `json:"hits"`
	HitRate float64 `json:"hit_rate"` // Hits/Queries, 0 when nothing was queried
}

// SpecDecodeStats is speculative decoding over a window, from the
// counters of vllm/v1/spec_decode/metrics.py, computed
// as that file's docstring and `vllm bench serve` do.
type SpecDecodeStats struct {
	Drafts         float64   `json:"drafts"`
	DraftTokens    float64   `json:"draft_tokens"`
	Accepted       float64   `json:"accepted"`
	AcceptedPerPos []float64 `json:"accepted_per_pos,omitempty"`
	// AcceptanceRate is Accepted/DraftTokens.
	AcceptanceRate float64 `json:"acceptance_rate"`
	// AcceptanceLength is 1 + Accepted/Drafts: tokens per target forward
	// pass for a request with drafts. 0 when no draft was made.
	AcceptanceLength float64 `json:"acceptance_length"`
	// PerPosAcceptanceRate[i] is AcceptedPerPos[i]/Drafts, the fraction of
	// drafts whose token i was accepted (vLLM's "Per-position acceptance
	// rate" log line).
	PerPosAcceptanceRate []float64 `json:"per_position_acceptance_rate,omitempty"`
}

// ServerCapacity is the KV capacity the server reported in
// vllm:cache_config_info: per engine, with the engine count beside it.
// Its keys match the summary JSON's "capacity".
type ServerCapacity struct {
	NumGPUBlocks int64 `json:"num_gpu_blocks"`
	BlockSize    int64 `json:"block_size"`
	// KVCacheTokens is the kv_cache_size_tokens label, or NumGPUBlocks ×
	// BlockSize on servers before 2026-08 (then KVCacheTokensDerived; the
	// product overstates hybrid models, whose groups share the pool).
	KVCacheTokens        int64   `json:"kv_cache_tokens"`
	KVCacheTokensDerived bool    `json:"kv_cache_tokens_derived,omitempty"`
	MaxConcurrency       float64 `json:"max_concurrency,omitempty"` // kv_cache_max_concurrency, when exposed
	CacheDtype           string  `json:"cache_dtype,omitempty"`
	Engines              int     `json:"engines"`
}

// Summarize reduces samples (in time order, as Scraper.Samples returns
// them) to the Telemetry of the window [from, to].
//
// The window's samples are the last one at or before from (the baseline;
// the first one after from when none precedes it) through the last one at
// or before to. Counter deltas add up the increases between consecutive
// samples; a decrease is a reset, after which the new value is the
// increase (Prometheus's increase(), without its extrapolation to the
// window edges). A sample lacking a quantity is skipped for it; a labelled
// series that first appears mid-window (prometheus_client creates them at
// first use) counts from zero. Gauges are step functions, each sample's
// value holding until the next one (the last until to), and are averaged
// over time.
func Summarize(samples []Sample, from, to time.Time) Telemetry {
	t := Telemetry{From: from, To: to}
	w := telemetryWindow(samples, from, to)
	t.Samples = len(w)
	if len(w) == 0 {
		return t
	}

	resets := make([]bool, len(w))
	counter := func(f Field, get func(*Snapshot) float64) *float64 {
		d, ok := counterIncrease(w, f, get, resets)
		if !ok {
			return nil
		}
		return &d
	}
	t.Preemptions = counter(FieldPreemptions, func(s *Snapshot) float64 { return s.Preemptions })
	t.PromptTokens = counter(FieldPromptTokens, func(s *Snapshot) float64 { return s.PromptTokens })
	t.GenerationTokens = counter(FieldGenerationTokens, func(s *Snapshot) float64 { return s.GenerationTokens })
	t.RequestSuccess = labelledIncrease(w, FieldRequestSuccess, resets)

	queries := counter(FieldPrefixQueries, func(s *Snapshot) float64 { return s.PrefixQueries })
	hits := counter(FieldPrefixHits, func(s *Snapshot) float64 { return s.PrefixHits })
	if queries != nil && hits != nil {
		p := &PrefixCacheStats{Queries: *queries, Hits: *hits}
		if p.Queries > 0 {
			p.HitRate = p.Hits / p.Queries
		}
		t.PrefixCache = p
	}

	t.SpecDecode = specDecodeStats(w, resets)
	if h, ok := histogramIncrease(w, resets, func(s *Sample) *Histogram { return s.QueueTime }); ok {
		if st, ok := h.Stats(); ok {
			t.QueueTime = &st
		}
	}
	if h, ok := histogramIncrease(w, resets, func(s *Sample) *Histogram { return s.TTFT }); ok {
		if st, ok := h.Stats(); ok {
			t.TTFT = &st
		}
	}

	t.KVUsage = gaugeStats(w, from, to, FieldKVUsage,
		func(s *Snapshot) float64 { return s.KVUsage }, func(s *Snapshot) float64 { return s.KVUsageMax })
	t.Running = gaugeStats(w, from, to, FieldRunning,
		func(s *Snapshot) float64 { return s.Running }, func(s *Snapshot) float64 { return s.Running })
	t.Waiting = gaugeStats(w, from, to, FieldWaiting,
		func(s *Snapshot) float64 { return s.Waiting }, func(s *Snapshot) float64 { return s.Waiting })

	t.Capacity = serverCapacity(w, samples)
	for _, r := range resets {
		if r {
			t.CounterResets++
		}
	}
	for i := range w {
		for _, f := range w[i].Families {
			if _, found := slices.BinarySearch(t.Families, f); !found {
				t.Families = append(t.Families, f)
				slices.Sort(t.Families)
			}
		}
	}
	return t
}

// telemetryWindow returns the samples Summarize uses for [from, to].
func telemetryWindow(samples []Sample, from, to time.Time) []Sample {
	if to.Before(from) {
		return nil
	}
	first := -1
	last := -1
	for i := range samples {
		ts := samples[i].Time
		if !ts.After(from) {
			first = i // the latest at or before from
		}
		if !ts.After(to) {
			last = i
		}
	}
	if first < 0 {
		// Nothing precedes the window: start at its first sample.
		for i := range samples {
			if !samples[i].Time.Before(from) {
				first = i
				break
			}
		}
	}
	if first < 0 || last < first {
		return nil
	}
	return samples[first : last+1]
}

// counterIncrease sums a counter's increases over w, treating a decrease
// as a reset (marked in resets at the sample's index). ok is false when
// no sample had the counter.
func counterIncrease(w []Sample, f Field, get func(*Snapshot) float64, resets []bool) (inc float64, ok bool) {
	var prev float64
	for i := range w {
		s := &w[i].Snapshot
		if !s.Has(f) {
			continue
		}
		v := get(s)
		if ok {
			inc += counterDelta(prev, v, &resets[i])
		}
		prev, ok = v, true
	}
	return inc, ok
}

// counterDelta is the growth of a counter from prev to v: v itself when the
// counter went down (it restarted from zero).
func counterDelta(prev, v float64, reset *bool) float64 {
	if v < prev {
		*reset = true
		return v
	}
	return v - prev
}

// labelledIncrease is counterIncrease per label value of
// RequestSuccess; nil when no sample had it.
func labelledIncrease(w []Sample, f Field, resets []bool) map[string]float64 {
	var out map[string]float64
	var prev map[string]float64
	for i := range w {
		s := &w[i].Snapshot
		if !s.Has(f) {
			continue
		}
		if out == nil {
			out = make(map[string]float64, len(s.RequestSuccess))
			for k := range s.RequestSuccess {
				out[k] = 0
			}
		} else {
			for k, v := range s.RequestSuccess {
				out[k] += counterDelta(prev[k], v, &resets[i])
			}
		}
		prev = s.RequestSuccess
	}
	return out
}

// specDecodeStats computes acceptance over w; nil when the server has no
// spec-decode counters (no speculative config).
func specDecodeStats(w []Sample, resets []bool) *SpecDecodeStats {
	drafts, okD := counterIncrease(w, FieldSpecDrafts, func(s *Snapshot) float64 { return s.SpecDrafts }, resets)
	accepted, okA := counterIncrease(w, FieldSpecAccepted, func(s *Snapshot) float64 { return s.SpecAccepted }, resets)
	if !okD || !okA {
		return nil
	}
	draftTokens, _ := counterIncrease(w, FieldSpecDraftTokens, func(s *Snapshot) float64 { return s.SpecDraftTokens }, resets)
	sd := &SpecDecodeStats{Drafts: drafts, DraftTokens: draftTokens, Accepted: accepted}

	// Per position, like labelledIncrease over the position index.
	var prev []float64
	seen := false
	for i := range w {
		s := &w[i].Snapshot
		if !s.Has(FieldSpecAcceptedPerPos) {
			continue
		}
		cur := s.SpecAcceptedPerPos
		if len(sd.AcceptedPerPos) < len(cur) {
			sd.AcceptedPerPos = append(sd.AcceptedPerPos, make([]float64, len(cur)-len(sd.AcceptedPerPos))...)
		}
		if seen {
			for p, v := range cur {
				var before float64
				if p < len(prev) {
					before = prev[p]
				}
				sd.AcceptedPerPos[p] += counterDelta(before, v, &resets[i])
			}
		}
		prev, seen = cur, true
	}

	if draftTokens > 0 {
		sd.AcceptanceRate = accepted / draftTokens
	}
	if drafts > 0 {
		sd.AcceptanceLength = 1 + accepted/drafts
		sd.PerPosAcceptanceRate = make([]float64, len(sd.AcceptedPerPos))
		for p, a := range sd.AcceptedPerPos {
			sd.PerPosAcceptanceRate[p] = a / drafts
		}
	}
	return sd
}

// gaugeStats is the time-weighted mean of mean(s) over [from, to] and the
// peak of peak(s), each sample's value holding until the next sample;
// nil when no sample had the gauge.
func gaugeStats(w []Sample, from, to time.Time, f Field, mean, peak func(*Snapshot) float64) *GaugeStats {
	var (
		g          GaugeStats
		area, span float64 // value×seconds, seconds
		sum        float64 // plain sum, for a zero-length window
		n          int
	)
	for i := range w {
		s := &w[i].Snapshot
		if !s.Has(f) {
			continue
		}
		v := mean(s)
		if n == 0 || peak(s) > g.Peak {
			g.Peak = peak(s)
		}
		sum += v
		n++
		// This value holds from its sample (or from) to the next sample
		// having the gauge (or to).
		start := telemetryLater(w[i].Time, from)
		end := to
		for j := i + 1; j < len(w); j++ {
			if w[j].Has(f) {
				end = telemetryEarlier(w[j].Time, to)
				break
			}
		}
		if d := end.Sub(start).Seconds(); d > 0 {
			area += v * d
			span += d
		}
	}
	if n == 0 {
		return nil
	}
	if span > 0 {
		g.Mean = area / span
	} else {
		g.Mean = sum / float64(n)
	}
	return &g
}

// serverCapacity reads cache_config_info from the first window sample
// that has it, else from any sample (the config is fixed at engine start).
func serverCapacity(w, all []Sample) *ServerCapacity {
	var cc *CacheConfig
	for _, set := range [][]Sample{w, all} {
		for i := range set {
			if set[i].CacheConfig != nil {
				cc = set[i].CacheConfig
				break
			}
		}
		if cc != nil {
			break
		}
	}
	if cc == nil {
		return nil
	}
	c := &ServerCapacity{
		NumGPUBlocks:   cc.NumGPUBlocks,
		BlockSize:      cc.BlockSize,
		KVCacheTokens:  cc.KVCacheSizeTokens,
		MaxConcurrency: cc.KVCacheMaxConcurrency,
		CacheDtype:     cc.CacheDtype,
		Engines:        cc.Engines,
	}
	if c.KVCacheTokens == 0 && c.NumGPUBlocks > 0 && c.BlockSize > 0 {
		c.KVCacheTokens = c.NumGPUBlocks * c.BlockSize
		c.KVCacheTokensDerived = true
	}
	return c
}

func telemetryLater(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func telemetryEarlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
