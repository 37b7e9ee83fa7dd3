package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// lockedBuffer is a bytes.Buffer safe for the server's writers and the
// test's reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServedModelNames: the served names are listed in order, each with
// the model path as its root; a request may use any, the responses and
// /metrics carry the first; another name is vLLM's 404.
func TestServedModelNames(t *testing.T) {
	_, url := startServer(t, func(c *Config) {
		c.ModelPath = "qwen3-8b"
		c.ServedModelNames = []string{"qwen3", "Qwen/Qwen3-8B"}
	})
	resp, err := http.Get(url + vllmapi.PathModels)
	if err != nil {
		t.Fatal(err)
	}
	var list vllmapi.ModelList
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Data) != 2 || list.Data[0].ID != "qwen3" || list.Data[1].ID != "Qwen/Qwen3-8B" ||
		list.Data[0].Root != "qwen3-8b" || list.Data[1].Root != "qwen3-8b" || list.MaxModelLen("Qwen/Qwen3-8B") == 0 {
		t.Fatalf("models %+v %v", list, err)
	}
	for _, name := range []string{"qwen3", "Qwen/Qwen3-8B", ""} {
		resp := post(t, url+vllmapi.PathChatCompletions, `{"model":"`+name+`","messages":[{"role":"user","content":"x"}],"max_tokens":3}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var c vllmapi.ChatCompletion
		if resp.StatusCode != 200 || json.Unmarshal(b, &c) != nil || c.Model != "qwen3" {
			t.Errorf("model %q: %d %s", name, resp.StatusCode, b)
		}
	}
	for _, name := range []string{"qwen3-8b", "QWEN3", "gpt-9"} {
		resp := post(t, url+vllmapi.PathCompletions, `{"model":"`+name+`","prompt":"x","max_tokens":3}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if msg, typ, code, ok := vllmapi.ParseError(b); resp.StatusCode != 404 || !ok || code != 404 || typ != vllmapi.ErrorTypeNotFound ||
			msg != "The model `"+name+"` does not exist." || !strings.Contains(string(b), `"param":"model"`) {
			t.Errorf("model %q: %d %s, want vLLM's 404", name, resp.StatusCode, b)
		}
	}
	resp, err = http.Get(url + vllmapi.PathMetrics)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `vllm:num_requests_running{engine="0",model_name="qwen3"}`) {
		t.Errorf("metrics not labelled with the first name:\n%s", b)
	}
}

// accessLine is uvicorn's default access line.
var accessLine = regexp.MustCompile(`(?m)^INFO:     127\.0\.0\.1:\d+ - "POST /v1/chat/completions HTTP/1\.1" 200 OK$`)

