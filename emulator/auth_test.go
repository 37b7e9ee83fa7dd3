package emulator

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// With --api-key, /v1 answers 401 {"error": "Unauthorized"} to a request
// without one of the keys, as vLLM does; probes and scrapes stay open.
func TestAPIKeyGuardsTheAPI(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.APIKeys = []string{"k1", "k2"} })
	cases := []struct {
		method, path, auth string
		want               int
	}{
		{"GET", "/v1/models", "", 401},
		{"GET", "/v1/models", "Bearer wrong", 401},
		{"GET", "/v1/models", "Basic k1", 401},
		{"GET", "/v1/models", "Bearer k1", 200},
		{"GET", "/v1/models", "bearer k2", 200},
		{"POST", "/v1/chat/completions", "Bearer k1x", 401},
		{"OPTIONS", "/v1/models", "", 405}, // a preflight passes the guard
		{"GET", "/health", "", 200},
		{"GET", "/version", "", 200},
		{"GET", "/metrics", "", 200},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, url+c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s (%q): %d %s, want %d", c.method, c.path, c.auth, resp.StatusCode, body, c.want)
		}
		if c.want == 401 && strings.TrimSpace(string(body)) != `{"error":"Unauthorized"}` {
			t.Errorf("%s %s: body %s, want vLLM's", c.method, c.path, body)
		}
	}
}

// Without keys nothing is guarded.
func TestNoAPIKeyNoGuard(t *testing.T) {
	_, url := startServer(t, nil)
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/v1/models without keys: %d", resp.StatusCode)
	}
}
