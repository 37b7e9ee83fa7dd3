package vllmapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fixture reads a copy of a real capture (testdata/vllmapi/PROVENANCE.md).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "vllmapi", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sseData returns the data of each "data: " line of a capture.
func sseData(t testing.TB, name string) [][]byte {
	t.Helper()
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(fixture(t, name)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			out = append(out, bytes.Clone(d))
		}
	}
	return out
}

func TestStreamChunkFixtures(t *testing.T) {
	comp := sseData(t, "completions-stream-qwen3-4b-xpu-2025-06.sse")
	if len(comp) != 8 || string(comp[7]) != Done {
		t.Fatalf("completions capture: %d events, last %q", len(comp), comp[len(comp)-1])
	}
	var texts []string
	for _, d := range comp[:7] {
		var c StreamChunk
		if err := json.Unmarshal(d, &c); err != nil {
			t.Fatal(err)
		}
		if c.Object != ObjectTextCompletion || c.Usage != nil || len(c.Choices) != 1 || c.Choices[0].Text == nil {
			t.Fatalf("chunk %+v", c)
		}
		texts = append(texts, *c.Choices[0].Text)
	}
	if got := strings.Join(texts, ""); got != " city in the state of California," {
		t.Errorf("text %q", got)
	}

	chat := sseData(t, "chat-stream-reasoning-dualfield-qwen3vl-thinking-2025-11-excerpt.sse")
	if len(chat) != 4 {
		t.Fatalf("chat capture: %d events", len(chat))
	}
	var first StreamChunk
	if err := json.Unmarshal(chat[0], &first); err != nil {
		t.Fatal(err)
	}
	d := first.Choices[0].Delta
	if first.Object != ObjectChatChunk || d == nil || d.Reasoning == nil || d.ReasoningContent == nil || *d.Reasoning != *d.ReasoningContent {
		t.Errorf("dual-field chunk %+v", first)
	}
}

func TestNonStreamFixtures(t *testing.T) {
	var chat ChatCompletion
	if err := json.Unmarshal(fixture(t, "chat-completion-nonstream-qwen3-8b-thinking-inline-vllm-0.9.json"), &chat); err != nil {
		t.Fatal(err)
	}
	msg := chat.Choices[0].Message
	if chat.Object != ObjectChatCompletion || msg.ReasoningContent != nil || msg.Content == nil ||
		!strings.HasPrefix(*msg.Content, "<think>") || !strings.Contains(*msg.Content, "</think>") {
		t.Errorf("chat completion %+v", chat)
	}
	if u := chat.Usage; u == nil || u.PromptTokens != 21 || u.CompletionTokens != 95 || u.TotalTokens != 116 || u.PromptTokensDetails != nil {
		t.Errorf("usage %+v", chat.Usage)
	}
	var comp Completion
	if err := json.Unmarshal(fixture(t, "completions-nonstream-qwen3-4b-xpu-2025-06.json"), &comp); err != nil {
		t.Fatal(err)
	}
	if *comp.Choices[0].FinishReason != FinishLength || comp.Usage.CompletionTokens != 32 || comp.Usage.PromptTokens != 4 {
		t.Errorf("completion %+v", comp)
	}
}

func TestModelListFixtures(t *testing.T) {
	for _, tc := range []struct {
		file, id string
		want     int
	}{
		{"models-qwen3-8b-a100-vllm-0.9.json", "Qwen/Qwen3-8B", 40960},
		{"models-qwen2.5-7b-vllm-0.28.0.json", "Qwen/Qwen2.5-7B-Instruct", 32768},
		// A LoRA card has max_model_len null: its parent's applies.
		{"models-qwen2.5-coder-1.5b-with-lora-adapters-2025-01.json", "lora-1", 32768},
		{"models-qwen2.5-coder-1.5b-with-lora-adapters-2025-01.json", "Qwen/Qwen2.5-Coder-1.5B-Instruct", 32768},
		{"models-qwen3-8b-a100-vllm-0.9.json", "no-such-model", 0},
	} {
		var l ModelList
		if err := json.Unmarshal(fixture(t, tc.file), &l); err != nil {
			t.Fatal(err)
		}
		if got := l.MaxModelLen(tc.id); got != tc.want {
			t.Errorf("%s %s: max_model_len %d, want %d", tc.file, tc.id, got, tc.want)
		}
	}
	// A malformed list whose adapters name each other ends.
	a, b := "b", "a"
	l := ModelList{Data: []ModelCard{{ID: "a", Parent: &a}, {ID: "b", Parent: &b}}}
	if got := l.MaxModelLen("a"); got != 0 {
		t.Errorf("cycle: %d", got)
	}
}

