package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/golden"
)

// thinkcap runs the command line in-process and returns stdout, stderr and
// the exit code.
func thinkcap(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// TestSimulateDefaultGolden pins the embedded default's summary JSON: any
// change in the model, the defaults or the profiles shows up here.
func TestSimulateDefaultGolden(t *testing.T) {
	out, errOut, code := thinkcap(t, "simulate", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, "simulate-default.json", []byte(out))
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	// The summary's keys (docs/formats.md) are all there.
	for _, k := range []string{"kind", "config", "capacity", "requests", "duration_s", "throughput", "latency_s", "tokens", "preemptions", "kv_usage", "running", "waiting"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
}

func TestSimulateTable(t *testing.T) {
	out, errOut, code := thinkcap(t, "simulate", "--requests", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"qwen3-8b", "h100-sxm", "TTFT", "TTFA", "KV cache usage"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestSimulateWritesResultsAndTimeline(t *testing.T) {
	dir := t.TempDir()
	results, timeline := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "t.csv")
	_, errOut, code := thinkcap(t, "simulate", "--requests", "50", "--results", results, "--timeline", timeline, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 50 {
		t.Fatalf("%d result lines, want 50", n)
	}
	tl, err := os.ReadFile(timeline)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(tl, []byte("time_s,replica,kv_usage,running,waiting,preemptions\n")) || bytes.Count(tl, []byte("\n")) < 3 {
		t.Fatalf("timeline:\n%s", tl)
	}
}

func TestSimulateReplaysWorkload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.jsonl")
	log := `{"arrival_s":0,"prompt_tokens":100,"think_tokens":50,"answer_tokens":10}
{"arrival_s":0.5,"prompt_tokens":200,"think_tokens":0,"answer_tokens":20,"mode":"low"}
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := thinkcap(t, "simulate", "--workload", path, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Requests struct{ Total, Completed int }
		Tokens   struct{ Think struct{ Mean float64 } }
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Requests.Total != 2 || s.Requests.Completed != 2 || s.Tokens.Think.Mean != 25 {
		t.Fatalf("summary %+v", s)
	}
}

// TestBadInputExitsTwo: bad input is a clear error and exit code 2, never a
// panic.
func TestBadInputExitsTwo(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"arrival_s\":0,\"prompt_tokens\":10}\n{\"arrival_s\":1,\"prompt_tokens\":-5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown model", []string{"simulate", "--model", "gpt-5"}, "valid models"},
		{"unknown gpu", []string{"simulate", "--gpu", "tpu"}, "valid gpus"},
		{"weights do not fit", []string{"simulate", "--model", "llama-3.1-70b", "--gpu", "l4"}, "weights need"},
		{"tp does not divide heads", []string{"simulate", "-t", "3"}, "--tensor-parallel-size"},
		{"budget below seqs", []string{"simulate", "--max-num-seqs", "256", "--max-num-batched-tokens", "128"}, "max-num-batched-tokens"},
		{"bad workload line", []string{"simulate", "--workload", bad}, "bad.jsonl:2"},
		{"missing workload", []string{"simulate", "--workload", "/nonexistent.jsonl"}, "nonexistent"},
		{"bad distribution", []string{"simulate", "--think-tokens", "lognormal:p50=abc"}, "--think-tokens"},
		{"bad speculative config", []string{"simulate", "--speculative-config", "{"}, "--speculative-config"},
		{"bad acceptance", []string{"simulate", "--speculative-config", `{"method":"ngram","num_speculative_tokens":2}`, "--acceptance", "9"}, "--acceptance"},
		{"bad output", []string{"simulate", "-o", "yaml"}, "-o"},
		{"unknown flag", []string{"simulate", "--nope"}, "unknown flag"},
		{"bad kv dtype", []string{"capacity", "--kv-cache-dtype", "int3"}, "kv-cache-dtype"},
		{"unknown command", []string{"simulat"}, "unknown command"},
		{"stray argument", []string{"simulate", "extra"}, "unknown command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := thinkcap(t, c.args...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitBadInput, errOut)
			}
			if !strings.Contains(errOut, c.want) {
				t.Fatalf("stderr %q lacks %q", errOut, c.want)
			}
		})
	}
}

func TestCapacityJSON(t *testing.T) {
	out, errOut, code := thinkcap(t, "capacity", "--num-gpu-blocks-override", "1000", "--max-model-len", "8000", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var c struct {
		NumGPUBlocks   int     `json:"num_gpu_blocks"`
		BlockSize      int     `json:"block_size"`
		KVCacheTokens  int64   `json:"kv_cache_tokens"`
		MaxConcurrency float64 `json:"max_concurrency"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	// 1000 blocks / cdiv(8000, 16) = 2.0 requests of 8000 tokens.
	if c.NumGPUBlocks != 1000 || c.BlockSize != 16 || c.MaxConcurrency != 2 || c.KVCacheTokens != 16000 {
		t.Fatalf("capacity %+v", c)
	}
}

// TestVLLMShorthands: -tp works as with vllm serve.
func TestVLLMShorthands(t *testing.T) {
	for _, args := range [][]string{{"-tp", "2"}, {"-tp=2"}, {"--tensor-parallel-size", "2"}, {"-t", "2"}} {
		out, errOut, code := thinkcap(t, append([]string{"capacity", "--model", "qwen3-32b", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var c struct {
			KVBytesPerToken int64 `json:"kv_bytes_per_token"`
		}
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatal(err)
		}
		// 64 layers x 8 KV heads / 2 GPUs x 128 x 2 (K,V) x 2 bytes.
		if c.KVBytesPerToken != 64*4*128*2*2 {
			t.Fatalf("%v: kv bytes per token %d, want the TP=2 shard", args, c.KVBytesPerToken)
		}
	}
}

func TestProfilesLists(t *testing.T) {
	out, _, code := thinkcap(t, "profiles")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"h100-sxm", "qwen3-8b", "deepseek-r1", "effort-modes"} {
		if !strings.Contains(out, want) {
			t.Errorf("profiles lacks %s", want)
		}
	}
}
