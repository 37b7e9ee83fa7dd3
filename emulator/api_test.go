package emulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

const capturesDir = "../loadgen/testdata/vllmapi"

func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(capturesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameShape compares the keys and types of got with want, except keys
// listed in versionKeys (present in one vLLM version and not another).
func sameShape(t *testing.T, what string, got, want any, versionKeys ...string) {
	t.Helper()
	skip := map[string]bool{}
	for _, k := range versionKeys {
		skip[k] = true
	}
	var walk func(path string, g, w any)
	walk = func(path string, g, w any) {
		gm, gok := g.(map[string]any)
		wm, wok := w.(map[string]any)
		if gok && wok {
			for k := range wm {
				if _, ok := gm[k]; !ok && !skip[k] {
					t.Errorf("%s: %s.%s missing", what, path, k)
				}
			}
			for k, v := range gm {
				if wv, ok := wm[k]; ok {
					walk(path+"."+k, v, wv)
				} else if !skip[k] {
					t.Errorf("%s: %s.%s not in the capture", what, path, k)
				}
			}
			return
		}
		ga, gok := g.([]any)
		wa, wok := w.([]any)
		if gok && wok {
			walk(path+"[0]", ga[0], wa[0])
			return
		}
		// null in one and a value in the other is fine: fields vLLM
		// leaves null when unused (finish_reason, reasoning).
		if g == "null" || w == "null" {
			return
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s is %v, capture has %v", what, path, g, w)
		}
	}
	walk("$", shape(got), shape(want))
}

func TestModelsMatchesCapture(t *testing.T) {
	s, url := startServer(t, nil)
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	sameShape(t, "models", decodeAny(t, b), decodeAny(t, readCapture(t, "models-qwen2.5-7b-vllm-0.28.0.json")))
	var list vllmapi.ModelList
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if got := list.MaxModelLen(s.ModelName()); got != s.SimConfig().MaxModelLen || got == 0 {
		t.Fatalf("max_model_len %d, engine %d", got, s.SimConfig().MaxModelLen)
	}
	if list.Data[0].ID != "Qwen/Qwen3-8B" {
		t.Fatalf("served name %q", list.Data[0].ID)
	}
}

func TestChatStreamMatchesCapture(t *testing.T) {
	_, url := startServer(t, nil)
	resp := post(t, url+vllmapi.PathChatCompletions, `{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"one two three"}],
		"max_completion_tokens":12,"min_tokens":12,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true},"request_id":"r1"}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, done := readEvents(t, resp.Body)
	if !done || len(events) < 4 {
		t.Fatalf("%d events, done %v", len(events), done)
	}
	capture := strings.Split(strings.TrimSpace(string(readCapture(t, "chat-stream-reasoning-dualfield-qwen3vl-thinking-2025-11-excerpt.sse"))), "\n\n")
	reasoningCap := decodeAny(t, []byte(strings.TrimPrefix(capture[0], "data: ")))
	contentCap := decodeAny(t, []byte(strings.TrimPrefix(capture[1], "data: ")))
	var dec vllmapi.ChunkDecoder
	var v vllmapi.ChunkView
	think, answer, sawAnswer := 0, 0, false
	for i, e := range events {
		if err := dec.Decode([]byte(e), &v); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		got := decodeAny(t, []byte(e))
		switch {
		case i == 0:
			if string(v.Role) != "assistant" || string(v.Content) != "" || v.Content == nil {
				t.Fatalf("first chunk is not the role chunk: %s", e)
			}
		case i == len(events)-1:
			if v.Choices != 0 || !v.HasUsage || v.Usage.CompletionTokens != 12 || v.Usage.PromptTokens != 3+chatTokensPerMessage+chatTokensGeneration {
				t.Fatalf("usage chunk %s", e)
			}
		case v.Reasoning != nil:
			if sawAnswer {
				t.Fatalf("reasoning after content: %s", e)
			}
			think++
			// The dual-field capture also carries reasoning_content.
			sameShape(t, "reasoning chunk", got, reasoningCap, "reasoning_content", "stop_reason")
		default:
			sawAnswer = true
			answer++
			// The capture's content chunks carry "reasoning_content": null.
			sameShape(t, "content chunk", got, contentCap, "reasoning_content", "stop_reason")
		}
		if !strings.Contains(e, `"id":"chatcmpl-r1"`) {
			t.Fatalf("id not from request_id: %s", e)
		}
	}
	if think+answer != 12 || !sawAnswer {
		t.Fatalf("%d reasoning and %d content chunks", think, answer)
	}
	last := events[len(events)-2]
	if !strings.Contains(last, `"finish_reason":"length"`) {
		t.Fatalf("finish chunk %s", last)
	}
}

func TestCompletionsMatchCapture(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Traffic = func(Thinking) (int, int) { return 0, 5 } })
	resp := post(t, url+vllmapi.PathCompletions, `{"prompt":"San Francisco is a","max_tokens":7,"stream":true}`)
	events, done := readEvents(t, resp.Body)
	resp.Body.Close()
	capture := strings.Split(strings.TrimSpace(string(readCapture(t, "completions-stream-qwen3-4b-xpu-2025-06.sse"))), "\n\n")
	if !done || len(events) != 5 {
		t.Fatalf("%d events (want 5 tokens, no usage), done %v", len(events), done)
	}
	for i, e := range events {
		// Chunks of servers before #40537 also had "usage": null; newer
		// ones add prompt_token_ids and token_ids.
		sameShape(t, "completion chunk", decodeAny(t, []byte(e)), decodeAny(t, []byte(strings.TrimPrefix(capture[i], "data: "))),
			"usage", "prompt_token_ids", "token_ids")
	}
	if !strings.Contains(events[4], `"finish_reason":"stop"`) {
		t.Fatalf("last chunk %s", events[4])
	}

	resp = post(t, url+vllmapi.PathCompletions, `{"prompt":"San Francisco is a","max_tokens":32,"min_tokens":32}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sameShape(t, "completion", decodeAny(t, b), decodeAny(t, readCapture(t, "completions-nonstream-qwen3-4b-xpu-2025-06.json")))
	var c vllmapi.Completion
	if err := json.Unmarshal(b, &c); err != nil || c.Usage.CompletionTokens != 32 || c.Usage.PromptTokens != 4 || *c.Choices[0].FinishReason != "length" {
		t.Fatalf("%s %v", b, err)
	}
}

func TestChatNonStreamMatchesCapture(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		inline bool
	}{
		{"parser", func(c *Config) { c.ReasoningField = ReasoningContentField }, false},
		{"inline", func(c *Config) { c.NoReasoningParser = true; c.ReasoningField = ReasoningContentField }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, url := startServer(t, tc.mutate)
			resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":[{"type":"text","text":"reply ok"}]}],"max_tokens":20,"ignore_eos":true}`)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			sameShape(t, "chat", decodeAny(t, b), decodeAny(t, readCapture(t, "chat-completion-nonstream-qwen3-8b-thinking-inline-vllm-0.9.json")), "tool_calls")
			var c vllmapi.ChatCompletion
			if err := json.Unmarshal(b, &c); err != nil || c.Usage.CompletionTokens != 20 {
				t.Fatalf("%s %v", b, err)
			}
			m := c.Choices[0].Message
			if tc.inline != (m.ReasoningContent == nil) || tc.inline != strings.Contains(*m.Content, "</think>") {
				t.Fatalf("message %s", b)
			}
		})
	}
}

