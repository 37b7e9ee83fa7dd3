package emulator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// testSim is Qwen3-8B on one H100.
func testSim(t testing.TB) sim.Config {
	t.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	model, err := cat.Model("qwen3-8b")
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := cat.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	return sim.Config{Model: model, GPU: gpu}
}

// startServer runs an emulator on a loopback port until the test ends.
func startServer(t testing.TB, mutate func(*Config)) (*Server, string) {
	t.Helper()
	cfg := Config{Sim: testSim(t), TimeScale: 20, Seed: 1}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		cancel()
		<-done
	})
	return s, hs.URL
}

// post sends a JSON body.
func post(t testing.TB, url, body string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// postChat posts a non-streaming chat request to the server at url and
// returns its completion, which must have one choice, with the words of
// the choice's thinking and answer counted.
func postChat(t testing.TB, url, body string) (c vllmapi.ChatCompletion, think, answer int) {
	t.Helper()
	resp := post(t, url+vllmapi.PathChatCompletions, body)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := json.Unmarshal(b, &c); err != nil || len(c.Choices) != 1 {
		t.Fatalf("%s: %s %v", body, b, err)
	}
	m := c.Choices[0].Message
	if m.Reasoning != nil {
		think = len(strings.Fields(*m.Reasoning))
	}
	return c, think, len(strings.Fields(*m.Content))
}

// readEvents reads an SSE body into its data payloads.
func readEvents(t testing.TB, r io.Reader) (events []string, done bool) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not an event", line)
		}
		if data == "[DONE]" {
			return events, true
		}
		events = append(events, data)
	}
	return events, false
}

// shape is a JSON value's structure: keys and types, not values.
func shape(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = shape(e)
		}
		return m
	case []any:
		if len(x) == 0 {
			return "array"
		}
		return []any{shape(x[0])}
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

func decodeAny(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}
