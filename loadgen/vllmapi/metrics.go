package vllmapi

// Prometheus families on vLLM's /metrics (vllm/v1/metrics/loggers.py
// PrometheusStatLogger; spec decode in vllm/v1/spec_decode/metrics.py).
// Counters are defined without "_total" and prometheus_client exposes them
// as "<name>_total" (plus "<name>_created" in single-process mode), so the
// names below are the exposed ones. Every series has the labels model_name
// and engine (the data-parallel engine index, "0", "1", …).

// Scheduler and cache state (gauges, multiprocess_mode="mostrecent").
const (
	MetricNumRequestsRunning = "vllm:num_requests_running"
	MetricNumRequestsWaiting = "vllm:num_requests_waiting"
	// MetricNumRequestsWaitingByReason splits waiting by reason="capacity"
	// or "deferred" (#38435, 2026-04).
	MetricNumRequestsWaitingByReason = "vllm:num_requests_waiting_by_reason"
	// MetricKVCacheUsagePerc is 1 - free/(num_gpu_blocks-1): a fraction in
	// 0..1 despite its name.
	MetricKVCacheUsagePerc = "vllm:kv_cache_usage_perc"
	// MetricGPUCacheUsagePerc is the old name of MetricKVCacheUsagePerc:
	// deprecated in the v0.10 cycle (#18354), hidden in 0.11, removed
	// 2025-11-25 (#29330), so absent from v0.12 on.
	MetricGPUCacheUsagePerc = "vllm:gpu_cache_usage_perc"
	// MetricCacheConfigInfo is an info-style gauge (value 1) whose labels
	// are the engine's CacheConfig; one series per engine, no model_name.
	// The best scrape target for capacity (num_gpu_blocks).
	MetricCacheConfigInfo = "vllm:cache_config_info"
)

// Counters, as exposed.
const (
	// MetricNumPreemptionsTotal lags: a preemption is counted when the
	// preempted request next emits output or finishes.
	MetricNumPreemptionsTotal = "vllm:num_preemptions_total"
	// MetricPromptTokensTotal counts each request's whole prompt (cached
	// tokens included) once, at its first output.
	MetricPromptTokensTotal     = "vllm:prompt_tokens_total"
	MetricGenerationTokensTotal = "vllm:generation_tokens_total"
	// MetricRequestSuccessTotal has the label finished_reason.
	MetricRequestSuccessTotal = "vllm:request_success_total"
	// Prefix-cache tokens queried and hit, at admission, for requests not
	// preempted.
	MetricPrefixCacheQueriesTotal = "vllm:prefix_cache_queries_total"
	MetricPrefixCacheHitsTotal    = "vllm:prefix_cache_hits_total"
	// The old prefix-cache names, removed with MetricGPUCacheUsagePerc.
	MetricGPUPrefixCacheQueriesTotal = "vllm:gpu_prefix_cache_queries_total"
	MetricGPUPrefixCacheHitsTotal    = "vllm:gpu_prefix_cache_hits_total"
)

// Speculative-decoding counters, registered only with a speculative config.
// Acceptance rate = accepted/draft tokens; mean acceptance length =
// 1 + accepted/drafts.
const (
	// MetricSpecDecodeNumDraftsTotal is +1 per request per step with drafts.
	MetricSpecDecodeNumDraftsTotal      = "vllm:spec_decode_num_drafts_total"
	MetricSpecDecodeNumDraftTokensTotal = "vllm:spec_decode_num_draft_tokens_total"
	// MetricSpecDecodeNumAcceptedTokensTotal is +len(sampled)-1 per draft.
	MetricSpecDecodeNumAcceptedTokensTotal = "vllm:spec_decode_num_accepted_tokens_total"
	// MetricSpecDecodeNumAcceptedTokensPerPosTotal has the label position,
	// "0".."K-1".
	MetricSpecDecodeNumAcceptedTokensPerPosTotal = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
)

