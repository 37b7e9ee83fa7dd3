package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/loadgen"
)

// TestLoadtestAgainstSGLang: a server answering as SGLang does (its real
// /v1/models, /metrics, server info and reasoning stream, from
// loadgen/testdata/sglang) is load-tested like vLLM: detected as SGLang,
// its version from its server info, the server's side of the summary from
// its metrics under SGLang's names.
func TestLoadtestAgainstSGLang(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "loadgen", "testdata", "sglang", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	models := []byte(strings.ReplaceAll(string(read("models-sglang-nvcr-25.10.json")), "Qwen/Qwen3-0.6B", "Qwen/Qwen3.8-Flash-Next"))
	metrics, info, stream := read("metrics-docs-example-v0.3.x-under-load.txt"), read("server-info-qwen3.8-v0.5.21.dev-trimmed.json"), read("chat-stream-reasoning-qwen3-usage.sse")
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(models) })
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(metrics) })
	mux.HandleFunc("/get_server_info", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(info) })
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := filepath.Join(t.TempDir(), "run")
	_, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--requests", "5", "--rate", "50",
		"--prompt-tokens", "10", "--think-tokens", "20", "--answer-tokens", "8", "--force-length", "off", "--out", dir, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "the server is SGLang") {
		t.Errorf("no word of SGLang: %s", errOut)
	}
	meta, err := loadgen.ReadMetadata(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Engine != loadgen.EngineSGLang || meta.ServerVersion != "0.5.21.dev889+gd8afe1af9" {
		t.Errorf("engine %q, server version %q", meta.Engine, meta.ServerVersion)
	}
	s, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	for _, w := range []string{`"running": {`, `"peak": 162`, `"think": {`} {
		if !strings.Contains(string(s), w) {
			t.Errorf("summary lacks %q:\n%s", w, s)
		}
	}
	if _, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--engine", "tgi", "--requests", "1", "--out", filepath.Join(t.TempDir(), "x")); code != exitBadInput || !strings.Contains(errOut, "--engine") {
		t.Errorf("--engine tgi: exit %d: %s", code, errOut)
	}
}
