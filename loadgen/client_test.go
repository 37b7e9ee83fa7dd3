package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

// clientFixture reads a copy of a real vLLM capture
// (testdata/vllmapi/PROVENANCE.md).
func clientFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "vllmapi", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startStream sends a 200 event-stream response's headers.
func startStream(w http.ResponseWriter) http.Flusher {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	return f
}

// writeEvents writes each chunk as one flushed event.
func writeEvents(w http.ResponseWriter, chunks ...string) {
	f := startStream(w)
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		f.Flush()
	}
}

// newTestClient starts srv's handler and a client for it.
func newTestClient(t testing.TB, h http.HandlerFunc, cfg ClientConfig) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	if cfg.Model == "" {
		cfg.Model = "qwen3-8b"
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wait blocks until the client goes away or a test bound passes, so that
// no handler outlives its test. The server notices a closed connection
// only once the request body has been read.
func wait(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// TestClientTiming streams tokens on a schedule and checks the measured
// TTFT, token times and ITL against the times the handler wrote each
// event (same process, same monotonic clock): within 5 ms. A stamp taken
// anywhere but on the event's arrival (at the next event, at the end of
// the stream) is off by a whole gap, 20 to 45 ms; a loaded 2-core machine
// delays the reading goroutine by a millisecond or two (a fresh clone's
// `make test`, compiling beside it, saw one event 1.3 to 1.9 ms late in
// each of three tries), and now and then by more, so the check gets three
// tries.
func TestClientTiming(t *testing.T) {
	gaps := []time.Duration{40, 20, 30, 45, 25, 35} // ms before each token event
	var mu sync.Mutex
	var written []time.Time
	h := func(w http.ResponseWriter, r *http.Request) {
		f := startStream(w)
		fmt.Fprintf(w, "data: %s\n\n", roleChunk())
		f.Flush()
		var ts []time.Time
		for i, g := range gaps {
			time.Sleep(g * time.Millisecond)
			ts = append(ts, time.Now())
			chunk := reasoningChunk("r")
			if i >= 3 {
				chunk = contentChunk("a")
			}
			fmt.Fprintf(w, "data: %s\n\n", chunk)
			f.Flush()
		}
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", usageChunk(10, len(gaps)))
		mu.Lock()
		written = ts
		mu.Unlock()
	}
	c := newTestClient(t, h, ClientConfig{ReasoningParser: true})
	const tol = 5 * time.Millisecond
	var problems []string
	for try := range 3 {
		m := c.Do(context.Background(), Request{ID: fmt.Sprint("timing-", try), Prompt: "hi", MaxTokens: 16})
		mu.Lock()
		w := written
		mu.Unlock()
		if m.Status != workload.StatusOK || len(w) != len(gaps) {
			t.Fatalf("status %s %s, %d events written", m.Status, m.Error, len(w))
		}
		var serverGaps []float64
		for i := 1; i < len(w); i++ {
			serverGaps = append(serverGaps, w[i].Sub(w[i-1]).Seconds())
		}
		serverMean := w[len(w)-1].Sub(w[0]).Seconds() / float64(len(w)-1)
		problems = problems[:0]
		check := func(what string, got, want time.Duration) {
			if d := got - want; d < 0 || d > tol {
				problems = append(problems, fmt.Sprintf("%s %v after the write", what, d))
			}
		}
		check("first token", m.FirstToken.Sub(w[0]), 0)
		check("first answer", m.FirstAnswer.Sub(w[3]), 0)
		check("think end", m.ThinkEnd.Sub(w[2]), 0)
		check("last token", m.LastToken.Sub(w[len(w)-1]), 0)
		if d := m.ITLMeanS - serverMean; d < -tol.Seconds() || d > tol.Seconds() {
			problems = append(problems, fmt.Sprintf("itl mean %v, written %v", m.ITLMeanS, serverMean))
		}
		if d := m.ITLMaxS - slices.Max(serverGaps); d < -tol.Seconds() || d > tol.Seconds() {
			problems = append(problems, fmt.Sprintf("itl max %v, written %v", m.ITLMaxS, slices.Max(serverGaps)))
		}
		// And against the nominal schedule, loosely (the handler's sleeps
		// overshoot).
		if m.FirstToken.Sub(m.Sent) < 40*time.Millisecond || m.ITLMeanS < 0.030 || m.ITLMeanS > 0.045 {
			problems = append(problems, fmt.Sprintf("ttft %v, itl mean %v against a 40 ms / 31 ms schedule", m.FirstToken.Sub(m.Sent), m.ITLMeanS))
		}
		if m.ThinkTokens != 3 || m.AnswerTokens != 3 || m.TokenEvents != 6 || m.TokenSource != TokenSourceUsage {
			t.Fatalf("tokens %d/%d events %d source %s", m.ThinkTokens, m.AnswerTokens, m.TokenEvents, m.TokenSource)
		}
		if m.Headers.Before(m.Sent) || m.FirstByte.Before(m.Headers) || m.FirstToken.Before(m.FirstByte) || m.End.Before(m.LastToken) {
			t.Fatalf("times out of order: %+v", m)
		}
		if len(problems) == 0 {
			return
		}
		t.Logf("try %d: %s", try, strings.Join(problems, "; "))
	}
	t.Errorf("timing off by more than %v: %s", tol, strings.Join(problems, "; "))
}

func TestClientFixtureReplays(t *testing.T) {
	serve := func(body []byte, contentType string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Write(body)
		}
	}
	t.Run("completions stream", func(t *testing.T) {
		body := clientFixture(t, "completions-stream-qwen3-4b-xpu-2025-06.sse")
		c := newTestClient(t, serve(body, "text/event-stream"), ClientConfig{Endpoint: EndpointCompletions})
		m := c.Do(context.Background(), Request{Prompt: "San Francisco is a", MaxTokens: 7, SaveText: true})
		if m.Status != workload.StatusOK || m.AnswerTokens != 7 || m.ThinkTokens != 0 || m.TokenSource != TokenSourceCounted ||
			m.FinishReason != "length" || m.Text != " city in the state of California," || m.PromptTokens != 0 {
			t.Errorf("%+v", m)
		}
	})
	t.Run("chat dual-field reasoning", func(t *testing.T) {
		// The excerpt has neither the role chunk nor the end: [DONE] is added.
		body := append(clientFixture(t, "chat-stream-reasoning-dualfield-qwen3vl-thinking-2025-11-excerpt.sse"), "\ndata: [DONE]\n\n"...)
		c := newTestClient(t, serve(body, "text/event-stream"), ClientConfig{ReasoningParser: true})
		m := c.Do(context.Background(), Request{Prompt: "hi", SaveText: true})
		if m.Status != workload.StatusOK || m.ThinkTokens != 1 || m.AnswerTokens != 3 || m.Reasoning != "好的" ||
			m.Text != "，用户让我" || m.TokenSource != TokenSourceCounted {
			t.Errorf("%+v", m)
		}
	})
	t.Run("inline think re-streamed from a real answer", func(t *testing.T) {
		// Qwen3-8B without a reasoning parser: <think> stays in the content.
		// Stream the captured message a few bytes at a time (tags split),
		// with the captured usage.
		var resp vllmapi.ChatCompletion
		if err := json.Unmarshal(clientFixture(t, "chat-completion-nonstream-qwen3-8b-thinking-inline-vllm-0.9.json"), &resp); err != nil {
			t.Fatal(err)
		}
		content := *resp.Choices[0].Message.Content
		chunks := []string{roleChunk()}
		for i := 0; i < len(content); i += 5 {
			chunks = append(chunks, contentChunk(content[i:min(i+5, len(content))]))
		}
		chunks = append(chunks, finishChunk("stop"), usageChunk(resp.Usage.PromptTokens, resp.Usage.CompletionTokens), "[DONE]")
		c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { writeEvents(w, chunks...) }, ClientConfig{})
		m := c.Do(context.Background(), Request{Prompt: "say it", SaveText: true})
		think, answer, _ := strings.Cut(content, "</think>")
		if m.Status != workload.StatusOK || m.Text != answer || m.Reasoning != think+"</think>" ||
			m.PromptTokens != 21 || m.ThinkTokens+m.AnswerTokens != 95 || m.TokenSource != TokenSourceUsage {
			t.Errorf("status %s think %d answer %d prompt %d\ntext %q\nreasoning %.40q", m.Status, m.ThinkTokens, m.AnswerTokens, m.PromptTokens, m.Text, m.Reasoning)
		}
		wantThink := (len(think) + len("</think>") + 4) / 5 // 5-byte pieces up to the tag's end
		if m.ThinkTokens != wantThink {
			t.Errorf("think %d, want %d pieces", m.ThinkTokens, wantThink)
		}
	})
	t.Run("non-stream json", func(t *testing.T) {
		body := clientFixture(t, "chat-completion-nonstream-qwen3-8b-thinking-inline-vllm-0.9.json")
		c := newTestClient(t, serve(body, "application/json"), ClientConfig{})
		m := c.Do(context.Background(), Request{Prompt: "hi"})
		if m.Status != workload.StatusStreamError || m.HTTPStatus != 200 || !strings.Contains(m.Error, "not an event stream") {
			t.Errorf("%+v", m)
		}
	})
}

