package loadtest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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
		if code == 0 && !slices.Contains(c.models, body.Model) {
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
