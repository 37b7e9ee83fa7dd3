package vllmapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestChunkDecoderTable(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     ChunkView
	}{
		{"role chunk",
			`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"prompt_token_ids":null}`,
			ChunkView{Choices: 1, Role: []byte("assistant"), Content: []byte("")}},
		{"reasoning",
			`{"choices":[{"index":0,"delta":{"reasoning":"The"},"logprobs":null,"finish_reason":null,"token_ids":null}]}`,
			ChunkView{Choices: 1, Reasoning: []byte("The")}},
		{"reasoning_content only (older servers)",
			`{"choices":[{"delta":{"reasoning_content":"Hmm"}}]}`,
			ChunkView{Choices: 1, Reasoning: []byte("Hmm")}},
		{"reasoning wins whichever comes first",
			`{"choices":[{"delta":{"reasoning_content":"a","reasoning":"b"}}]}`,
			ChunkView{Choices: 1, Reasoning: []byte("b")}},
		{"null reasoning falls back",
			`{"choices":[{"delta":{"reasoning":null,"reasoning_content":"c"}}]}`,
			ChunkView{Choices: 1, Reasoning: []byte("c")}},
		{"content with escapes",
			`{"choices":[{"delta":{"content":"\n\n\u003cthink\u003e \"q\" \\ \/ \t\u00e9\ud83d\ude00"}}]}`,
			ChunkView{Choices: 1, Content: []byte("\n\n<think> \"q\" \\ / \té😀")}},
		{"lone surrogate is U+FFFD, as encoding/json",
			`{"choices":[{"delta":{"content":"\ud800x\udc00\ud800\u0041"}}]}`,
			ChunkView{Choices: 1, Content: []byte("\uFFFDx\uFFFD\uFFFDA")}},
		{"completion text and finish",
			`{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":",","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null}`,
			ChunkView{Choices: 1, Content: []byte(","), FinishReason: []byte("length")}},
		{"usage chunk",
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":16,"total_tokens":36,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":8}},"system_fingerprint":"vllm-0.28"}`,
			ChunkView{HasUsage: true, Usage: UsageCounts{PromptTokens: 16, TotalTokens: 36, CompletionTokens: 20, CachedTokens: 8}}},
		{"usage with reasoning tokens",
			`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":9,"total_tokens":10,"completion_tokens_details":{"reasoning_tokens":7}}}`,
			ChunkView{HasUsage: true, Usage: UsageCounts{PromptTokens: 1, CompletionTokens: 9, TotalTokens: 10, ReasoningTokens: 7, HasReasoningTokens: true}}},
		{"mid-stream error",
			`{"error":{"message":"Unexpected token 200002","type":"InternalServerError","param":null,"code":500}}`,
			ChunkView{HasError: true, Error: ErrorView{Message: []byte("Unexpected token 200002"), Type: []byte("InternalServerError"), Code: 500}}},
		{"string error", `{"error":"boom"}`, ChunkView{HasError: true, Error: ErrorView{Message: []byte("boom")}}},
		{"null error is none", `{"error":null,"choices":[]}`, ChunkView{}},
		{"tool calls",
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]}}]}`,
			ChunkView{Choices: 1, ToolCalls: 1}},
		{"empty tool_calls of 0.22", `{"choices":[{"delta":{"content":"x","tool_calls":[]}}]}`,
			ChunkView{Choices: 1, Content: []byte("x")}},
		{"wrong types are skipped",
			`{"choices":[{"delta":{"content":5,"role":[1,{"a":null}]},"text":true}],"usage":"x"}`,
			ChunkView{Choices: 1}},
		{"second choice ignored", `{"choices":[{"text":"a"},{"text":"b"}]}`, ChunkView{Choices: 2, Content: []byte("a")}},
		{"whitespace", " \t\r\n{ \"choices\" : [ { \"text\" : \"a\" } ] } \n", ChunkView{Choices: 1, Content: []byte("a")}},
		{"numbers skipped", `{"created":-1.5e+10,"x":[0,-0,1E5,2.25],"choices":[]}`, ChunkView{}},
		{"non-integer usage ignored", `{"usage":{"prompt_tokens":1.5,"completion_tokens":3}}`,
			ChunkView{HasUsage: true, Usage: UsageCounts{CompletionTokens: 3}}},
	} {
		var d ChunkDecoder
		var v ChunkView
		if err := d.Decode([]byte(tc.in), &v); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !v.Equal(&tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, show(&v), show(&tc.want))
		}
		// The reference decoder agrees wherever it accepts the input.
		var c StreamChunk
		if json.Unmarshal([]byte(tc.in), &c) == nil {
			if ref := c.View(); !ref.Equal(&v) {
				t.Errorf("%s: encoding/json reads\n%s", tc.name, show(&ref))
			}
		}
	}
}

func TestChunkDecoderErrors(t *testing.T) {
	for _, in := range []string{
		``, ` `, `{`, `}`, `[]`, `"x"`, `null`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`,
		`{"choices":[{"text":"a"}}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a":01}`,
		`{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":tru}`, `{"a":nul}`, `{"choices":nul}`, `{} x`,
		`{"error":nul}`, `{"a":"unterminated}`, `{"a":[1 2]}`, `{"choices":[{"delta":{"content":"\`,
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		`{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`,
	} {
		var d ChunkDecoder
		var v ChunkView
		err := d.Decode([]byte(in), &v)
		if err == nil {
			t.Errorf("%.40q: no error", in)
		}
		if json.Valid([]byte(in)) && strings.HasPrefix(strings.TrimSpace(in), "{") {
			t.Errorf("%.40q: json.Valid accepts it", in)
		}
	}
	// At the nesting limit itself, both accept.
	deep := `{"a":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}`
	var d ChunkDecoder
	var v ChunkView
	if err := d.Decode([]byte(deep), &v); err != nil || !json.Valid([]byte(deep)) {
		t.Errorf("depth %d: decode %v, valid %v", maxDepth, err, json.Valid([]byte(deep)))
	}
}

func TestChunkDecoderFixtures(t *testing.T) {
	var d ChunkDecoder
	var v ChunkView
	for _, name := range []string{
		"completions-stream-qwen3-4b-xpu-2025-06.sse",
		"chat-stream-reasoning-dualfield-qwen3vl-thinking-2025-11-excerpt.sse",
	} {
		for i, data := range sseData(t, name) {
			if string(data) == Done {
				continue
			}
			if err := d.Decode(data, &v); err != nil {
				t.Fatalf("%s event %d: %v", name, i, err)
			}
			var c StreamChunk
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatal(err)
			}
			if ref := c.View(); !ref.Equal(&v) {
				t.Errorf("%s event %d:\n got %s\nwant %s", name, i, show(&v), show(&ref))
			}
		}
	}
	// The dual-field chunk carries the same text twice: one reasoning text.
	data := sseData(t, "chat-stream-reasoning-dualfield-qwen3vl-thinking-2025-11-excerpt.sse")[0]
	if err := d.Decode(data, &v); err != nil || string(v.Reasoning) != "好的" || len(v.Content) != 0 {
		t.Errorf("dual-field: %v %s", err, show(&v))
	}
}

// TestChunkDecoderAllocs: decoding a chunk allocates nothing once the
// scratch space has grown.
func TestChunkDecoderAllocs(t *testing.T) {
	chunks := [][]byte{
		[]byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1781964066,"model":"qwen3-8b","choices":[{"index":0,"delta":{"reasoning":"The \"quoted\"\n"},"logprobs":null,"finish_reason":null,"token_ids":null}]}`),
		[]byte(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":16,"total_tokens":36,"completion_tokens":20}}`),
		[]byte(`{"error":{"message":"boom","type":"InternalServerError","param":null,"code":500}}`),
	}
	var d ChunkDecoder
	var v ChunkView
	allocs := testing.AllocsPerRun(100, func() {
		for _, c := range chunks {
			if err := d.Decode(c, &v); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}

func show(v *ChunkView) string {
	return strings.NewReplacer("\n", `\n`).Replace(
		"choices=" + itoa(v.Choices) + " role=" + string(v.Role) + " content=" + string(v.Content) +
			" reasoning=" + string(v.Reasoning) + " tools=" + itoa(v.ToolCalls) + " finish=" + string(v.FinishReason) +
			" usage=" + boolStr(v.HasUsage) + "/" + itoa(v.Usage.PromptTokens) + "/" + itoa(v.Usage.CompletionTokens) +
			"/" + itoa(v.Usage.TotalTokens) + "/" + itoa(v.Usage.CachedTokens) + "/" + itoa(v.Usage.ReasoningTokens) +
			" error=" + boolStr(v.HasError) + "/" + string(v.Error.Message) + "/" + string(v.Error.Type) + "/" + itoa(v.Error.Code))
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func boolStr(b bool) string {
	if b {
		return "t"
	}
	return "f"
}

var benchChunk = []byte(`{"id":"chatcmpl-84fcf3946abda724","object":"chat.completion.chunk","created":1781964066,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":" Hello"},"logprobs":null,"finish_reason":null,"token_ids":null}]}`)

func BenchmarkChunkDecoder(b *testing.B) {
	var d ChunkDecoder
	var v ChunkView
	b.SetBytes(int64(len(benchChunk)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Decode(benchChunk, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChunkEncodingJSON is the reference decoder, for comparison.
func BenchmarkChunkEncodingJSON(b *testing.B) {
	b.SetBytes(int64(len(benchChunk)))
	b.ReportAllocs()
	for b.Loop() {
		var c StreamChunk
		if err := json.Unmarshal(benchChunk, &c); err != nil {
			b.Fatal(err)
		}
	}
}
