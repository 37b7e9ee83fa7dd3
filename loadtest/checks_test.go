package loadtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// checkOptions is a small synthetic load test against url, never scraping.
func checkOptions(t *testing.T, url, dir string) Options {
	t.Helper()
	return testOptions(url, dir, synthetic(t, 6, 200, "5", "0", "2"))
}

func TestPreflight(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	for _, c := range []struct {
		name   string
		server *checkServer // nil: the closed port
		opts   func(*Options)
		code   int
		want   []string // in stderr
		sent   bool     // chat requests reached the server
	}{
		{name: "model not served", server: &checkServer{models: []string{"Qwen/Qwen3-8B"}},
			opts: func(o *Options) { o.Model = "qwen3-8b" }, code: exitBadInput,
			want: []string{`model "qwen3-8b" is not served by http://127.0.0.1:`, "it serves: Qwen/Qwen3-8B"}},
		{name: "closed port", opts: func(o *Options) { o.Model = "m" }, code: exitBadInput,
			want: []string{"cannot reach " + closedURL + "/v1/models: connection refused"}},
		{name: "key refused", server: &checkServer{models: []string{"m"}, key: "right-key"},
			opts: func(o *Options) { o.Model, o.APIKeyEnv, o.APIKey = "m", "A1_WRONG", "wrong-key-value" }, code: exitBadInput,
			want: []string{"HTTP 401", "refused the API key in $A1_WRONG"}},
		{name: "key missing", server: &checkServer{models: []string{"m"}, key: "right-key"},
			opts: func(o *Options) { o.Model, o.APIKeyEnv = "m", "A1_UNSET" }, code: exitBadInput,
			want: []string{"HTTP 401", "$A1_UNSET is empty"}},
		{name: "several models, none chosen", server: &checkServer{models: []string{"a", "b"}},
			opts: func(*Options) {}, code: exitBadInput, want: []string{"--model is required", "serves 2 models: a, b"}},
		{name: "metrics missing while scraping", server: &checkServer{models: []string{"m"}},
			opts: func(o *Options) { o.Model, o.ScrapeInterval = "m", time.Second }, code: exitBadInput,
			want: []string{"/metrics: ", "pass --scrape-interval 0"}},
		{name: "single model picked", server: &checkServer{models: []string{"Qwen/Qwen3-8B"}, key: "right-key"},
			opts: func(o *Options) { o.APIKeyEnv, o.APIKey = "A1_KEY", "right-key" }, code: exitOK,
			want: []string{"using Qwen/Qwen3-8B, the only model the server serves"}, sent: true},
		{name: "no preflight sends anyway", server: &checkServer{models: []string{"Qwen/Qwen3-8B"}},
			opts: func(o *Options) { o.Model, o.NoPreflight = "qwen3-8b", true }, code: exitCheckFailed,
			want: []string{"no request succeeded (6 http_error", "does not exist"}, sent: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := closedURL
			if c.server != nil {
				url = c.server.start(t).srv.URL
			}
			dir := filepath.Join(t.TempDir(), "run")
			o := checkOptions(t, url, dir)
			c.opts(&o)
			_, errOut, code := load(t, o)
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

// TestCircuitBreaker: a server that dies mid-run (or answers only
// 404) stops the run within --max-consecutive-failures plus what was in
// flight, exit 1, the run marked aborted.
func TestCircuitBreaker(t *testing.T) {
	const (
		maxFails    = 5
		concurrency = 2
		served      = 10
		planned     = 400
	)
	for _, c := range []struct {
		name string
		chat func(cs *checkServer) func(int64) int
		opts func(*Options)
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
		{name: "hung server", opts: func(o *Options) { o.HeaderTimeout = 50 * time.Millisecond },
			want: "aborting: 5 consecutive requests without a response (last: no response headers within 50ms)",
			chat: func(*checkServer) func(int64) int { return func(int64) int { return neverAnswer } }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := &checkServer{models: []string{"m"}}
			cs.chat = c.chat(cs)
			cs.start(t)
			dir := filepath.Join(t.TempDir(), "run")
			reqs := traffic(t, workload.TrafficOptions{Requests: planned, Concurrency: concurrency, Prompt: dist(t, "5"), Think: dist(t, "0"), Answer: dist(t, "2")}, 0)
			o := testOptions(cs.srv.URL, dir, reqs)
			o.Model, o.Concurrency, o.MaxConsecutiveFailures = "m", concurrency, maxFails
			if c.opts != nil {
				c.opts(&o)
			}
			_, errOut, code := load(t, o)
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

func TestThresholds(t *testing.T) {
	for _, c := range []struct {
		name string
		chat func(int64) int
		opts func(*Options)
		code int
		want []string // in stdout + stderr
	}{
		{name: "met", opts: func(o *Options) { o.Thresholds = thresholds(t, "ttft_p99<1h,failure_rate<1%", "throughput_requests>0") },
			code: exitOK, want: []string{"ttft_p99<1h", "pass"}},
		{name: "crossed", opts: func(o *Options) { o.Thresholds = thresholds(t, "ttft_p99<1ns") }, code: exitCheckFailed,
			want: []string{"1 of 1 thresholds crossed: ttft_p99<1ns"}},
		{name: "failure rate", chat: func(k int64) int {
			if k%3 == 0 {
				return http.StatusServiceUnavailable
			}
			return 0
		}, opts: func(o *Options) { o.MaxFailureRate = new(0.1) }, code: exitCheckFailed,
			want: []string{"failure_rate<=0.1", "33.33%", "thresholds crossed"}},
		{name: "nothing succeeded, no threshold", chat: func(int64) int { return http.StatusServiceUnavailable },
			code: exitCheckFailed, want: []string{"no request succeeded (6 http_error"}},
		{name: "failure rate not a fraction", opts: func(o *Options) { o.MaxFailureRate = new(1.5) }, code: exitBadInput,
			want: []string{"want a fraction in [0, 1]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := (&checkServer{models: []string{"m"}, chat: c.chat}).start(t)
			dir := filepath.Join(t.TempDir(), "run")
			o := checkOptions(t, cs.srv.URL, dir)
			o.Model = "m"
			if c.opts != nil {
				c.opts(&o)
			}
			out, errOut, code := load(t, o)
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

// TestErrorsInSummary: summary.json says what failed.
func TestErrorsInSummary(t *testing.T) {
	srv, _ := vllmtest.Fake(t, 5)
	dir := filepath.Join(t.TempDir(), "run")
	o := testOptions(srv.URL, dir, synthetic(t, 20, 100, "20", "2", "2"))
	o.Model, o.APIKey, o.ScrapeInterval = "test-model", "sekrit-key", 20*time.Millisecond
	out, errOut, code := load(t, o)
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

// TestWarmsConnections: with Concurrency C, C connections are
// open before the first scheduled request, and no record pays a dial.
func TestWarmsConnections(t *testing.T) {
	const c = 6
	cs := (&checkServer{models: []string{"m"}}).start(t)
	dir := filepath.Join(t.TempDir(), "run")
	o := testOptions(cs.srv.URL, dir, traffic(t, workload.TrafficOptions{Requests: 24, Concurrency: c, Prompt: dist(t, "5"), Think: dist(t, "0"), Answer: dist(t, "2")}, 0))
	o.Model, o.Concurrency = "m", c
	_, errOut, code := load(t, o)
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
