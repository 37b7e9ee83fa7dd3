package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// checkServer is a configurable vLLM-like server on loopback for the
// preflight, breaker and threshold tests: it counts chat requests and the
// connections opened before the first of them.
type checkServer struct {
	models  []string // served ids
	key     string   // required bearer key ("" none)
	metrics bool     // /metrics answers
	// chat answers a chat request numbered k (from 1): 0 streams two
	// tokens, neverAnswer sends nothing until the client gives up, another
	// value is that HTTP error with vLLM's body.
	chat func(k int64) int

	srv       *httptest.Server
	chats     atomic.Int64
	conns     atomic.Int64 // connections opened so far
	connsAt1  atomic.Int64 // connections open when the first chat arrived
	firstOnce sync.Once
}

// neverAnswer is a checkServer chat outcome: a server that hangs.
const neverAnswer = -1

func (c *checkServer) start(t *testing.T) *checkServer {
	t.Helper()
	mux := http.NewServeMux()
	auth := func(w http.ResponseWriter, r *http.Request) bool {
		if c.key != "" && r.Header.Get("Authorization") != "Bearer "+c.key {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"Unauthorized"}`)
			return false
		}
		return true
	}
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		if !auth(w, r) {
			return
		}
		var cards []string
		for _, m := range c.models {
			cards = append(cards, fmt.Sprintf(`{"id":%q,"object":"model","root":%q,"max_model_len":32768}`, m, m))
		}
		fmt.Fprintf(w, `{"object":"list","data":[%s]}`, strings.Join(cards, ","))
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		if !c.metrics {
			http.NotFound(w, nil)
			return
		}
		fmt.Fprint(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\"} 0\n")
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		c.firstOnce.Do(func() { c.connsAt1.Store(c.conns.Load()) })
		k := c.chats.Add(1)
		if !auth(w, r) {
			return
		}
		var body struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		code := 0
		if c.chat != nil {
			code = c.chat(k)
		}
		if code == 0 && !contains(c.models, body.Model) {
			code = http.StatusNotFound
		}
		if code == neverAnswer {
			<-r.Context().Done()
			return
		}
		if code != 0 {
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":{"message":"The model %s does not exist.","type":"NotFoundError","param":null,"code":%d}}`, body.Model, code)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	c.srv = httptest.NewUnstartedServer(mux)
	c.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.conns.Add(1)
		}
	}
	c.srv.Start()
	t.Cleanup(c.srv.Close)
	return c
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// loadArgs is a small synthetic load test against url.
func loadArgs(url, dir string, extra ...string) []string {
	return append([]string{"loadtest", "--url", url, "--requests", "6", "--rate", "200",
		"--prompt-tokens", "5", "--think-tokens", "0", "--answer-tokens", "2", "--scrape-interval", "0",
		"--out", dir}, extra...)
}