func TestThinkingControls(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Traffic = func(Thinking) (int, int) { return 30, 10 } })
	for _, tc := range []struct {
		body          string
		think, answer int
		finish        string
	}{
		{`"max_tokens":100`, 30, 10, "stop"},
		{`"max_tokens":35`, 30, 5, "length"},
		{`"max_tokens":40,"ignore_eos":true`, 30, 10, "length"},
		{`"max_completion_tokens":8,"max_tokens":100,"min_tokens":8`, 6, 2, "length"},
		{`"thinking_token_budget":4`, 4, 10, "stop"},
		{`"chat_template_kwargs":{"enable_thinking":false}`, 0, 10, "stop"},
		{`"reasoning_effort":"none"`, 0, 10, "stop"},
		{`"min_tokens":50`, 30, 20, "stop"},
	} {
		c, think, answer := postChat(t, url, `{"messages":[{"role":"user","content":"x"}],`+tc.body+`}`)
		if think != tc.think || answer != tc.answer || *c.Choices[0].FinishReason != tc.finish {
			t.Errorf("%s: think %d answer %d finish %s, want %d %d %s", tc.body, think, answer, *c.Choices[0].FinishReason, tc.think, tc.answer, tc.finish)
		}
	}
}

func TestErrors(t *testing.T) {
	s, url := startServer(t, nil)
	maxLen := s.SimConfig().MaxModelLen
	long := strings.Repeat("w ", maxLen-10)
	for _, tc := range []struct {
		name, path, method, body string
		status                   int
		typ, msg, param          string
	}{
		{"context", vllmapi.PathCompletions, "POST", fmt.Sprintf(`{"prompt":%q,"max_tokens":100}`, long), 400, "BadRequestError",
			fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested 100 output tokens and your prompt contains %d input tokens, for a total of %d tokens. Please reduce the length of the input prompt or the number of requested output tokens.", maxLen, maxLen-10, maxLen+90), "input_tokens"},
		{"malformed", vllmapi.PathChatCompletions, "POST", `{"messages":`, 400, "Bad Request", "", ""},
		{"bad field type", vllmapi.PathChatCompletions, "POST", `{"messages":[{"role":"user","content":"x"}],"max_tokens":"ten"}`, 400, "Bad Request", "", ""},
		{"min over max", vllmapi.PathChatCompletions, "POST", `{"messages":[{"role":"user","content":"x"}],"max_tokens":5,"min_tokens":6}`, 400, "BadRequestError", "min_tokens must be less than or equal to max_tokens=5, got 6.", ""},
		{"stream options", vllmapi.PathCompletions, "POST", `{"prompt":"x","stream_options":{"include_usage":true}}`, 400, "BadRequestError", "Stream options can only be defined when `stream=True`.", ""},
		{"unknown model", vllmapi.PathChatCompletions, "POST", `{"model":"gpt-9","messages":[{"role":"user","content":"x"}]}`, 404, "NotFoundError", "The model `gpt-9` does not exist.", "model"},
		{"method", vllmapi.PathChatCompletions, "GET", ``, 405, "", "", ""},
		{"route", "/v2/nothing", "GET", ``, 404, "", "", ""},
	} {
		req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d: %s", tc.name, resp.StatusCode, b)
			continue
		}
		msg, typ, code, ok := vllmapi.ParseError(b)
		if !ok || tc.typ != "" && (typ != tc.typ || code != tc.status) || tc.msg != "" && msg != tc.msg {
			t.Errorf("%s: %s", tc.name, b)
		}
		if tc.param != "" && !strings.Contains(string(b), `"param":"`+tc.param+`"`) {
			t.Errorf("%s: param: %s", tc.name, b)
		}
	}
}

func TestHealthAndVersion(t *testing.T) {
	_, url := startServer(t, nil)
	resp, err := http.Get(url + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Get(url + "/version")
	if err != nil {
		t.Fatal(err)
	}
	var v vllmapi.Version
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || !strings.Contains(v.Version, "thinkcap-emulator") || !strings.Contains(v.Version, "time_scale=20") {
		t.Fatalf("%+v %v", v, err)
	}
}
