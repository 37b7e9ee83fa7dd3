package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/golden"
)

// sampleSummary is a plausible summary with every part filled in, the kind a
// simulation of qwen3-8b on one H100 prints.
func sampleSummary() *analysis.Summary {
	return &analysis.Summary{
		Kind: "simulation",
		Config: analysis.Config{
			Model: "qwen3-8b", GPU: "h100-sxm", TensorParallelSize: 1, Replicas: 2,
			KVCacheDtype: "fp8", MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192,
			MaxModelLen: 32768,
		},
		Capacity: analysis.Capacity{
			NumGPUBlocks: 28734, BlockSize: 16, KVBytesPerToken: 73728,
			KVCacheTokens: 459744, MaxConcurrency: 14.03,
		},
		Requests:  analysis.RequestCounts{Total: 12000, Completed: 11890, Failed: 110, Rejected: 100},
		DurationS: 1234.56,
		Throughput: analysis.Throughput{
			RequestsPerS: 9.63, OutputTokensPerS: 14567.8, ThinkTokensPerS: 12001.2,
			AnswerTokensPerS: 2566.6, PromptTokensPerS: 4123.4,
		},
		LatencyS: analysis.Latencies{
			TTFT:  analysis.Stat{Mean: 0.0853, P50: 0.0612, P90: 0.1504, P99: 1.2345},
			TTFA:  analysis.Stat{Mean: 12.5, P50: 8.1, P90: 30.2, P99: 95.7},
			TPOT:  analysis.Stat{Mean: 0.0213, P50: 0.0205, P90: 0.0251, P99: 0.0387},
			ITL:   analysis.Stat{Mean: 0.0211, P50: 0.0203, P90: 0.0249, P99: 0.0412},
			E2E:   analysis.Stat{Mean: 30.1, P50: 20.4, P90: 70.9, P99: 190.3},
			Queue: analysis.Stat{Mean: 0.0004, P50: 0, P90: 0, P99: 0.0123},
		},
		Tokens: analysis.TokenStats{
			Think:  analysis.Stat{Mean: 1246.3, P50: 402, P90: 3120.5, P99: 8001},
			Answer: analysis.Stat{Mean: 266.4, P50: 210, P90: 520, P99: 1024},
			Total:  analysis.Stat{Mean: 1512.7, P50: 640.5, P90: 3560, P99: 8890},
		},
		Preemptions: analysis.Int64(1234),
		KVUsage:     analysis.KVUsage{Mean: 0.6234, Peak: 0.9871},
		Running:     analysis.Occupancy{Mean: 123.45, Peak: 311},
		Waiting:     analysis.Occupancy{Mean: 4.2, Peak: 87},
	}
}

func TestWriteTableGolden(t *testing.T) {
	tests := []struct {
		name    string
		summary *analysis.Summary
	}{
		{"full", sampleSummary()},
		{"empty", &analysis.Summary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteTable(&buf, tt.summary); err != nil {
				t.Fatalf("WriteTable: %v", err)
			}
			golden.Check(t, "table_"+tt.name+".golden", buf.Bytes())
		})
	}
}

func TestWriteTableContents(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, sampleSummary()); err != nil {
		t.Fatalf("WriteTable: %v", err)
	}
	out := buf.String()
	for _, want := range []string{
		"thinkcap simulation summary",
		"qwen3-8b", "h100-sxm", "fp8", "max_num_seqs", "max_num_batched_tokens",
		"KV blocks", "28,734", "KV cache tokens", "459,744", "max concurrency", "14.03x",
		"completed", "11,890", "of which rejected", "preemptions", "1,234 ",
		"requests/s", "output tok/s", "14,567.8", "think tok/s", "answer tok/s", "prompt tok/s",
		"latency (ms)", "TTFT", "TTFA", "TPOT", "ITL", "E2E", "Queue",
		"p50", "p90", "p99",
		"1,234.5", // TTFT p99 of 1.2345 s, in milliseconds
		"85.3",    // TTFT mean of 0.0853 s
		"tokens per request", "think", "answer", "total",
		"KV cache usage", "62.3%", "98.7%", "running requests", "waiting requests",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("report contains ANSI escape sequences; it must have no colours")
	}
}

// TestWriteTableWidth checks the 100-column promise, also for a long
// Hugging Face model id and a long speculative-decoding description.
func TestWriteTableWidth(t *testing.T) {
	tests := []struct {
		name, model, speculative string
		// unbroken: the model id must print on one line.
		unbroken bool
	}{
		{"typical id", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "ngram, 4 tokens", true},
		{"overlong id", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B-with-a-very-long-fine-tune-suffix",
			"eagle3 yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, 3 tokens", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sampleSummary()
			s.Config.Model, s.Config.Speculative = tt.model, tt.speculative
			var buf bytes.Buffer
			if err := WriteTable(&buf, s); err != nil {
				t.Fatalf("WriteTable: %v", err)
			}
			out := buf.String()
			for i, line := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(line); n > reportWidth {
					t.Errorf("line %d is %d columns wide, more than %d:\n%s", i+1, n, reportWidth, line)
				}
			}
			if tt.unbroken && !strings.Contains(out, tt.model) {
				t.Errorf("model id %q was broken across lines:\n%s", tt.model, out)
			}
		})
	}
}

// failingWriter accepts n bytes, then fails every write.
type failingWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		written := f.n
		f.n = 0
		return written, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriteTableWriteError(t *testing.T) {
	if err := WriteTable(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteTable(nil summary) returned no error")
	}
	for _, n := range []int{0, 10, 500, 2000} {
		err := WriteTable(&failingWriter{n: n}, sampleSummary())
		if !errors.Is(err, errDiskFull) {
			t.Errorf("after %d bytes: WriteTable error = %v, want %v", n, err, errDiskFull)
		}
	}
}

// A pipeline-parallel deployment names its stages; PP 1 keeps the table as it was.
func TestWriteTablePipelineRow(t *testing.T) {
	for _, pp := range []int{0, 1, 2} {
		s := analysis.Summary{Kind: "simulation", Config: analysis.Config{Model: "m", GPU: "g", TensorParallelSize: 2, PipelineParallelSize: pp, Replicas: 1}}
		var b strings.Builder
		if err := WriteTable(&b, &s); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "pipeline parallel"); got != (pp > 1) {
			t.Errorf("PP %d: pipeline row shown %v:\n%s", pp, got, b.String())
		}
	}
}