func TestClientFaults(t *testing.T) {
	tokens := []string{roleChunk(), contentChunk("a"), contentChunk("b")}
	done := append(slices.Clone(tokens), finishChunk("stop"), usageChunk(3, 2), "[DONE]")
	for _, tc := range []struct {
		name    string
		parser  bool
		h       http.HandlerFunc
		status  string
		code    int
		errPart string
	}{
		{"ok", false, func(w http.ResponseWriter, r *http.Request) { writeEvents(w, done...) }, workload.StatusOK, 200, ""},
		{"keep-alive comments", false, func(w http.ResponseWriter, r *http.Request) {
			f := startStream(w)
			fmt.Fprint(w, ": ping\n\n")
			for _, c := range done {
				fmt.Fprintf(w, ": keep-alive\r\ndata: %s\r\n\r\n", c)
				f.Flush()
			}
		}, workload.StatusOK, 200, ""},
		{"400 context length", false, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			json.NewEncoder(w).Encode(vllmapi.NewError(400, vllmapi.ErrorTypeBadRequest,
				"This model's maximum context length is 4096 tokens. However, you requested 5000 output tokens"))
		}, workload.StatusRejected, 400, "maximum context length is 4096"},
		{"400 flat error body", false, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			w.Write(clientFixture(t, "error-400-flat-object-error-matryoshka.json"))
		}, workload.StatusHTTPError, 400, "does not support matryoshka"},
		{"401 string error", false, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":"Unauthorized"}`))
		}, workload.StatusHTTPError, 401, "Unauthorized"},
		{"429 plain text", false, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, workload.StatusRejected, 429, "http 429: slow down"},
		{"500", false, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			json.NewEncoder(w).Encode(vllmapi.NewError(500, vllmapi.ErrorTypeInternal, "engine dead"))
		}, workload.StatusHTTPError, 500, "engine dead"},
		{"503 empty", false, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, workload.StatusHTTPError, 503, "http 503"},
		{"error inside a 200 stream", false, func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, append(slices.Clone(tokens),
				`{"error":{"message":"Unexpected token 200002 while expecting start token 200006","type":"InternalServerError","param":null,"code":500}}`, "[DONE]")...)
		}, workload.StatusStreamError, 200, "Unexpected token 200002"},
		{"error before the first token", false, func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, `{"error":{"message":"boom","type":"InternalServerError","code":500}}`, "[DONE]")
		}, workload.StatusStreamError, 200, "boom"},
		{"only [DONE]", false, func(w http.ResponseWriter, r *http.Request) { writeEvents(w, "[DONE]") },
			workload.StatusStreamError, 200, "no tokens"},
		{"zero tokens", false, func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, roleChunk(), contentChunk(""), finishChunk("stop"), usageChunk(3, 1), "[DONE]")
		}, workload.StatusStreamError, 200, "no tokens"},
		{"no [DONE]", false, func(w http.ResponseWriter, r *http.Request) { writeEvents(w, tokens...) },
			workload.StatusStreamError, 200, "before [DONE]"},
		{"malformed chunk", false, func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, roleChunk(), contentChunk("a"), `{"choices":[{"delta":{"content":"b"}}`, "[DONE]")
		}, workload.StatusStreamError, 200, "malformed chunk json"},
		{"finish abort", false, func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, roleChunk(), contentChunk("a"), finishChunk("abort"), "[DONE]")
		}, workload.StatusStreamError, 200, "finish_reason abort"},
		{"reasoning cut by length", true, func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, roleChunk(), reasoningChunk("a"), reasoningChunk("b"), finishChunk("length"), usageChunk(3, 2), "[DONE]")
		}, workload.StatusTruncated, 200, "inside thinking (finish_reason length)"},
		{"unclosed inline think", false, func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, roleChunk(), contentChunk("<think>"), contentChunk("hmm"), finishChunk("length"), usageChunk(3, 2), "[DONE]")
		}, workload.StatusTruncated, 200, "inside thinking"},
		{"connection reset mid-stream", false, func(w http.ResponseWriter, r *http.Request) {
			f := startStream(w)
			fmt.Fprintf(w, "data: %s\n\ndata: %s\n\n", roleChunk(), contentChunk("a"))
			f.Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
			conn.Close()
		}, workload.StatusStreamError, 200, ""},
		{"connection closed before headers", false, func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			conn.Close()
		}, workload.StatusHTTPError, 0, "EOF"},
	} {
		c := newTestClient(t, tc.h, ClientConfig{ReasoningParser: tc.parser})
		m := c.Do(context.Background(), Request{ID: "f1", Prompt: "hi", MaxTokens: 8})
		if m.Status != tc.status || m.HTTPStatus != tc.code || !strings.Contains(m.Error, tc.errPart) {
			t.Errorf("%s: status %s http %d error %q; want %s %d %q", tc.name, m.Status, m.HTTPStatus, m.Error, tc.status, tc.code, tc.errPart)
		}
		if (tc.status == workload.StatusOK) != (m.Error == "") && tc.errPart == "" {
			t.Errorf("%s: error %q with status %s", tc.name, m.Error, m.Status)
		}
		if m.End.IsZero() || m.Sent.IsZero() {
			t.Errorf("%s: sent %v end %v", tc.name, m.Sent, m.End)
		}
	}
}

