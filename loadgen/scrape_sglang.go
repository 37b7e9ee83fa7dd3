package loadgen

import (
	"strings"

	dto "github.com/prometheus/client_model/go"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// SGLang's /metrics (--enable-metrics) say what vLLM's say under other
// names: the scraper reads an SGLang server's families where a vLLM
// server's are absent. Names, types and labels from SGLang's
// python/sglang/srt/observability/metrics_collector.py (metrics/collector.py
// before), checked against the captures in testdata/sglang (PROVENANCE.md):
//
//   - running and waiting: the num_running_reqs and num_queue_reqs gauges;
//   - KV usage: token_usage, the fraction of the KV pool's tokens in use;
//   - preemptions: num_retracted_requests_total, SGLang's retractions
//     (a running request sent back to the queue when the pool runs out);
//   - prompt and generation tokens: the *_tokens_total counters;
//   - prefix cache: cached_tokens_total over prompt_tokens_total, vLLM's
//     hits over queries in tokens;
//   - requests: num_requests_total (no finish reason);
//   - TTFT and queue time: the time_to_first_token_seconds and
//     queue_time_seconds histograms.
//
// SGLang labels a scheduler's series by tp_rank, pp_rank and, with
// data-parallel attention, dp_rank: a gauge is summed over the dp ranks,
// its tp and pp ranks (one scheduler's view each) counted once.
var sglangNames = map[string]string{
	vllmapi.MetricNumRequestsRunning:      "sglang:num_running_reqs",
	vllmapi.MetricNumRequestsWaiting:      "sglang:num_queue_reqs",
	vllmapi.MetricKVCacheUsagePerc:        "sglang:token_usage",
	vllmapi.MetricNumPreemptionsTotal:     "sglang:num_retracted_requests_total",
	vllmapi.MetricPromptTokensTotal:       "sglang:prompt_tokens_total",
	vllmapi.MetricGenerationTokensTotal:   "sglang:generation_tokens_total",
	vllmapi.MetricPrefixCacheQueriesTotal: "sglang:prompt_tokens_total",
	vllmapi.MetricPrefixCacheHitsTotal:    "sglang:cached_tokens_total",
	vllmapi.MetricRequestSuccessTotal:     "sglang:num_requests_total",
	vllmapi.MetricTimeToFirstTokenSeconds: "sglang:time_to_first_token_seconds",
	vllmapi.MetricRequestQueueTimeSeconds: "sglang:queue_time_seconds",
}

// EngineSGLang and EngineVLLM name the servers a load test knows.
const (
	EngineVLLM   = "vllm"
	EngineSGLang = "sglang"
)

// isSGLang reports whether a family is SGLang's.
func isSGLang(name string) bool { return strings.HasPrefix(name, "sglang:") }

// seriesGroup is the key under which a family's series add up: a vLLM
// series' engine (each data-parallel engine's own count), an SGLang
// series' dp rank (its tp and pp ranks repeat one scheduler's count).
func seriesGroup(family string, m *dto.Metric) string {
	if isSGLang(family) {
		return labelValue(m, "dp_rank")
	}
	return labelValue(m, vllmapi.LabelEngine)
}

// sumOverGroups adds a family's values over its groups (seriesGroup),
// taking the largest within one, and reports the groups seen.
func sumOverGroups(fam *dto.MetricFamily, seen map[string]bool) (float64, bool) {
	if !isSGLang(fam.GetName()) {
		var total float64
		ok := false
		for _, m := range fam.Metric {
			if v, good := metricValue(m); good {
				total, ok = total+v, true
				if seen != nil {
					seen[seriesGroup(fam.GetName(), m)] = true
				}
			}
		}
		return total, ok
	}
	byGroup := map[string]float64{}
	for _, m := range fam.Metric {
		if v, good := metricValue(m); good {
			g := seriesGroup(fam.GetName(), m)
			if prev, had := byGroup[g]; !had || v > prev {
				byGroup[g] = v
			}
		}
	}
	var total float64
	for g, v := range byGroup {
		total += v
		if seen != nil {
			seen[g] = true
		}
	}
	return total, len(byGroup) > 0
}
