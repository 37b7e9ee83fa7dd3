package loadgen

import (
	"maps"
	"slices"
)

// Snapshot is what thinkcap reads from one /metrics response of a vLLM
// server. Gauges are the state at the scrape; counters are cumulative since
// the server started (Summarize turns them into deltas over a window).
//
// Series are aggregated over their labels: gauges and counters are summed
// over `engine` (data-parallel engines) and `model_name`; KV usage is
// averaged over engines (KVUsage, which matches the simulator's mean over
// replicas when the engines have equal pools) and also kept as the maximum
// (KVUsageMax: the engine that preempts first).
//
// A quantity the server did not expose is zero and its Field is not in
// Present; use Has to tell "absent" from "zero".
type Snapshot struct {
	// Present says which of the quantities below the server exposed.
	Present Field

	Running    float64 // vllm:num_requests_running
	Waiting    float64 // vllm:num_requests_waiting
	KVUsage    float64 // vllm:kv_cache_usage_perc (or gpu_cache_usage_perc), 0..1, mean over engines
	KVUsageMax float64 // the same, max over engines

	// Preemptions is vllm:num_preemptions_total. It lags: vLLM counts a
	// preemption when the preempted request next emits output or finishes
	// (vllm/v1/metrics/loggers.py), so it can trail the KV-usage peak by seconds.
	Preemptions      float64
	PromptTokens     float64 // vllm:prompt_tokens_total (once per request, cached tokens included)
	GenerationTokens float64 // vllm:generation_tokens_total

	PrefixQueries float64 // vllm:prefix_cache_queries_total (or gpu_prefix_cache_queries_total), tokens
	PrefixHits    float64 // vllm:prefix_cache_hits_total (or gpu_prefix_cache_hits_total), tokens

	SpecDrafts      float64 // vllm:spec_decode_num_drafts_total
	SpecDraftTokens float64 // vllm:spec_decode_num_draft_tokens_total
	SpecAccepted    float64 // vllm:spec_decode_num_accepted_tokens_total
	// SpecAcceptedPerPos is vllm:spec_decode_num_accepted_tokens_per_pos_total
	// indexed by its `position` label (0..K-1).
	SpecAcceptedPerPos []float64

	// RequestSuccess is vllm:request_success_total by finished_reason
	// (stop, length, abort, error, repetition).
	RequestSuccess map[string]float64

	// CacheConfig is vllm:cache_config_info, nil when not exposed.
	CacheConfig *CacheConfig

	// QueueTime is the histogram vllm:request_queue_time_seconds (time
	// from QUEUED to the first SCHEDULED event in the engine core,
	// vllm/v1/metrics/loggers.py), summed over engines;
	// nil when not exposed.
	QueueTime *Histogram
	// TTFT is the histogram vllm:time_to_first_token_seconds (the
	// server's TTFT, from the request's arrival in the API server's
	// processor, without HTTP and the network), summed over engines; nil
	// when not exposed.
	TTFT *Histogram

	// Engines is the number of distinct `engine` labels on the scheduler
	// gauges (1 for servers without that label, 0 when none was seen).
	Engines int

	// Families lists the vllm:* metric families present, sorted, without
	// prometheus_client's `<name>_created` companions. The scraper shares
	// one slice among samples while it does not change: do not modify it.
	Families []string
}

// Field names one quantity of a Snapshot; Fields combine with |.
type Field uint32

// The quantities of a Snapshot.
const (
	FieldRunning Field = 1 << iota
	FieldWaiting
	FieldKVUsage
	FieldPreemptions
	FieldPromptTokens
	FieldGenerationTokens
	FieldPrefixQueries
	FieldPrefixHits
	FieldSpecDrafts
	FieldSpecDraftTokens
	FieldSpecAccepted
	FieldSpecAcceptedPerPos
	FieldRequestSuccess
	FieldCacheConfig
	FieldQueueTime
	FieldTTFT
)

// Has reports whether the server exposed every quantity in f.
func (s *Snapshot) Has(f Field) bool { return s.Present&f == f }

// HasFamily reports whether the vllm:* family name was present.
func (s *Snapshot) HasFamily(name string) bool {
	_, found := slices.BinarySearch(s.Families, name)
	return found
}

// CacheConfig is the engine's cache configuration as vllm:cache_config_info
// labels it (vllm/v1/metrics/loggers.py sets one label per CacheConfig
// attribute). Numeric fields are zero when the label is
// absent or "None"; Labels keeps every label verbatim.
type CacheConfig struct {
	NumGPUBlocks         int64   `json:"num_gpu_blocks,omitempty"`
	BlockSize            int64   `json:"block_size,omitempty"`
	CacheDtype           string  `json:"cache_dtype,omitempty"`
	EnablePrefixCaching  bool    `json:"enable_prefix_caching"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization,omitempty"`
	// KVCacheSizeTokens and KVCacheMaxConcurrency are labelled since
	// 2026-08-04; older servers only log them at startup.
	KVCacheSizeTokens     int64   `json:"kv_cache_size_tokens,omitempty"`
	KVCacheMaxConcurrency float64 `json:"kv_cache_max_concurrency,omitempty"`
	KVCacheMemoryBytes    int64   `json:"kv_cache_memory_bytes,omitempty"`
	// Engine is the `engine` label of the series read (the lowest when
	// several data-parallel engines expose one each); "" on V0 servers.
	Engine string `json:"engine,omitempty"`
	// Engines is the number of cache_config_info series: the capacity
	// above is per engine.
	Engines int               `json:"engines"`
	Labels  map[string]string `json:"labels"`
}

// sameCacheConfig reports whether a and b carry the same labels, so the
// scraper can share one *CacheConfig among samples.
func sameCacheConfig(a, b *CacheConfig) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Engines == b.Engines && a.Engine == b.Engine && maps.Equal(a.Labels, b.Labels)
}