func TestClientTimeoutsAndCancel(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { wait(r) }
	oneTokenThenHang := func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w, roleChunk(), contentChunk("a"))
		wait(r)
	}
	t.Run("header timeout", func(t *testing.T) {
		c := newTestClient(t, hang, ClientConfig{HeaderTimeout: 50 * time.Millisecond})
		m := c.Do(context.Background(), Request{Prompt: "hi"})
		if d := m.End.Sub(m.Sent); m.Status != workload.StatusTimeout || !m.Hung || !strings.Contains(m.Error, "no response headers within 50ms") || d > 2*time.Second {
			t.Errorf("status %s error %q after %v", m.Status, m.Error, d)
		}
	})
	t.Run("request timeout mid-stream", func(t *testing.T) {
		c := newTestClient(t, oneTokenThenHang, ClientConfig{HeaderTimeout: time.Second, RequestTimeout: 200 * time.Millisecond})
		m := c.Do(context.Background(), Request{Prompt: "hi"})
		if d := m.End.Sub(m.Sent); m.Status != workload.StatusTimeout || m.HTTPStatus != 200 || m.TokenEvents != 1 ||
			m.Hung || !strings.Contains(m.Error, "not done within 200ms") || d < 150*time.Millisecond || d > 2*time.Second {
			t.Errorf("status %s http %d tokens %d error %q after %v", m.Status, m.HTTPStatus, m.TokenEvents, m.Error, d)
		}
	})
	t.Run("request timeout before any header", func(t *testing.T) {
		c := newTestClient(t, hang, ClientConfig{RequestTimeout: 50 * time.Millisecond})
		m := c.Do(context.Background(), Request{Prompt: "hi"})
		if m.Status != workload.StatusTimeout || !m.Hung || !strings.Contains(m.Error, "not done within 50ms") {
			t.Errorf("status %s hung %v error %q", m.Status, m.Hung, m.Error)
		}
	})
	t.Run("stream stalled", func(t *testing.T) {
		c := newTestClient(t, oneTokenThenHang, ClientConfig{HeaderTimeout: time.Second, StallTimeout: 100 * time.Millisecond})
		m := c.Do(context.Background(), Request{Prompt: "hi"})
		if d := m.End.Sub(m.Sent); m.Status != workload.StatusTimeout || !m.Hung || m.TokenEvents != 1 ||
			!strings.Contains(m.Error, "stream stalled: nothing for 100ms") || d < 80*time.Millisecond || d > 2*time.Second {
			t.Errorf("status %s hung %v tokens %d error %q after %v", m.Status, m.Hung, m.TokenEvents, m.Error, d)
		}
	})
	t.Run("a long queue, then a stream longer than the limit, is not a stall", func(t *testing.T) {
		const tokens = 10
		queued := func(w http.ResponseWriter, r *http.Request) {
			f := startStream(w) // headers at once, as vLLM sends them
			time.Sleep(600 * time.Millisecond)
			fmt.Fprintf(w, "data: %s\n\n", roleChunk())
			f.Flush()
			for range tokens { // 500 ms of stream, no gap near the limit
				time.Sleep(50 * time.Millisecond)
				fmt.Fprintf(w, "data: %s\n\n", contentChunk("a"))
				f.Flush()
			}
			fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", usageChunk(1, tokens))
		}
		c := newTestClient(t, queued, ClientConfig{StallTimeout: 300 * time.Millisecond})
		if m := c.Do(context.Background(), Request{Prompt: "hi"}); m.Status != workload.StatusOK || m.Hung {
			t.Errorf("status %s hung %v error %q", m.Status, m.Hung, m.Error)
		}
	})
	t.Run("http client timeout", func(t *testing.T) {
		c := newTestClient(t, oneTokenThenHang, ClientConfig{HTTPClient: &http.Client{Timeout: 100 * time.Millisecond}})
		if m := c.Do(context.Background(), Request{Prompt: "hi"}); m.Status != workload.StatusTimeout || m.Hung {
			t.Errorf("status %s hung %v error %q", m.Status, m.Hung, m.Error)
		}
	})
	t.Run("cancel mid-stream", func(t *testing.T) {
		c := newTestClient(t, oneTokenThenHang, ClientConfig{})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if m := c.Do(ctx, Request{Prompt: "hi"}); m.Status != workload.StatusCancelled || m.TokenEvents != 1 {
			t.Errorf("status %s error %q", m.Status, m.Error)
		}
	})
	t.Run("cancel while waiting for headers", func(t *testing.T) {
		c := newTestClient(t, hang, ClientConfig{})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		if m := c.Do(ctx, Request{Prompt: "hi"}); m.Status != workload.StatusCancelled || m.HTTPStatus != 0 {
			t.Errorf("status %s error %q", m.Status, m.Error)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		c, err := NewClient(ClientConfig{BaseURL: "http://" + addr, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if m := c.Do(context.Background(), Request{Prompt: "hi"}); m.Status != workload.StatusConnectError || m.HTTPStatus != 0 || !strings.Contains(m.Error, "refused") {
			t.Errorf("status %s error %q", m.Status, m.Error)
		}
	})
}

// captured is what a handler saw of a request.
type captured struct {
	body   map[string]any
	header http.Header
	path   string
}

func captureRequest(t *testing.T, cfg ClientConfig, req Request) captured {
	t.Helper()
	var got captured
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		got.header, got.path = r.Header.Clone(), r.URL.Path
		if err := json.NewDecoder(r.Body).Decode(&got.body); err != nil {
			t.Error(err)
		}
		writeEvents(w, roleChunk(), contentChunk("a"), usageChunk(1, 1), "[DONE]")
	}, cfg)
	if m := c.Do(context.Background(), req); m.Status != workload.StatusOK {
		t.Fatalf("status %s %s", m.Status, m.Error)
	}
	return got
}