// TestAccessLog: at debug level every request gets uvicorn's access line,
// errors with their status; at info none does.
func TestAccessLog(t *testing.T) {
	for _, level := range []LogLevel{LevelDebug, LevelInfo} {
		var out lockedBuffer
		_, url := startServer(t, func(c *Config) { c.Log = NewLogger(&out, level); c.DisableLogStats = true })
		for _, stream := range []string{"false", "true"} {
			resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":3,"stream":`+stream+`}`)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		resp := post(t, url+vllmapi.PathCompletions, `{"model":"nope","prompt":"x"}`)
		resp.Body.Close()
		got := out.String()
		if n := len(accessLine.FindAllString(got, -1)); level == LevelDebug && n != 2 || level == LevelInfo && n != 0 {
			t.Errorf("level %v: %d access lines for 2 chat requests:\n%s", level, n, got)
		}
		if has := strings.Contains(got, `"POST /v1/completions HTTP/1.1" 404 Not Found`); has != (level == LevelDebug) {
			t.Errorf("level %v: the 404's access line: %v:\n%s", level, has, got)
		}
	}
}

// statsLine is vLLM's periodic stats line (vllm/v1/metrics/loggers.py).
var statsLine = regexp.MustCompile(`(?m)^INFO \d\d-\d\d \d\d:\d\d:\d\d \[loggers\.py\] Engine 000: Avg prompt throughput: (\d+\.\d) tokens/s, Avg generation throughput: (\d+\.\d) tokens/s, Running: (\d+) reqs, Waiting: (\d+) reqs, GPU KV cache usage: (\d+\.\d)%, Prefix cache hit rate: 0\.0%$`)

// TestStatsLog: with a short interval, a request's tokens show in the
// stats line at info; an idle engine's line is at debug only; and
// DisableLogStats writes none.
func TestStatsLog(t *testing.T) {
	var out lockedBuffer
	s, url := startServer(t, func(c *Config) {
		c.Log = NewLogger(&out, LevelInfo)
		c.LogStatsInterval = 20 * time.Millisecond
		c.TimeScale = 1
		c.Sim.NumGPUBlocksOverride = 200 // one block shows as 0.5%
	})
	time.Sleep(60 * time.Millisecond) // idle intervals: debug, not written
	if got := out.String(); got != "" {
		t.Fatalf("idle engine logged at info: %q", got)
	}
	// A stream long enough to span several intervals at real time.
	resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"a b c"}],"max_tokens":2000,"ignore_eos":true,"stream":true}`)
	defer resp.Body.Close()
	waitFor(t, "a stats line with generation", func() bool {
		for _, m := range statsLine.FindAllStringSubmatch(out.String(), -1) {
			if m[2] != "0.0" && m[3] == "1" && m[5] != "0.0" {
				return true
			}
		}
		return false
	})
	if s.Stats().Running != 1 {
		t.Fatalf("the stream is not running: %+v", s.Stats())
	}

	var quiet lockedBuffer
	_, url = startServer(t, func(c *Config) {
		c.Log = NewLogger(&quiet, LevelDebug)
		c.LogStatsInterval = 5 * time.Millisecond
		c.DisableLogStats = true
	})
	r := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":30}`)
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	time.Sleep(30 * time.Millisecond)
	if strings.Contains(quiet.String(), "Engine 000") {
		t.Fatalf("stats logged with DisableLogStats: %q", quiet.String())
	}
}

// TestShutdownLog: Shutdown says how many streams it drained, and how many
// it left when its context ended first.
func TestShutdownLog(t *testing.T) {
	var out lockedBuffer
	s, url := startServer(t, func(c *Config) { c.Log = NewLogger(&out, LevelInfo); c.DisableLogStats = true; c.TimeScale = 1 })
	// Two streams in flight: one short (drains), one long (outlives the
	// first drain).
	short := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":50,"ignore_eos":true,"stream":true}`)
	long := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":30000,"ignore_eos":true,"stream":true}`)
	waitFor(t, "two requests in flight", func() bool { return s.Active() == 2 })
	go func() { _, _ = io.Copy(io.Discard, short.Body) }()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	waitFor(t, "the short stream to finish", func() bool { return s.Active() == 1 })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("shutdown with a stream left returned nil")
	}
	if got := out.String(); !strings.Contains(got, "INFO:     Shutting down: draining 2 in-flight streams\n") ||
		!regexp.MustCompile(`WARNING:  Drain timeout after \d+\.\d\ds: drained 1 streams, closing the 1 still running\n`).MatchString(got) {
		t.Fatalf("shutdown lines:\n%s", got)
	}
	long.Body.Close()
	short.Body.Close()
	waitFor(t, "the long stream to be cancelled", func() bool { return s.Active() == 0 })
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`INFO:     Drained 0 streams in \d+\.\d\ds\n`).MatchString(out.String()) {
		t.Fatalf("no drained line:\n%s", out.String())
	}
}

func TestParseLogLevel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want LogLevel
		ok   bool
	}{{"debug", LevelDebug, true}, {"INFO", LevelInfo, true}, {"Warning", LevelWarning, true}, {"error", LevelError, true},
		{"critical", LevelCritical, true}, {"trace", 0, false}, {"", 0, false}, {"warn", 0, false}} {
		got, err := ParseLogLevel(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %v %v", tc.in, got, err)
		}
	}
}
