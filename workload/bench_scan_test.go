package workload

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The speed targets: stats and fit stream a 1M-line log in at
// most 5 s and 300 MB. These benchmarks scan 1M lines from memory, so that
// they measure the reader, not the disk.
//
//	go test -run '^$' -bench 'Scan.*1M' -benchmem ./workload/

const benchLines = 1_000_000

// nativeLog is n native JSONL lines shaped like a production log.
func nativeLog(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	modes := []string{"low", "medium", "high"}
	cats := []string{"math", "code", "rag", "extraction", "chat"}
	var buf bytes.Buffer
	buf.Grow(n * 200)
	t := 0.0
	for i := range n {
		t += r.ExpFloat64() / 50
		fmt.Fprintf(&buf, `{"id":"req-%07d","arrival_s":%.6f,"prompt_tokens":%d,"think_tokens":%d,"answer_tokens":%d,"mode":"%s","category":"%s","finish_reason":"stop"}`+"\n",
			i, t, 200+r.IntN(4000), r.IntN(8000), 50+r.IntN(600), modes[r.IntN(3)], cats[r.IntN(5)])
	}
	return buf.Bytes()
}

// openaiLog is n openai-usage lines: chat completion responses without the
// message text, as a gateway logs them.
func openaiLog(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	var buf bytes.Buffer
	buf.Grow(n * 330)
	created := 1748779200
	for i := range n {
		created += r.IntN(2)
		reasoning := r.IntN(8000)
		fmt.Fprintf(&buf, `{"id":"chatcmpl-%08x","object":"chat.completion","created":%d,"model":"qwen3-8b","choices":[{"index":0,"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":0,"completion_tokens_details":{"reasoning_tokens":%d}},"metadata":{"category":"math"}}`+"\n",
			i, created, 200+r.IntN(4000), reasoning+50+r.IntN(600), reasoning)
	}
	return buf.Bytes()
}

func benchScan(b *testing.B, data []byte, format string) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewScanner(bytes.NewReader(data), "bench.jsonl", ReadOptions{Format: format})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for s.Scan() {
			n++
		}
		if err := s.Err(); err != nil || n != benchLines {
			b.Fatalf("%d records: %v", n, err)
		}
	}
	b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkScanNative1M(b *testing.B) { benchScan(b, nativeLog(benchLines), "") }

func BenchmarkScanOpenAI1M(b *testing.B) { benchScan(b, openaiLog(benchLines), "") }

// The scanner allocates nothing per record but the strings a request
// keeps (its id): the fast path's promise, held here for each format.
func TestScanAllocations(t *testing.T) {
	var buf bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&buf, `{"id":"r%d","timestamp":"2025-06-01T12:00:%02d.5Z","prompt_tokens":%d,"think_tokens":12.0,"answer_tokens":3,"mode":"high","category":"math","finish_reason":"stop","prefix_id":"sys","prefix_tokens":1}`+"\n", i, i%60, 5+i)
	}
	native := buf.Bytes()
	csvLog := []byte("id,arrival_s,prompt_tokens,think_tokens,mode\n" + strings.Repeat("r1,1.5,5,7,low\n", 200))
	for name, tc := range map[string]struct {
		data []byte
		file string
	}{
		"native": {native, "a.jsonl"},
		"openai": {openaiLog(200), "b.jsonl"},
		"csv":    {csvLog, "c.csv"},
	} {
		s, err := NewScanner(bytes.NewReader(tc.data), tc.file, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for range 10 { // warm up: buffers and the interner grow
			s.Scan()
		}
		allocs := testing.AllocsPerRun(100, func() {
			if !s.Scan() {
				t.Fatalf("%s: %v", name, s.Err())
			}
		})
		want := 1.0 // the id
		if name == "csv" {
			want = 2 // encoding/csv's row
		}
		if allocs > want {
			t.Errorf("%s: %v allocations a record, want at most %v", name, allocs, want)
		}
	}
}