func TestParseError(t *testing.T) {
	for _, tc := range []struct {
		name, body, msg, typ string
		code                 int
		ok                   bool
	}{
		{"flat fixture", string(fixture(t, "error-400-flat-object-error-matryoshka.json")),
			`Model "BAAI/bge-m3" does not support matryoshka representation, changing output dimensions will lead to poor results.`,
			ErrorTypeBadRequest, 400, true},
		{"nested", `{"error":{"message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":"input_tokens","code":400}}`,
			"This model's maximum context length is 4096 tokens.", "BadRequestError", 400, true},
		{"string error", `{"error":"Unauthorized"}`, "Unauthorized", "", 0, true},
		{"string code", `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`, "bad key", "invalid_request_error", 0, true},
		{"numeric string code", `{"error":{"message":"m","type":"t","code":"503"}}`, "m", "t", 503, true},
		{"fastapi detail", `{"detail":"Not Found"}`, "Not Found", "", 0, true},
		{"validation detail", `{"detail":[{"loc":["body"],"msg":"field required"}]}`, `[{"loc":["body"],"msg":"field required"}]`, "", 0, true},
		{"not json", `<html>502 Bad Gateway</html>`, "", "", 0, false},
		{"empty object", `{}`, "", "", 0, false},
		{"null error", `{"error":null}`, "", "", 0, false},
		{"empty", ``, "", "", 0, false},
	} {
		msg, typ, code, ok := ParseError([]byte(tc.body))
		if msg != tc.msg || typ != tc.typ || code != tc.code || ok != tc.ok {
			t.Errorf("%s: got (%q, %q, %d, %v), want (%q, %q, %d, %v)", tc.name, msg, typ, code, ok, tc.msg, tc.typ, tc.code, tc.ok)
		}
	}
}

func TestErrorRoundTrip(t *testing.T) {
	b, err := json.Marshal(NewError(400, ErrorTypeBadRequest, "too long"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"error":{"message":"too long","type":"BadRequestError","param":null,"code":400}}`; string(b) != want {
		t.Errorf("body %s, want %s", b, want)
	}
	msg, typ, code, ok := ParseError(b)
	if msg != "too long" || typ != ErrorTypeBadRequest || code != 400 || !ok {
		t.Errorf("parse %q %q %d %v", msg, typ, code, ok)
	}
}

// TestRequestOmitEmpty checks that unset options are not sent: vLLM treats
// their absence as its default, and a server that does not know an
// extension never sees it.
func TestRequestOmitEmpty(t *testing.T) {
	b, err := json.Marshal(ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`; string(b) != want {
		t.Errorf("minimal chat body %s, want %s", b, want)
	}
	zero, off := 0, false
	temp := 0.0
	r := ChatRequest{
		Model: "m", MaxCompletionTokens: 100, Stream: true,
		StreamOptions:      &StreamOptions{IncludeUsage: true},
		Temperature:        &temp,
		ChatTemplateKwargs: ChatTemplateKwargs{"enable_thinking": off},
		SamplingExtras:     SamplingExtras{MinTokens: 100, IgnoreEOS: true, ThinkingTokenBudget: &zero, RequestID: "r1"},
	}
	b, err = json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(back))
	for k := range back {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"chat_template_kwargs", "ignore_eos", "max_completion_tokens", "messages", "min_tokens", "model",
		"request_id", "stream", "stream_options", "temperature", "thinking_token_budget"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	var dec ChatRequest
	if err := json.Unmarshal(b, &dec); err != nil {
		t.Fatal(err)
	}
	if on, ok := dec.ChatTemplateKwargs.EnableThinking(); on || !ok {
		t.Errorf("enable_thinking %v %v", on, ok)
	}
	if dec.MaxOutputTokens() != 100 || *dec.ThinkingTokenBudget != 0 || *dec.Temperature != 0 {
		t.Errorf("decoded %+v", dec)
	}
}

func TestBuckets(t *testing.T) {
	if n := len(TTFTBuckets()); n != 22 {
		t.Errorf("ttft buckets: %d, want 22", n)
	}
	for name, b := range map[string][]float64{
		"ttft": TTFTBuckets(), "itl": ITLBuckets(), "latency": RequestLatencyBuckets(),
		"iteration": IterationTokensBuckets(), "n": ParamsNBuckets(), "tokens": TokenCountBuckets(40960),
	} {
		if !slices.IsSorted(b) || len(b) == 0 {
			t.Errorf("%s buckets not ascending: %v", name, b)
		}
	}
	for _, tc := range []struct {
		max  int
		want []float64
	}{
		{100, []float64{1, 2, 5, 10, 20, 50, 100}},
		{15, []float64{1, 2, 5, 10}},
		{5, []float64{1, 2, 5}},
		{0, nil},
	} {
		if got := TokenCountBuckets(tc.max); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("TokenCountBuckets(%d) = %v, want %v", tc.max, got, tc.want)
		}
	}
	if got := len(TokenCountBuckets(1 << 62)); got != 56 { // 1e0..5e17, 1e18, 2e18
		t.Errorf("huge max: %d buckets", got)
	}
	// A caller may change its copy.
	TTFTBuckets()[0] = 99
	if TTFTBuckets()[0] != 0.001 {
		t.Error("buckets shared between calls")
	}
}

