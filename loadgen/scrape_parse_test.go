package loadgen

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readMetricsFixture reads a real /metrics capture from testdata/metrics
// (see its PROVENANCE.md).
func readMetricsFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "metrics", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseMetricsV0Dump(t *testing.T) {
	// A V0 server (~v0.6, 2024): gpu_cache_usage_perc, no engine label,
	// cache_config_info with num_gpu_blocks=2375.
	s, err := ParseMetrics(bytes.NewReader(readMetricsFixture(t, "metrics-v0-2024-llama31-8b-idle-excerpt.txt")))
	if err != nil {
		t.Fatalf("ParseMetrics: %v", err)
	}
	want := FieldRunning | FieldWaiting | FieldKVUsage | FieldPreemptions | FieldPromptTokens | FieldGenerationTokens | FieldCacheConfig
	if s.Present != want {
		t.Errorf("Present = %b, want %b", s.Present, want)
	}
	if s.Has(FieldSpecDrafts) || s.Has(FieldPrefixQueries) || s.SpecAcceptedPerPos != nil || s.RequestSuccess != nil {
		t.Errorf("V0 dump has no spec-decode or prefix counters: %+v", s)
	}
	if s.Engines != 1 {
		t.Errorf("Engines = %d, want 1 (no engine label)", s.Engines)
	}
	if !s.HasFamily("vllm:gpu_cache_usage_perc") || s.HasFamily("vllm:kv_cache_usage_perc") {
		t.Errorf("Families = %v", s.Families)
	}
	cc := s.CacheConfig
	if cc == nil {
		t.Fatal("no cache config")
	}
	if cc.NumGPUBlocks != 2375 || cc.BlockSize != 16 || cc.CacheDtype != "auto" || cc.EnablePrefixCaching ||
		cc.GPUMemoryUtilization != 0.9 || cc.KVCacheSizeTokens != 0 || cc.Engines != 1 || cc.Engine != "" {
		t.Errorf("cache config = %+v", cc)
	}
	if cc.Labels["swap_space_bytes"] != "4294967296" || cc.Labels["num_gpu_blocks_override"] != "None" {
		t.Errorf("labels = %v", cc.Labels)
	}
}

func TestParseMetricsV010Excerpt(t *testing.T) {
	// v0.10.0: exponent values, deprecated gpu_prefix_cache_* next to the
	// new prefix_cache_*, _created gauges.
	s, err := ParseMetrics(bytes.NewReader(readMetricsFixture(t, "metrics-v1-v0.10.0-glm45-excerpt.txt")))
	if err != nil {
		t.Fatalf("ParseMetrics: %v", err)
	}
	if !s.Has(FieldKVUsage) || s.KVUsage != 9.75010481363281e-06 || s.KVUsageMax != s.KVUsage {
		t.Errorf("kv usage = %v / %v", s.KVUsage, s.KVUsageMax)
	}
	if !s.Has(FieldPrefixQueries) || s.PrefixQueries != 32 {
		t.Errorf("prefix queries = %v (new name wins)", s.PrefixQueries)
	}
	// Hits only exist under the deprecated name in this excerpt.
	if !s.Has(FieldPrefixHits) || s.PrefixHits != 0 {
		t.Errorf("prefix hits = %v, present %v", s.PrefixHits, s.Has(FieldPrefixHits))
	}
	if s.Engines != 1 {
		t.Errorf("Engines = %d", s.Engines)
	}
	want := []string{"vllm:gpu_prefix_cache_hits_total", "vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries_total"}
	if !slices.Equal(s.Families, want) {
		t.Errorf("Families = %v, want %v (no _created)", s.Families, want)
	}
}