func TestClientRequestBody(t *testing.T) {
	off := false
	temp := 0.6
	for _, tc := range []struct {
		name   string
		cfg    ClientConfig
		req    Request
		path   string
		want   string // the whole body, keys sorted
		header map[string]string
	}{
		{"chat defaults", ClientConfig{}, Request{ID: "req-1", Prompt: "hi", MaxTokens: 300},
			vllmapi.PathChatCompletions,
			`{"max_completion_tokens":300,"messages":[{"content":"hi","role":"user"}],"model":"qwen3-8b","request_id":"req-1","stream":true,"stream_options":{"include_usage":true}}`,
			map[string]string{"X-Request-Id": "req-1", "Authorization": "", "Accept": "text/event-stream", "Content-Type": "application/json"}},
		{"length control from the config", ClientConfig{MinTokens: true, IgnoreEOS: true}, Request{Prompt: "hi", MaxTokens: 300},
			vllmapi.PathChatCompletions,
			`{"ignore_eos":true,"max_completion_tokens":300,"messages":[{"content":"hi","role":"user"}],"min_tokens":300,"model":"qwen3-8b","stream":true,"stream_options":{"include_usage":true}}`,
			map[string]string{"X-Request-Id": ""}},
		{"min_tokens capped at max_tokens", ClientConfig{}, Request{Prompt: "hi", MaxTokens: 10, MinTokens: 50, IgnoreEOS: true},
			vllmapi.PathChatCompletions,
			`{"ignore_eos":true,"max_completion_tokens":10,"messages":[{"content":"hi","role":"user"}],"min_tokens":10,"model":"qwen3-8b","stream":true,"stream_options":{"include_usage":true}}`, nil},
		{"thinking controls", ClientConfig{ContinuousUsage: true, Temperature: &temp, APIKey: "sk-test"},
			Request{Prompt: "<b>&", MaxTokens: 100, ThinkingBudget: 64, EnableThinking: &off, ReasoningEffort: "low", Stop: []string{"\n\n"}, Priority: 2},
			vllmapi.PathChatCompletions,
			`{"chat_template_kwargs":{"enable_thinking":false},"max_completion_tokens":100,"messages":[{"content":"<b>&","role":"user"}],"model":"qwen3-8b","priority":2,"reasoning_effort":"low","stop":["\n\n"],"stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true},"temperature":0.6,"thinking_token_budget":64}`,
			map[string]string{"Authorization": "Bearer sk-test"}},
		{"completions", ClientConfig{Endpoint: EndpointCompletions, MinTokens: true},
			Request{ID: "c-1", Prompt: " the of", MaxTokens: 20, EnableThinking: &off, ReasoningEffort: "low", ThinkingBudget: 5},
			vllmapi.PathCompletions,
			`{"max_tokens":20,"min_tokens":20,"model":"qwen3-8b","prompt":" the of","request_id":"c-1","stream":true,"stream_options":{"include_usage":true},"thinking_token_budget":5}`, nil},
	} {
		got := captureRequest(t, tc.cfg, tc.req)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf) // map keys sort
		enc.SetEscapeHTML(false)
		enc.Encode(got.body)
		body := bytes.TrimSpace(buf.Bytes())
		if string(body) != tc.want || got.path != tc.path {
			t.Errorf("%s: %s %s\nwant    %s %s", tc.name, got.path, body, tc.path, tc.want)
		}
		for k, v := range tc.header {
			if g := got.header.Get(k); g != v {
				t.Errorf("%s: header %s %q, want %q", tc.name, k, g, v)
			}
		}
	}
}

