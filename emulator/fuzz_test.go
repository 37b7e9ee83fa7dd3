package emulator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzRequestBody: whatever body a client sends to either endpoint, the
// emulator answers with a status (never a panic), and a 4xx carries vLLM's
// error JSON.
func FuzzRequestBody(f *testing.F) {
	for _, seed := range []string{
		`{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"hi"}],"max_tokens":3}`,
		`{"model":"Qwen/Qwen3-8B","prompt":"a b c","max_tokens":2,"stream":true,"stream_options":{"include_usage":true}}`,
		`{"model":"Qwen/Qwen3-8B","messages":[],"max_completion_tokens":-1}`,
		`{"model":"nope","prompt":"x"}`,
		`{"messages":[{"role":"user","content":["a",1]}],"min_tokens":5,"max_tokens":2}`,
		`{"model":"Qwen/Qwen3-8B","prompt":"x","max_tokens":1,"thinking_token_budget":-5,"chat_template_kwargs":{"enable_thinking":"yes"}}`,
		`{"messages":[{"role":"user","content":"x"}],"max_tokens":4,"min_tokens":4,"vllm_xargs":{"thinkcap_think_tokens":"3"},"reasoning_effort":"high"}`,
		`{"messages":[{"role":"user","content":"x"}],"vllm_xargs":{"thinkcap_think_tokens":[1]},"reasoning_effort":7}`,
		`not json`, `{}`, `[]`, `null`,
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	s, _ := startServer(f, func(c *Config) { c.TimeScale = 1000 })
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string, chat bool) {
		path := "/v1/completions"
		if chat {
			path = "/v1/chat/completions"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)).WithContext(ctx)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 400 && rec.Code < 500 && !strings.Contains(rec.Body.String(), `"message"`) {
			t.Fatalf("status %d without vLLM's error JSON: %q", rec.Code, rec.Body.String())
		}
	})
}