func TestLoadtestPreflight(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	t.Setenv("A1_KEY", "right-key")
	t.Setenv("A1_WRONG", "wrong-key-value")
	for _, c := range []struct {
		name   string
		server *checkServer // nil: the closed port
		args   []string
		code   int
		want   []string // in stderr
		sent   bool     // chat requests reached the server
	}{
		{name: "model not served", server: &checkServer{models: []string{"Qwen/Qwen3-8B"}},
			args: []string{"--model", "qwen3-8b"}, code: exitBadInput,
			want: []string{`model "qwen3-8b" is not served by http://127.0.0.1:`, "it serves: Qwen/Qwen3-8B"}},
		{name: "closed port", args: []string{"--model", "m"}, code: exitBadInput,
			want: []string{"cannot reach " + closedURL + "/v1/models: connection refused"}},
		{name: "key refused", server: &checkServer{models: []string{"m"}, key: "right-key"},
			args: []string{"--model", "m", "--api-key-env", "A1_WRONG"}, code: exitBadInput,
			want: []string{"HTTP 401", "refused the API key in $A1_WRONG"}},
		{name: "key missing", server: &checkServer{models: []string{"m"}, key: "right-key"},
			args: []string{"--model", "m", "--api-key-env", "A1_UNSET"}, code: exitBadInput,
			want: []string{"HTTP 401", "$A1_UNSET is empty"}},
		{name: "several models, none chosen", server: &checkServer{models: []string{"a", "b"}},
			code: exitBadInput, want: []string{"--model is required", "serves 2 models: a, b"}},
		{name: "metrics missing while scraping", server: &checkServer{models: []string{"m"}},
			args: []string{"--model", "m", "--scrape-interval", "1s"}, code: exitBadInput,
			want: []string{"/metrics: ", "pass --scrape-interval 0"}},
		{name: "single model picked", server: &checkServer{models: []string{"Qwen/Qwen3-8B"}, key: "right-key"},
			args: []string{"--api-key-env", "A1_KEY"}, code: exitOK,
			want: []string{"using Qwen/Qwen3-8B, the only model the server serves"}, sent: true},
		{name: "no preflight sends anyway", server: &checkServer{models: []string{"Qwen/Qwen3-8B"}},
			args: []string{"--model", "qwen3-8b", "--no-preflight"}, code: exitCheckFailed,
			want: []string{"no request succeeded (6 http_error", "does not exist"}, sent: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := closedURL
			if c.server != nil {
				url = c.server.start(t).srv.URL
			}
			dir := filepath.Join(t.TempDir(), "run")
			_, errOut, code := thinkcap(t, loadArgs(url, dir, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if strings.Contains(errOut, "right-key") || strings.Contains(errOut, "wrong-key-value") {
				t.Errorf("stderr shows the key:\n%s", errOut)
			}
			if c.server != nil && (c.server.chats.Load() > 0) != c.sent {
				t.Errorf("%d chat requests reached the server", c.server.chats.Load())
			}
			if _, err := os.Stat(dir); c.code == exitBadInput && err == nil {
				t.Errorf("a refused run left %s behind", dir)
			}
		})
	}
}

// TestLoadtestCircuitBreaker: a server that dies mid-run (or answers only
// 404) stops the run within --max-consecutive-failures plus what was in
// flight, exit 1, the run marked aborted.
func TestLoadtestCircuitBreaker(t *testing.T) {
	const (
		maxFails    = 5
		concurrency = 2
		served      = 10
		planned     = 400
	)
	for _, c := range []struct {
		name string
		chat func(cs *checkServer) func(int64) int
		args []string
		want string
	}{
		{name: "server closed mid-run", want: "aborting: 5 consecutive connection failures (last: dial tcp",
			chat: func(cs *checkServer) func(int64) int {
				var stop sync.Once
				return func(k int64) int {
					if k >= served {
						// Whichever handler gets here first: no new
						// connection from here, and each open one closes
						// after the answer it is giving. Close itself
						// waits for the handlers, hence go.
						stop.Do(func() {
							cs.srv.Listener.Close()
							cs.srv.Config.SetKeepAlivesEnabled(false)
							go cs.srv.Close()
						})
					}
					return 0
				}
			}},
		{name: "dead endpoint", want: "aborting: 5 consecutive HTTP 404 responses (last: The model",
			chat: func(*checkServer) func(int64) int { return func(int64) int { return http.StatusNotFound } }},
		{name: "hung server", args: []string{"--header-timeout", "50ms"},
			want: "aborting: 5 consecutive requests without a response (last: no response headers within 50ms)",
			chat: func(*checkServer) func(int64) int { return func(int64) int { return neverAnswer } }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := &checkServer{models: []string{"m"}}
			cs.chat = c.chat(cs)
			cs.start(t)
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"loadtest", "--url", cs.srv.URL, "--model", "m", "--requests", fmt.Sprint(planned),
				"--concurrency", fmt.Sprint(concurrency), "--prompt-tokens", "5", "--think-tokens", "0", "--answer-tokens", "2",
				"--scrape-interval", "0", "--max-consecutive-failures", fmt.Sprint(maxFails), "--out", dir}
			_, errOut, code := thinkcap(t, append(args, c.args...)...)
			if code != exitCheckFailed || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "run aborted after") {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			// What was served, what each connection was carrying when it
			// died (an answer or a dropped connection), the run of
			// failures, and what was in flight when the breaker tripped:
			// a couple of dozen at most of the 400 planned.
			if limit := served + 2*concurrency + maxFails + concurrency; len(res) > limit {
				t.Errorf("%d records, want at most %d", len(res), limit)
			}
			meta, err := loadgen.ReadMetadata(filepath.Join(dir, "metadata.json"))
			if err != nil {
				t.Fatal(err)
			}
			if meta.State != loadgen.RunAborted || !strings.Contains(meta.Reason, "consecutive") {
				t.Errorf("metadata state %q reason %q", meta.State, meta.Reason)
			}
		})
	}
}

