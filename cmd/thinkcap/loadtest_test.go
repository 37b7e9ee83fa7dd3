package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// fakeVLLM is a small vLLM-like server on loopback: it streams the
// requested number of tokens (reasoning first, then content) with a usage
// chunk, answers /v1/models and /metrics, and fails every failEvery-th
// request with vLLM's error JSON.
func fakeVLLM(t *testing.T, failEvery int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n, running atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"test-model","object":"model","root":"test-model","max_model_len":32768}]}`)
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"test-model\"} %d\n", running.Load())
		fmt.Fprint(w, "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{engine=\"0\",model_name=\"test-model\"} 0.25\n")
		fmt.Fprint(w, "# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{engine=\"0\",model_name=\"test-model\"} 3\n")
		fmt.Fprint(w, "# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",engine=\"0\",num_gpu_blocks=\"1000\"} 1\n")
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		running.Add(1)
		defer running.Add(-1)
		if r.Header.Get("Authorization") != "Bearer sekrit-key" {
			t.Errorf("missing or wrong API key header")
		}
		var body struct {
			MaxTokens int  `json:"max_completion_tokens"`
			MinTokens int  `json:"min_tokens"`
			IgnoreEOS bool `json:"ignore_eos"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request body: %v", err)
		}
		if body.MinTokens != body.MaxTokens || !body.IgnoreEOS {
			t.Errorf("length not forced: %+v", body)
		}
		if k := n.Add(1); failEvery > 0 && k%int64(failEvery) == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"message":"overloaded","type":"ServiceUnavailableError","param":null,"code":503}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		think := body.MaxTokens / 2
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		for i := range body.MaxTokens {
			field := "content"
			if i < think {
				field = "reasoning"
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"%s\":\"w\"},\"finish_reason\":null}]}\n\n", field)
			fl.Flush()
			time.Sleep(time.Millisecond)
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", 10+body.MaxTokens, body.MaxTokens)
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestLoadtestWritesRunDirectory(t *testing.T) {
	srv, _ := fakeVLLM(t, 5)
	t.Setenv("TEST_KEY", "sekrit-key")
	dir := filepath.Join(t.TempDir(), "run")
	out, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "test-model", "--api-key-env", "TEST_KEY",
		"--requests", "20", "--rate", "50", "--prompt-tokens", "20", "--think-tokens", "6", "--answer-tokens", "4",
		"--scrape-interval", "20ms", "--out", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Kind     string
		Requests struct{ Total, Completed, Failed int }
		Tokens   struct{ Think, Answer struct{ Mean float64 } }
		Capacity struct {
			NumGPUBlocks int `json:"num_gpu_blocks"`
		}
		KVUsage  struct{ Mean float64 } `json:"kv_usage"`
		LatencyS struct {
			TTFT, TTFA struct{ P50 float64 }
		} `json:"latency_s"`
		Sent *struct{} `json:"latency_from_sent_s"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	// Every fifth request gets a 503: a failed record, not an aborted run.
	if s.Kind != "loadtest" || s.Requests.Total != 20 || s.Requests.Failed != 4 || s.Requests.Completed != 16 {
		t.Fatalf("requests %+v", s.Requests)
	}
	if s.Tokens.Think.Mean != 5 || s.Tokens.Answer.Mean != 5 {
		t.Fatalf("tokens %+v: want the streamed split of 10 tokens", s.Tokens)
	}
	if s.Capacity.NumGPUBlocks != 1000 || s.KVUsage.Mean != 0.25 || s.Sent == nil {
		t.Fatalf("server side: %+v", s)
	}
	if !(s.LatencyS.TTFA.P50 > s.LatencyS.TTFT.P50) {
		t.Fatalf("TTFA %g should come after TTFT %g: thinking streams first", s.LatencyS.TTFA.P50, s.LatencyS.TTFT.P50)
	}
	for _, f := range []string{"results.jsonl", "timeline.csv", "metadata.json", "summary.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("sekrit-key")) {
			t.Fatalf("%s contains the API key", f)
		}
	}
	res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
	if err != nil || len(res) != 20 {
		t.Fatalf("%d results, %v", len(res), err)
	}
	failed := 0
	for _, r := range res {
		if r.Status == workload.StatusHTTPError {
			failed++
			if r.HTTPStatus != 503 || !strings.Contains(r.Error, "overloaded") {
				t.Fatalf("failed record %+v", r)
			}
		}
	}
	if failed != 4 {
		t.Fatalf("%d http errors recorded", failed)
	}
}

func TestLoadtestConnectionRefusedIsARecord(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	dir := t.TempDir()
	// Past the preflight (--no-preflight), each refused connection is a
	// connect_error record, and a run where nothing succeeded fails.
	_, errOut, code := thinkcap(t, "loadtest", "--url", url, "--model", "m", "--requests", "3", "--rate", "100", "--no-preflight",
		"--prompt-tokens", "5", "--think-tokens", "1", "--answer-tokens", "1", "--scrape-interval", "0", "--out", dir, "-o", "json")
	if code != exitCheckFailed || !strings.Contains(errOut, "no request succeeded (3 connect_error") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
	if err != nil || len(res) != 3 || res[0].Status != workload.StatusConnectError {
		t.Fatalf("results %+v, %v", res, err)
	}
}

func TestLoadtestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"loadtest", "--model", "m"},
		{"loadtest", "--url", "http://127.0.0.1:1"},
		{"loadtest", "--url", "http://127.0.0.1:1", "--model", "m", "--endpoint", "embeddings"},
		{"loadtest", "--url", "http://127.0.0.1:1", "--model", "m", "--save-text", "2"},
		{"loadtest", "--url", "http://127.0.0.1:1", "--model", "m", "--stall-timeout", "-1s"},
	} {
		_, errOut, code := thinkcap(t, args...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestLoadtestTwoPhase: a two-phase budget sends phase 2 after phase 1.
func TestLoadtestTwoPhase(t *testing.T) {
	srv, n := fakeVLLM(t, 0)
	t.Setenv("TEST_KEY", "sekrit-key")
	dir := t.TempDir()
	_, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "test-model", "--api-key-env", "TEST_KEY",
		"--requests", "6", "--rate", "100", "--prompt-tokens", "10", "--think-tokens", "8", "--answer-tokens", "2",
		"--think-budget", "4", "--budget-policy", "two-phase", "--scrape-interval", "0", "--out", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
	if err != nil || len(res) != 12 || n.Load() != 12 {
		t.Fatalf("%d results, %d requests served, %v", len(res), n.Load(), err)
	}
	for _, r := range res {
		if !r.OK() || (r.After == "") != r.Continued {
			t.Fatalf("record %+v", r)
		}
	}
}