func TestParseMetricsPartialDump(t *testing.T) {
	// A 2025-11 V1 dump that stops inside inter_token_latency_seconds,
	// after Python collectors and _created gauges.
	data := readMetricsFixture(t, "metrics-v1-2025-11-opt125m-idle-partial.txt")
	s, err := ParseMetrics(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("ParseMetrics: %v", err)
	}
	want := FieldRunning | FieldWaiting | FieldKVUsage | FieldPreemptions | FieldPromptTokens |
		FieldGenerationTokens | FieldPrefixQueries | FieldPrefixHits | FieldRequestSuccess | FieldTTFT
	if s.Present != want {
		t.Errorf("Present = %b, want %b", s.Present, want)
	}
	if s.CacheConfig != nil {
		t.Errorf("cache_config_info is past the cut: %+v", s.CacheConfig)
	}
	if len(s.RequestSuccess) != 3 || s.RequestSuccess["stop"] != 0 {
		t.Errorf("RequestSuccess = %v", s.RequestSuccess)
	}
	if !s.HasFamily("vllm:inter_token_latency_seconds") || s.HasFamily("vllm:prompt_tokens_created") || s.HasFamily("process_open_fds") {
		t.Errorf("Families = %v", s.Families)
	}

	// Cut the capture at every point after the generation-token counter:
	// the families before the cut survive and the parser reports (not
	// hides) a cut line.
	keep := FieldRunning | FieldWaiting | FieldKVUsage | FieldPreemptions | FieldPromptTokens | FieldGenerationTokens | FieldPrefixQueries | FieldPrefixHits
	after := bytes.Index(data, []byte("vllm:generation_tokens_total{"))
	after += bytes.IndexByte(data[after:], '\n') + 1
	for cut := after; cut < len(data); cut += 29 {
		s, err := ParseMetrics(bytes.NewReader(data[:cut]))
		if !s.Has(keep) {
			t.Fatalf("cut at %d: Present = %b, lost earlier families (err %v)", cut, s.Present, err)
		}
		if data[cut-1] != '\n' && err == nil {
			t.Fatalf("cut at %d mid-line: no error", cut)
		}
	}
}

func TestParseMetricsBadFamilyKeepsOthers(t *testing.T) {
	text := `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} not-a-number
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
`
	s, err := ParseMetrics(strings.NewReader(text))
	if err == nil || !strings.Contains(err.Error(), "metrics line 4") || !strings.Contains(err.Error(), "vllm:num_requests_waiting") {
		t.Errorf("err = %v, want one naming line 4 and the family", err)
	}
	if s.Running != 3 || s.KVUsage != 0.5 || s.Has(FieldWaiting) {
		t.Errorf("snapshot = %+v", s)
	}
}

func TestParseMetricsAggregatesEngines(t *testing.T) {
	// Two data-parallel engines, CRLF line ends, a NaN, bare counter
	// names, lazily created series.
	text := strings.ReplaceAll(`# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3
vllm:num_requests_running{engine="1",model_name="m"} 4
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 1
vllm:num_requests_waiting{engine="1",model_name="m"} NaN
# TYPE vllm:num_requests_waiting_by_reason gauge
vllm:num_requests_waiting_by_reason{engine="0",model_name="m",reason="capacity"} 100
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.2
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.6
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="fp8",enable_prefix_caching="True",engine="10",gpu_memory_utilization="0.9",kv_cache_max_concurrency="37.68",kv_cache_size_tokens="1234560",num_gpu_blocks="77160"} 1.0
vllm:cache_config_info{block_size="16",cache_dtype="fp8",enable_prefix_caching="True",engine="2",gpu_memory_utilization="0.9",kv_cache_max_concurrency="37.68",kv_cache_size_tokens="1234560",num_gpu_blocks="77160"} 1.0
# TYPE vllm:num_preemptions counter
vllm:num_preemptions{engine="0",model_name="m"} 5
vllm:num_preemptions{engine="1",model_name="m"} 2
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 100
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 50
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 300
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 200
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 90
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} 40
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="2"} 30
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="99999"} 1
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 7
vllm:request_success_total{engine="1",finished_reason="stop",model_name="m"} 3
vllm:request_success_total{engine="1",finished_reason="length",model_name="m"} 1
`, "\n", "\r\n")
	s, err := ParseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatalf("ParseMetrics: %v", err)
	}
	if s.Running != 7 || s.Waiting != 1 || s.Engines != 2 {
		t.Errorf("running %v waiting %v engines %d", s.Running, s.Waiting, s.Engines)
	}
	if math.Abs(s.KVUsage-0.4) > 1e-12 || s.KVUsageMax != 0.6 {
		t.Errorf("kv mean %v max %v", s.KVUsage, s.KVUsageMax)
	}
	if s.Preemptions != 7 || !s.Has(FieldPreemptions) {
		t.Errorf("preemptions %v", s.Preemptions)
	}
	if s.SpecDrafts != 150 || s.SpecDraftTokens != 300 || s.SpecAccepted != 200 {
		t.Errorf("spec %v %v %v", s.SpecDrafts, s.SpecDraftTokens, s.SpecAccepted)
	}
	if !slices.Equal(s.SpecAcceptedPerPos, []float64{130, 0, 30}) {
		t.Errorf("per pos %v", s.SpecAcceptedPerPos)
	}
	if s.RequestSuccess["stop"] != 10 || s.RequestSuccess["length"] != 1 {
		t.Errorf("success %v", s.RequestSuccess)
	}
	cc := s.CacheConfig
	if cc == nil || cc.Engine != "2" || cc.Engines != 2 || cc.NumGPUBlocks != 77160 || !cc.EnablePrefixCaching ||
		cc.KVCacheSizeTokens != 1234560 || cc.KVCacheMaxConcurrency != 37.68 || cc.CacheDtype != "fp8" {
		t.Errorf("cache config %+v", cc)
	}
}