func TestLoadtestThresholds(t *testing.T) {
	for _, c := range []struct {
		name string
		chat func(int64) int
		args []string
		code int
		want []string // in stdout + stderr
	}{
		{name: "met", args: []string{"--threshold", "ttft_p99<1h,failure_rate<1%", "--threshold", "throughput_requests>0"},
			code: exitOK, want: []string{"ttft_p99<1h", "pass"}},
		{name: "crossed", args: []string{"--threshold", "ttft_p99<1ns"}, code: exitCheckFailed,
			want: []string{"1 of 1 thresholds crossed: ttft_p99<1ns"}},
		{name: "failure rate", chat: func(k int64) int {
			if k%3 == 0 {
				return http.StatusServiceUnavailable
			}
			return 0
		}, args: []string{"--max-failure-rate", "0.1"}, code: exitCheckFailed,
			want: []string{"failure_rate<=0.1", "33.33%", "thresholds crossed"}},
		{name: "nothing succeeded, no threshold", chat: func(int64) int { return http.StatusServiceUnavailable },
			code: exitCheckFailed, want: []string{"no request succeeded (6 http_error"}},
		{name: "bad threshold", args: []string{"--threshold", "ttft_p99<2"}, code: exitBadInput,
			want: []string{"--threshold: ", "a latency needs a unit"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := (&checkServer{models: []string{"m"}, chat: c.chat}).start(t)
			dir := filepath.Join(t.TempDir(), "run")
			out, errOut, code := thinkcap(t, loadArgs(cs.srv.URL, dir, append([]string{"--model", "m"}, c.args...)...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s\n%s", code, c.code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output lacks %q:\n%s\n%s", w, out, errOut)
				}
			}
		})
	}
}

// TestLoadtestErrorsInSummary: summary.json says what failed.
func TestLoadtestErrorsInSummary(t *testing.T) {
	srv, _ := vllmtest.Fake(t, 5)
	t.Setenv("TEST_KEY", "sekrit-key")
	dir := filepath.Join(t.TempDir(), "run")
	out, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "test-model", "--api-key-env", "TEST_KEY",
		"--requests", "20", "--rate", "100", "--prompt-tokens", "20", "--think-tokens", "2", "--answer-tokens", "2",
		"--scrape-interval", "20ms", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Errors struct {
			ByStatus   map[string]int `json:"by_status"`
			ByHTTPCode map[string]int `json:"by_http_code"`
			Messages   []struct {
				Message string
				Count   int
			}
		}
		Scrape *struct{ Scrapes, Failures int }
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	e := s.Errors
	if e.ByStatus["http_error"] != 4 || e.ByHTTPCode["503"] != 4 || len(e.Messages) != 1 || e.Messages[0].Message != "overloaded" || e.Messages[0].Count != 4 {
		t.Errorf("errors %+v", e)
	}
	if s.Scrape == nil || s.Scrape.Scrapes == 0 {
		t.Errorf("scrape %+v", s.Scrape)
	}
	for _, w := range []string{"failures", "HTTP 503", "overloaded", "scrapes of /metrics:"} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
}

// TestLoadtestWarmsConnections: with --concurrency C, C connections are
// open before the first scheduled request, and no record pays a dial.
func TestLoadtestWarmsConnections(t *testing.T) {
	const c = 6
	cs := (&checkServer{models: []string{"m"}}).start(t)
	dir := filepath.Join(t.TempDir(), "run")
	_, errOut, code := thinkcap(t, "loadtest", "--url", cs.srv.URL, "--model", "m", "--requests", "24",
		"--concurrency", fmt.Sprint(c), "--prompt-tokens", "5", "--think-tokens", "0", "--answer-tokens", "2",
		"--scrape-interval", "0", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := cs.connsAt1.Load(); n < c {
		t.Errorf("%d connections open at the first request, want at least %d", n, c)
	}
	res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res[:c] {
		if r.ConnectS != 0 {
			t.Errorf("%s paid a dial of %g s on a warmed pool", r.ID, r.ConnectS)
		}
	}
}