// Histograms (each exposes _bucket{le}, _sum and _count).
const (
	// MetricTimeToFirstTokenSeconds observes the first output's frontend
	// time minus the request's arrival.
	MetricTimeToFirstTokenSeconds = "vllm:time_to_first_token_seconds"
	// MetricInterTokenLatencySeconds has one observation per output batch:
	// with spec decode or stream_interval, several tokens give one sample.
	MetricInterTokenLatencySeconds = "vllm:inter_token_latency_seconds"
	// MetricRequestTimePerOutputTokenSeconds is per request:
	// decode_time / (generation tokens - 1).
	MetricRequestTimePerOutputTokenSeconds = "vllm:request_time_per_output_token_seconds"
	// MetricTimePerOutputTokenSeconds was replaced by the ITL histogram
	// (#24110), hidden in 0.12 and removed 2026-01-20 (#32661).
	MetricTimePerOutputTokenSeconds      = "vllm:time_per_output_token_seconds"
	MetricE2ERequestLatencySeconds       = "vllm:e2e_request_latency_seconds"
	MetricRequestQueueTimeSeconds        = "vllm:request_queue_time_seconds"
	MetricRequestPrefillTimeSeconds      = "vllm:request_prefill_time_seconds"
	MetricRequestDecodeTimeSeconds       = "vllm:request_decode_time_seconds"
	MetricRequestInferenceTimeSeconds    = "vllm:request_inference_time_seconds"
	MetricRequestPromptTokens            = "vllm:request_prompt_tokens"
	MetricRequestGenerationTokens        = "vllm:request_generation_tokens"
	MetricRequestParamsMaxTokens         = "vllm:request_params_max_tokens"
	MetricRequestMaxNumGenerationTokens  = "vllm:request_max_num_generation_tokens"
	MetricRequestPrefillKVComputedTokens = "vllm:request_prefill_kv_computed_tokens"
	MetricRequestParamsN                 = "vllm:request_params_n"
	// MetricIterationTokensTotal is a histogram despite its suffix: tokens
	// per engine step.
	MetricIterationTokensTotal = "vllm:iteration_tokens_total"
)

// Label names on vLLM's series.
const (
	LabelModelName      = "model_name"
	LabelEngine         = "engine"
	LabelFinishedReason = "finished_reason" // on request_success_total
	LabelPosition       = "position"        // on accepted_tokens_per_pos_total
	LabelReason         = "reason"          // on num_requests_waiting_by_reason

	// Labels of cache_config_info (one per CacheConfig attribute).
	LabelBlockSize             = "block_size"
	LabelNumGPUBlocks          = "num_gpu_blocks"
	LabelCacheDtype            = "cache_dtype"
	LabelGPUMemoryUtilization  = "gpu_memory_utilization"
	LabelEnablePrefixCaching   = "enable_prefix_caching"
	LabelKVCacheSizeTokens     = "kv_cache_size_tokens"     // since 2026-08-04
	LabelKVCacheMaxConcurrency = "kv_cache_max_concurrency" // since 2026-08-04
)

// MetricAliases returns the family names under which a server may expose
// name, newest first: the name itself, then its pre-v0.12 spelling for the
// families that were renamed. A scraper tries them in order.
func MetricAliases(name string) []string {
	switch name {
	case MetricKVCacheUsagePerc:
		return []string{MetricKVCacheUsagePerc, MetricGPUCacheUsagePerc}
	case MetricPrefixCacheQueriesTotal:
		return []string{MetricPrefixCacheQueriesTotal, MetricGPUPrefixCacheQueriesTotal}
	case MetricPrefixCacheHitsTotal:
		return []string{MetricPrefixCacheHitsTotal, MetricGPUPrefixCacheHitsTotal}
	case MetricInterTokenLatencySeconds:
		return []string{MetricInterTokenLatencySeconds, MetricTimePerOutputTokenSeconds}
	}
	return []string{name}
}

// Histogram buckets, as PrometheusStatLogger defines them. Each call
// returns a fresh slice.

// TTFTBuckets are time_to_first_token_seconds' 22 buckets.
func TTFTBuckets() []float64 {
	return []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
}

// ITLBuckets are the buckets of inter_token_latency_seconds and
// request_time_per_output_token_seconds (and the removed
// time_per_output_token_seconds).
func ITLBuckets() []float64 {
	return []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
}

// RequestLatencyBuckets are shared by the e2e, queue, inference, prefill
// and decode time histograms.
func RequestLatencyBuckets() []float64 {
	return []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
		30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
}

// IterationTokensBuckets are iteration_tokens_total's buckets.
func IterationTokensBuckets() []float64 {
	return []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
}

// ParamsNBuckets are request_params_n's buckets.
func ParamsNBuckets() []float64 { return []float64{1, 2, 5, 10, 20} }

// TokenCountBuckets are the 1-2-5 series up to maxModelLen that the token
// count histograms use (request_prompt_tokens, request_generation_tokens,
// request_params_max_tokens, request_max_num_generation_tokens,
// request_prefill_kv_computed_tokens): build_1_2_5_buckets.
func TokenCountBuckets(maxModelLen int) []float64 {
	var b []float64
	for p := 1; p > 0 && p <= maxModelLen; p *= 10 {
		for _, m := range [...]int{1, 2, 5} {
			if m*p > maxModelLen {
				return b
			}
			b = append(b, float64(m*p))
		}
		if p > maxModelLen/10 {
			break
		}
	}
	return b
}