// TestClientAPIKeyNeverLeaks: a server that echoes the key in its errors
// does not get it into the measurement.
func TestClientAPIKeyNeverLeaks(t *testing.T) {
	const key = "sk-very-secret-123"
	for _, h := range []http.HandlerFunc{
		func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"invalid key %s","type":"auth","code":401}}`, r.Header.Get("Authorization"))
		},
		func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(403)
			fmt.Fprintf(w, "forbidden: %s", r.Header.Get("Authorization"))
		},
		func(w http.ResponseWriter, r *http.Request) {
			writeEvents(w, contentChunk("a"), `{"error":{"message":"`+r.Header.Get("Authorization")+`"}}`)
		},
	} {
		c := newTestClient(t, h, ClientConfig{APIKey: key})
		m := c.Do(context.Background(), Request{Prompt: "hi"})
		out, _ := json.Marshal(m.Result(workload.Request{}, m.Sent, m.Sent))
		if m.Error == "" || strings.Contains(m.Error, key) || bytes.Contains(out, []byte(key)) || strings.Contains(fmt.Sprintf("%+v", m), key) {
			t.Errorf("leak or no error: %q", m.Error)
		}
	}
}

func TestClientConfigValidate(t *testing.T) {
	bad := ClientConfig{BaseURL: "ftp://x", Endpoint: "embeddings", HeaderTimeout: -1, RequestTimeout: -1,
		HTTPClient: http.DefaultClient, CACert: "ca.pem", MaxEventBytes: -1}
	err := bad.Validate()
	for _, part := range []string{"scheme must be http", "model is empty", `endpoint "embeddings"`, "header timeout", "request timeout", "ca cert", "max event bytes"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("missing %q in %v", part, err)
		}
	}
	if _, err := NewClient(bad); err == nil {
		t.Error("NewClient accepted a bad config")
	}
	if _, err := NewClient(ClientConfig{BaseURL: "http://127.0.0.1:1", Model: "m", CACert: filepath.Join(t.TempDir(), "none.pem")}); err == nil {
		t.Error("missing ca cert accepted")
	}
	for base, want := range map[string]string{
		"http://127.0.0.1:8000":              "http://127.0.0.1:8000/v1/chat/completions",
		"http://127.0.0.1:8000/":             "http://127.0.0.1:8000/v1/chat/completions",
		" http://127.0.0.1:8000/v1/ ":        "http://127.0.0.1:8000/v1/chat/completions",
		"https://gw.example/vllm/v1?x=1#top": "https://gw.example/vllm/v1/chat/completions",
	} {
		c, err := NewClient(ClientConfig{BaseURL: base, Model: "m"})
		if err != nil || c.URL() != want {
			t.Errorf("%q: %v %v, want %s", base, c, err, want)
		}
	}
}

// TestClientReusesConnections: finished streams give their connection
// back, so a long run does not churn sockets (TIME_WAIT exhaustion at
// hundreds of requests a second).
func TestClientReusesConnections(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w, roleChunk(), contentChunk("a"), finishChunk("stop"), usageChunk(1, 1), "[DONE]")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := NewClient(ClientConfig{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if m := c.Do(context.Background(), Request{Prompt: "hi"}); !m.OK() {
			t.Fatal(m.Status, m.Error)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 5 sequential requests", n)
	}
}

// TestClientConcurrent runs many streams at once through one client.
func TestClientConcurrent(t *testing.T) {
	const streams, tokens = 200, 20
	chunks := []string{roleChunk()}
	for range tokens {
		chunks = append(chunks, contentChunk("x"))
	}
	chunks = append(chunks, finishChunk("stop"), usageChunk(3, tokens), "[DONE]")
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { writeEvents(w, chunks...) }, ClientConfig{})
	var wg sync.WaitGroup
	var bad atomic.Int64
	for i := range streams {
		wg.Go(func() {
			m := c.Do(context.Background(), Request{ID: fmt.Sprint(i), Prompt: "hi"})
			if !m.OK() || m.AnswerTokens != tokens {
				bad.Add(1)
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Errorf("%d of %d streams failed", n, streams)
	}
}

// BenchmarkClientStream measures the client's cost per token event: one
// stream of 10,000 chat chunks from a local server, either written in
// large batches ("batched": the client's own cost, many events per read)
// or flushed one event at a time ("flushed": a read per event, server and
// client sharing the CPUs).
func BenchmarkClientStream(b *testing.B) {
	const events = 10000
	var stream bytes.Buffer
	for _, c := range []string{roleChunk()} {
		fmt.Fprintf(&stream, "data: %s\n\n", c)
	}
	var one bytes.Buffer
	fmt.Fprintf(&one, "data: %s\n\n", `{"id":"chatcmpl-84fcf3946abda724","object":"chat.completion.chunk","created":1781964066,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":" Hello"},"logprobs":null,"finish_reason":null,"token_ids":null}]}`)
	for range events {
		stream.Write(one.Bytes())
	}
	var tail bytes.Buffer
	fmt.Fprintf(&tail, "data: %s\n\ndata: %s\n\ndata: [DONE]\n\n", finishChunk("stop"), usageChunk(10, events))
	for _, mode := range []string{"batched", "flushed"} {
		b.Run(mode, func(b *testing.B) {
			h := func(w http.ResponseWriter, r *http.Request) {
				f := startStream(w)
				if mode == "batched" {
					w.Write(stream.Bytes())
				} else {
					for range events {
						w.Write(one.Bytes())
						f.Flush()
					}
				}
				w.Write(tail.Bytes())
			}
			c := newTestClient(b, h, ClientConfig{StallTimeout: DefaultStallTimeout}) // as loadtest reads
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				m := c.Do(context.Background(), Request{Prompt: "hi"})
				if !m.OK() || m.AnswerTokens != events {
					b.Fatal(m.Status, m.Error, m.AnswerTokens)
				}
				n += m.TokenEvents
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkClientConcurrent holds 2,000 streams open at once through one
// client, each sending 50 token events 20 ms apart (a 50 tokens/s
// decoder), and reports the events received per second and the client's
// cost per event (the local server's included).
func BenchmarkClientConcurrent(b *testing.B) {
	const streams, events = 2000, 50
	const gap = 20 * time.Millisecond
	one := fmt.Sprintf("data: %s\n\n", contentChunk(" Hello"))
	tail := fmt.Sprintf("data: %s\n\ndata: %s\n\ndata: [DONE]\n\n", finishChunk("stop"), usageChunk(10, events))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := startStream(w)
		t := time.NewTicker(gap)
		defer t.Stop()
		for range events {
			<-t.C
			io.WriteString(w, one)
			f.Flush()
		}
		io.WriteString(w, tail)
	}))
	srv.Config.MaxHeaderBytes = 1 << 16
	srv.Listener.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	c, err := NewClient(ClientConfig{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var total atomic.Int64
	var failed atomic.Int64
	for b.Loop() {
		var wg sync.WaitGroup
		for i := range streams {
			wg.Go(func() {
				m := c.Do(context.Background(), Request{ID: fmt.Sprint(i), Prompt: "hi"})
				if !m.OK() {
					failed.Add(1)
				}
				total.Add(int64(m.TokenEvents))
			})
		}
		wg.Wait()
	}
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d streams failed", n)
	}
	b.ReportMetric(float64(total.Load())/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(streams), "streams")
}
