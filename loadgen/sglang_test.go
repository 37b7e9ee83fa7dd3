package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func parseFile(t *testing.T, path string) Snapshot {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ParseMetrics(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// TestSGLangMetrics: SGLang's /metrics (real captures, testdata/sglang)
// read into the same snapshot as vLLM's: running and queued requests, token
// usage as KV usage, token counters, the TTFT histogram.
func TestSGLangMetrics(t *testing.T) {
	s := parseFile(t, "testdata/sglang/metrics-docs-example-v0.3.x-under-load.txt")
	if s.Running != 162 || s.Waiting != 2826 || s.KVUsage != 0.28 {
		t.Errorf("running %g, waiting %g, KV %g; the capture says 162, 2826, 0.28", s.Running, s.Waiting, s.KVUsage)
	}
	if s.PromptTokens != 8.128902e6 || s.GenerationTokens != 7.557572e6 {
		t.Errorf("tokens %g prompt, %g generated", s.PromptTokens, s.GenerationTokens)
	}
	if s.TTFT == nil || s.Present&FieldTTFT == 0 {
		t.Fatal("no TTFT histogram")
	}
	if !s.HasFamily("sglang:num_running_reqs") {
		t.Errorf("families %v", s.Families)
	}
	// Eight data-parallel ranks, each its own scheduler: the queue adds up
	// over the dp ranks present (two in this excerpt).
	dp := parseFile(t, "testdata/sglang/metrics-2025-09-dp8-aibrix1614-excerpt-a.txt")
	if dp.Present&FieldWaiting == 0 || dp.Engines != 2 {
		t.Errorf("dp excerpt: waiting present %v, %d engines, want 2", dp.Present&FieldWaiting != 0, dp.Engines)
	}
	// The prefix cache in tokens: cached over prompt.
	pd := parseFile(t, "testdata/sglang/metrics-2025-07-pr7944-pd-excerpt.txt")
	if pd.PrefixHits != 2688 {
		t.Errorf("cached tokens %g, the capture says 2688", pd.PrefixHits)
	}
}

// TestSGLangTensorRanksCountOnce: a scheduler's gauge repeated by its
// tensor-parallel ranks counts once; data-parallel ranks add up.
func TestSGLangTensorRanksCountOnce(t *testing.T) {
	body := `# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{dp_rank="0",engine_type="unified",model_name="m",pp_rank="0",tp_rank="0"} 5.0
sglang:num_running_reqs{dp_rank="0",engine_type="unified",model_name="m",pp_rank="0",tp_rank="1"} 5.0
sglang:num_running_reqs{dp_rank="1",engine_type="unified",model_name="m",pp_rank="0",tp_rank="2"} 3.0
`
	s, err := ParseMetrics(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if s.Running != 8 || s.Engines != 2 {
		t.Errorf("running %g over %d engines, want 8 over 2", s.Running, s.Engines)
	}
}

// TestSGLangStream: SGLang's reasoning stream (a real capture) is read as
// vLLM's: reasoning_content is thinking, its usage's top-level
// reasoning_tokens splits the completion.
func TestSGLangStream(t *testing.T) {
	body, err := os.ReadFile("testdata/sglang/chat-stream-reasoning-qwen3-usage.sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := NewClient(ClientConfig{BaseURL: srv.URL, Model: "Qwen/Qwen3.8-Flash-Next", ReasoningParser: true})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Do(context.Background(), Request{ID: "r1", Prompt: "Reply with exactly: OK", MaxTokens: 64})
	if m.Status != "ok" || m.PromptTokens != 57 || m.ThinkTokens != 25 || m.AnswerTokens != 3 {
		t.Fatalf("status %s (%s), prompt %d, think %d, answer %d; the usage says 57, 25 of 28", m.Status, m.Error, m.PromptTokens, m.ThinkTokens, m.AnswerTokens)
	}
	if m.FirstAnswer.IsZero() || !m.FirstAnswer.After(m.FirstToken) && !m.FirstAnswer.Equal(m.FirstToken) {
		t.Error("no first answer token after the thinking")
	}
}

// TestDetectEngine: the server's kind from its /v1/models (real captures
// of both on one host) or, failing that, its /metrics families.
func TestDetectEngine(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/sglang/models-sglang-nvcr-25.10.json":          EngineSGLang,
		"testdata/sglang/models-vllm-counterpart-same-host.json": EngineVLLM,
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		models, err := ParseModels(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := DetectEngine(models, nil); got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
	if DetectEngine(ModelsInfo{}, []string{"sglang:token_usage"}) != EngineSGLang || DetectEngine(ModelsInfo{}, nil) != "" {
		t.Error("families")
	}
}