// TestNameConstantsCoverV026 checks the names the scraper reads against
// the vllm:* families a real v0.26.0 server exposed (a list, not
// exposition text), then parses a synthetic exposition of every family in
// that list.
func TestNameConstantsCoverV026(t *testing.T) {
	types := map[string]string{}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(readMetricsFixture(t, "metric-families-v0.26.0-cpu.txt")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("bad line %q", line)
		}
		types[f[0]] = f[1]
		names = append(names, f[0])
	}
	current := map[string]string{
		metricRunning: "gauge", metricWaiting: "gauge", metricWaitingByReason: "gauge", metricKVUsage: "gauge",
		metricCacheConfig: "gauge", metricPreemptions: "counter", metricPromptTokens: "counter",
		metricGenerationTokens: "counter", metricRequestSuccess: "counter", metricPrefixQueries: "counter",
		metricPrefixHits: "counter", metricQueueTime: "histogram",
	}
	for n, typ := range current {
		if types[n] != typ {
			t.Errorf("%s: v0.26.0 exposes type %q, want %q", n, types[n], typ)
		}
	}
	for _, legacy := range []string{metricGPUCacheUsage, metricGPUPrefixQueries, metricGPUPrefixHits} {
		if _, ok := types[legacy]; ok {
			t.Errorf("%s should be gone in v0.26.0", legacy)
		}
	}

	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "# TYPE %s %s\n", n, types[n])
		lbl := `engine="0",model_name="m"`
		switch {
		case n == metricCacheConfig:
			fmt.Fprintf(&b, "%s{block_size=\"16\",engine=\"0\",num_gpu_blocks=\"1000\"} 1.0\n", n)
		case types[n] == "histogram":
			fmt.Fprintf(&b, "%s_bucket{%s,le=\"+Inf\"} 1.0\n%s_sum{%s} 1.0\n%s_count{%s} 1.0\n", n, lbl, n, lbl, n, lbl)
		default:
			fmt.Fprintf(&b, "%s{%s} 1.0\n", n, lbl)
		}
	}
	s, err := ParseMetrics(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("ParseMetrics: %v", err)
	}
	if !slices.Equal(s.Families, names) {
		t.Errorf("Families = %v\nwant %v", s.Families, names)
	}
	want := FieldRunning | FieldWaiting | FieldKVUsage | FieldPreemptions | FieldPromptTokens |
		FieldGenerationTokens | FieldPrefixQueries | FieldPrefixHits | FieldRequestSuccess | FieldCacheConfig | FieldQueueTime | FieldTTFT
	if s.Present != want {
		t.Errorf("Present = %b, want %b", s.Present, want)
	}
	if s.Waiting != 1 {
		t.Errorf("waiting = %v: waiting_by_reason must not be added in", s.Waiting)
	}
}

func TestParseMetricsEmptyAndGarbage(t *testing.T) {
	for _, in := range []string{"", "\n\n", "# just a comment\n", "<html>502 Bad Gateway</html>\n", "vllm:x{"} {
		s, _ := ParseMetrics(strings.NewReader(in))
		if s.Present != 0 || len(s.Families) != 0 {
			t.Errorf("%q: %+v", in, s)
		}
	}
}

// BenchmarkParseMetrics parses the 20 KB V1 capture: the scraper's cost
// per scrape.
func BenchmarkParseMetrics(b *testing.B) {
	data := readMetricsFixture(b, "metrics-v1-2025-11-opt125m-idle-partial.txt")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseMetrics(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
