package loadgen

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseMetrics feeds the parser arbitrary bytes, seeded with the real
// captures: it must never panic, and what it returns must be usable
// (finite values, bounded per-position slice, mean KV usage within the
// max).
func FuzzParseMetrics(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "metrics", "metrics-*.txt"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// Seeds stay small (the vllm:* part, up to 4 KB, cut at a line):
		// the fuzzer minimises every new input, and that is slow on the
		// 20 KB capture.
		if i := bytes.Index(b, []byte("# HELP vllm:")); i > 0 {
			b = b[i:]
		}
		if len(b) > 4096 {
			b = b[:bytes.LastIndexByte(b[:4096], '\n')+1]
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n" +
		"vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"3\"} 1e308\n" +
		"vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"-1\"} 1\n"))
	f.Add([]byte("# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{num_gpu_blocks=\"1e300\",block_size=\"NaN\"} 1\n"))
	if b, err := os.ReadFile(filepath.Join("testdata", "metrics", "queue-time-scrapes.txt")); err == nil {
		f.Add(b[:min(len(b), 4096)])
	}
	f.Add([]byte("# TYPE vllm:request_queue_time_seconds histogram\n" +
		"vllm:request_queue_time_seconds_bucket{le=\"-1e308\"} 1\nvllm:request_queue_time_seconds_bucket{le=\"1e308\"} 1\n" +
		"vllm:request_queue_time_seconds_bucket{le=\"+Inf\"} 2\nvllm:request_queue_time_seconds_sum 1e308\nvllm:request_queue_time_seconds_count 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _ := ParseMetrics(bytes.NewReader(data))
		vals := []float64{s.Running, s.Waiting, s.KVUsage, s.KVUsageMax, s.Preemptions, s.PromptTokens,
			s.GenerationTokens, s.PrefixQueries, s.PrefixHits, s.SpecDrafts, s.SpecDraftTokens, s.SpecAccepted}
		vals = append(vals, s.SpecAcceptedPerPos...)
		for _, v := range s.RequestSuccess {
			vals = append(vals, v)
		}
		for _, v := range vals {
			if math.IsNaN(v) {
				t.Fatalf("NaN in %+v", s)
			}
		}
		if h := s.QueueTime; h != nil {
			if len(h.Bounds) != len(h.Counts) || !sortedBounds(h.Bounds) || !math.IsInf(h.Bounds[len(h.Bounds)-1], 1) {
				t.Fatalf("queue-time histogram %+v", h)
			}
			if st, ok := h.Stats(); ok {
				for _, v := range []float64{st.Mean, st.P50, st.P90, st.P99} {
					if !finite(v) {
						t.Fatalf("queue-time stats %+v", st)
					}
				}
			}
		}
		if len(s.SpecAcceptedPerPos) > maxSpecPositions {
			t.Fatalf("%d positions", len(s.SpecAcceptedPerPos))
		}
		if s.Has(FieldKVUsage) && s.KVUsage > s.KVUsageMax && !math.IsInf(s.KVUsage, 0) {
			t.Fatalf("kv mean %v > max %v", s.KVUsage, s.KVUsageMax)
		}
	})
}