func TestMetricAliases(t *testing.T) {
	if got := MetricAliases(MetricKVCacheUsagePerc); !reflect.DeepEqual(got, []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}) {
		t.Errorf("kv aliases %v", got)
	}
	if got := MetricAliases(MetricPrefixCacheHitsTotal); got[1] != "vllm:gpu_prefix_cache_hits_total" {
		t.Errorf("prefix hit aliases %v", got)
	}
	if got := MetricAliases(MetricNumRequestsRunning); len(got) != 1 {
		t.Errorf("running aliases %v", got)
	}
}

// TestMetricNamesExist checks the family names against the list a real
// v0.26.0 server exposed.
func TestMetricNamesExist(t *testing.T) {
	b := fixture(t, "metric-families-v0.26.0-cpu.txt")
	have := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			have[f[0]] = true
		}
	}
	for _, name := range []string{
		MetricNumRequestsRunning, MetricNumRequestsWaiting, MetricNumRequestsWaitingByReason, MetricKVCacheUsagePerc,
		MetricCacheConfigInfo, MetricNumPreemptionsTotal, MetricPromptTokensTotal, MetricGenerationTokensTotal,
		MetricRequestSuccessTotal, MetricPrefixCacheQueriesTotal, MetricPrefixCacheHitsTotal,
		MetricTimeToFirstTokenSeconds, MetricInterTokenLatencySeconds, MetricRequestTimePerOutputTokenSeconds,
		MetricE2ERequestLatencySeconds, MetricRequestQueueTimeSeconds, MetricRequestPrefillTimeSeconds,
		MetricRequestDecodeTimeSeconds, MetricRequestInferenceTimeSeconds, MetricRequestPromptTokens,
		MetricRequestGenerationTokens, MetricRequestParamsMaxTokens, MetricRequestMaxNumGenerationTokens,
		MetricRequestPrefillKVComputedTokens, MetricRequestParamsN, MetricIterationTokensTotal,
	} {
		if !have[name] {
			t.Errorf("%s not exposed by vLLM v0.26.0", name)
		}
	}
	for _, gone := range []string{MetricGPUCacheUsagePerc, MetricTimePerOutputTokenSeconds, MetricGPUPrefixCacheHitsTotal} {
		if have[gone] {
			t.Errorf("%s still exposed by v0.26.0", gone)
		}
	}
}
