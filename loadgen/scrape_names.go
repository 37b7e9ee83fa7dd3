package loadgen

// Metric family names the scraper reads, as a vLLM server exposes them on
// /metrics, with the older names it falls back to. Facts:
// reference/vllm-facts.md §4 (vllm/v1/metrics/loggers.py
// PrometheusStatLogger) and §3.3 (vllm/v1/spec_decode/metrics.py).
//
// Counters are defined in vLLM without `_total`; prometheus_client exposes
// them as `<name>_total` (plus a `<name>_created` gauge in single-process
// mode). Each counter lists the `_total` name first and the bare name as a
// fallback for exporters that drop the suffix (inference-perf matches
// `vllm:num_preemptions(_total)?` for the same reason).
//
// These are unexported until loadgen/vllmapi carries the shared table; the
// test against metric-families-v0.26.0-cpu.txt checks they match a recent
// server.
const (
	metricRunning         = "vllm:num_requests_running"
	metricWaiting         = "vllm:num_requests_waiting"
	metricWaitingByReason = "vllm:num_requests_waiting_by_reason"
	metricKVUsage         = "vllm:kv_cache_usage_perc"
	// metricGPUCacheUsage is the pre-v0.10 name of metricKVUsage: deprecated
	// in v0.10 (#18354), hidden in 0.11, removed in v0.12 (#29330).
	metricGPUCacheUsage = "vllm:gpu_cache_usage_perc"
	// metricCacheConfig is an info-style gauge (value 1) whose labels are
	// the engine's CacheConfig; one series per engine, no model_name.
	metricCacheConfig = "vllm:cache_config_info"

	metricPreemptions       = "vllm:num_preemptions_total"
	metricPromptTokens      = "vllm:prompt_tokens_total"
	metricGenerationTokens  = "vllm:generation_tokens_total"
	metricRequestSuccess    = "vllm:request_success_total"
	metricPrefixQueries     = "vllm:prefix_cache_queries_total"
	metricPrefixHits        = "vllm:prefix_cache_hits_total"
	metricGPUPrefixQueries  = "vllm:gpu_prefix_cache_queries_total" // removed with gpu_cache_usage_perc
	metricGPUPrefixHits     = "vllm:gpu_prefix_cache_hits_total"
	metricSpecDrafts        = "vllm:spec_decode_num_drafts_total"
	metricSpecDraftTokens   = "vllm:spec_decode_num_draft_tokens_total"
	metricSpecAccepted      = "vllm:spec_decode_num_accepted_tokens_total"
	metricSpecAcceptedByPos = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
)

// Label names on vLLM's series.
const (
	labelEngine         = "engine"          // data-parallel engine index, "0", "1", …
	labelFinishedReason = "finished_reason" // on request_success
	labelPosition       = "position"        // on accepted_tokens_per_pos, "0".."K-1"
)

// scrapeAliases lists, per quantity, the family names to try in order: the
// current name first, then older or suffix-less spellings.
var scrapeAliases = struct {
	kvUsage, prefixQueries, prefixHits []string
}{
	kvUsage:       []string{metricKVUsage, metricGPUCacheUsage},
	prefixQueries: []string{metricPrefixQueries, "vllm:prefix_cache_queries", metricGPUPrefixQueries, "vllm:gpu_prefix_cache_queries"},
	prefixHits:    []string{metricPrefixHits, "vllm:prefix_cache_hits", metricGPUPrefixHits, "vllm:gpu_prefix_cache_hits"},
}

// counterNames returns the exposed `_total` name of a counter and its bare
// fallback.
func counterNames(total string) []string {
	const suffix = "_total"
	if len(total) > len(suffix) && total[len(total)-len(suffix):] == suffix {
		return []string{total, total[:len(total)-len(suffix)]}
	}
	return []string{total}
}
