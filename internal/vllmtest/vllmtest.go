// Package vllmtest serves small vLLM-like servers on loopback for the
// tests of the packages and commands that drive one: they stream the
// requested tokens (reasoning first), answer /v1/models and /metrics.
package vllmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// Fake is a small vLLM-like server on loopback: it streams the
// requested number of tokens (reasoning first, then content) with a usage
// chunk, answers /v1/models and /metrics, and fails every failEvery-th
// request with vLLM's error JSON. Every chat request must carry the
// bearer key "sekrit-key" and forced lengths; the count is of chat requests.
func Fake(t testing.TB, failEvery int) (*httptest.Server, *atomic.Int64) {
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

// Slow is a vLLM-like server on loopback that streams one token every
// tokenGap (reasoning first, then content), so a load test against it
// lasts long enough to be stopped mid-run. It serves /v1/models, and
// /metrics with the queue-time histogram growing by one observation of
// 0.2 s per finished request.
func Slow(t testing.TB, tokenGap time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var finished atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"slow-model","object":"model","root":"slow-model","max_model_len":4096}]}`)
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		n := finished.Load()
		fmt.Fprint(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"slow-model\"} 1\n")
		fmt.Fprint(w, "# TYPE vllm:request_queue_time_seconds histogram\n")
		for _, le := range []string{"0.3", "0.5", "+Inf"} {
			fmt.Fprintf(w, "vllm:request_queue_time_seconds_bucket{engine=\"0\",le=\"%s\",model_name=\"slow-model\"} %d\n", le, n)
		}
		fmt.Fprintf(w, "vllm:request_queue_time_seconds_count{engine=\"0\",model_name=\"slow-model\"} %d\n", n)
		fmt.Fprintf(w, "vllm:request_queue_time_seconds_sum{engine=\"0\",model_name=\"slow-model\"} %g\n", 0.2*float64(n))
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens int `json:"max_completion_tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request body: %v", err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		fl.Flush()
		for i := range body.MaxTokens {
			field, text := "content", "answer"
			if i < body.MaxTokens/2 {
				field, text = "reasoning", "thought"
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"%s\":\" %s\"},\"finish_reason\":null}]}\n\n", field, text)
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(tokenGap):
			}
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", 10+body.MaxTokens, body.MaxTokens)
		fmt.Fprint(w, "data: [DONE]\n\n")
		finished.Add(1)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &finished
}
