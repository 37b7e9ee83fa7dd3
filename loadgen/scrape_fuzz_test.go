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
		if len(s.SpecAcceptedPerPos) > maxSpecPositions {
			t.Fatalf("%d positions", len(s.SpecAcceptedPerPos))
		}
		if s.Has(FieldKVUsage) && s.KVUsage > s.KVUsageMax && !math.IsInf(s.KVUsage, 0) {
			t.Fatalf("kv mean %v > max %v", s.KVUsage, s.KVUsageMax)
		}
	})
}
