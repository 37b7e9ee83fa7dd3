package loadgen

import (
	"strings"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// The metric families the scraper reads. Names, aliases across versions
// and labels live in vllmapi (shared with the emulator, so what it serves
// and what we scrape cannot drift apart); vLLM defines them in vllm/v1/metrics/loggers.py
// and vllm/v1/spec_decode/metrics.py.
const (
	metricRunning         = vllmapi.MetricNumRequestsRunning
	metricWaiting         = vllmapi.MetricNumRequestsWaiting
	metricWaitingByReason = vllmapi.MetricNumRequestsWaitingByReason
	metricKVUsage         = vllmapi.MetricKVCacheUsagePerc
	metricGPUCacheUsage   = vllmapi.MetricGPUCacheUsagePerc
	metricCacheConfig     = vllmapi.MetricCacheConfigInfo

	metricPreemptions       = vllmapi.MetricNumPreemptionsTotal
	metricPromptTokens      = vllmapi.MetricPromptTokensTotal
	metricGenerationTokens  = vllmapi.MetricGenerationTokensTotal
	metricRequestSuccess    = vllmapi.MetricRequestSuccessTotal
	metricPrefixQueries     = vllmapi.MetricPrefixCacheQueriesTotal
	metricPrefixHits        = vllmapi.MetricPrefixCacheHitsTotal
	metricGPUPrefixQueries  = vllmapi.MetricGPUPrefixCacheQueriesTotal
	metricGPUPrefixHits     = vllmapi.MetricGPUPrefixCacheHitsTotal
	metricSpecDrafts        = vllmapi.MetricSpecDecodeNumDraftsTotal
	metricSpecDraftTokens   = vllmapi.MetricSpecDecodeNumDraftTokensTotal
	metricSpecAccepted      = vllmapi.MetricSpecDecodeNumAcceptedTokensTotal
	metricSpecAcceptedByPos = vllmapi.MetricSpecDecodeNumAcceptedTokensPerPosTotal

	metricQueueTime = vllmapi.MetricRequestQueueTimeSeconds
	metricTTFT      = vllmapi.MetricTimeToFirstTokenSeconds
)

// scrapeNames lists the family names to try for an exposed metric, in
// order: each of vllmapi.MetricAliases (the current name, then the
// pre-v0.12 one for renamed families), and for a counter each of those
// also without its `_total` suffix, for exporters that drop it
// (inference-perf matches `vllm:num_preemptions(_total)?` for the same
// reason). prometheus_client itself always adds `_total` to counters.
func scrapeNames(name string) []string {
	var out []string
	aliases := vllmapi.MetricAliases(name)
	if s, ok := sglangNames[name]; ok {
		aliases = append(aliases, s) // an SGLang server's (scrape_sglang.go)
	}
	for _, a := range aliases {
		out = append(out, a)
		if bare, ok := strings.CutSuffix(a, "_total"); ok {
			out = append(out, bare)
		}
	}
	return out
}
