package loadgen

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// modelsServer serves a real /v1/models capture from testdata/models and
// vLLM's /version, checking the bearer token.
func modelsServer(t *testing.T, fixture, version string) *httptest.Server {
	t.Helper()
	models, err := os.ReadFile(filepath.Join("testdata", "models", fixture))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k3y" {
			http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		switch {
		case r.URL.Path == "/v1/models":
			_, _ = w.Write(models)
		case r.URL.Path == "/version" && version != "":
			_, _ = w.Write([]byte(`{"version":"` + version + `"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchModelsFixtures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		fixture, model string
		maxLen         int64
		ids            []string
	}{
		{"models-qwen3-8b-a100-vllm-0.9.json", "Qwen/Qwen3-8B", 40960, []string{"Qwen/Qwen3-8B"}},
		{"models-qwen2.5-7b-vllm-0.28.0.json", "Qwen/Qwen2.5-7B-Instruct", 32768, []string{"Qwen/Qwen2.5-7B-Instruct"}},
		// LoRA adapters: max_model_len null, parent set; they serve with
		// the base model's context.
		{"models-qwen2.5-coder-1.5b-with-lora-adapters-2025-01.json", "lora-2", 32768,
			[]string{"Qwen/Qwen2.5-Coder-1.5B-Instruct", "lora-1", "lora-2"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			srv := modelsServer(t, tc.fixture, "")
			// The OpenAI base URL (…/v1) works as well as the root.
			info, err := FetchModels(ctx, srv.Client(), srv.URL+"/v1", "k3y")
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range info.Models {
				ids = append(ids, m.ID)
			}
			if !slices.Equal(ids, tc.ids) {
				t.Errorf("ids = %v", ids)
			}
			if got := info.MaxModelLen(tc.model); got != tc.maxLen {
				t.Errorf("MaxModelLen(%s) = %d, want %d", tc.model, got, tc.maxLen)
			}
			if got := info.MaxModelLen(""); got != tc.maxLen {
				t.Errorf("MaxModelLen(\"\") = %d", got)
			}
			if c, ok := info.Find(tc.model); !ok || c.Root == "" || c.OwnedBy != "vllm" {
				t.Errorf("card %+v", c)
			}
		})
	}
	srv := modelsServer(t, "models-qwen2.5-coder-1.5b-with-lora-adapters-2025-01.json", "")
	info, err := FetchModels(ctx, nil, srv.URL, "k3y")
	if err != nil {
		t.Fatal(err)
	}
	lora, _ := info.Find("lora-1")
	if lora.Parent != "Qwen/Qwen2.5-Coder-1.5B-Instruct" || lora.MaxModelLen != 0 || lora.Root != "bharati2324/Qwen2.5-1.5B-Instruct-Code-LoRA-r16v2" {
		t.Errorf("lora card %+v", lora)
	}
	if _, err := FetchModels(ctx, nil, srv.URL, "wrong"); err == nil || !strings.Contains(err.Error(), "http 401") {
		t.Errorf("wrong key: %v", err)
	}
}

func TestFetchVersion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := modelsServer(t, "models-qwen3-8b-a100-vllm-0.9.json", "0.11.0")
	if v, err := FetchVersion(ctx, nil, srv.URL+"/v1/", "k3y"); err != nil || v != "0.11.0" {
		t.Errorf("version %q, %v", v, err)
	}
	// Another OpenAI-compatible server: no /version, no error.
	none := modelsServer(t, "models-qwen3-8b-a100-vllm-0.9.json", "")
	if v, err := FetchVersion(ctx, nil, none.URL, "k3y"); err != nil || v != "" {
		t.Errorf("absent version %q, %v", v, err)
	}
	if _, err := FetchVersion(ctx, nil, "not a url", ""); err == nil {
		t.Error("bad url: no error")
	}
}

func TestRedactCommandLine(t *testing.T) {
	args := []string{
		"thinkcap", "loadtest", "--url", "http://user:hunter2@gpu-box:8000/v1?api_key=sk-q",
		"--api-key", "sk-live-1", "--api-key=sk-live-2", "-api-key-env", "MY_KEY",
		"--max-tokens", "512", "--prompt-tokens=100", "--hf-token", "hf_abc",
		"-H", "Authorization: Bearer sk-live-3", "--header=X-Api-Key: sk-live-4", "--header", "X-Trace: on",
		"--model", "Qwen/Qwen3-8B", "--note", "key is sk-live-5 here",
	}
	got := RedactCommandLine(args, "sk-live-5")
	joined := strings.Join(got, " ")
	for _, secret := range []string{"hunter2", "sk-q", "sk-live-1", "sk-live-2", "MY_KEY", "hf_abc", "sk-live-3", "sk-live-4", "sk-live-5"} {
		if strings.Contains(joined, secret) {
			t.Errorf("%q survives: %s", secret, joined)
		}
	}
	for _, keep := range []string{"--max-tokens 512", "--prompt-tokens=100", "--model Qwen/Qwen3-8B", "X-Trace: on", "--api-key=REDACTED", "Authorization: REDACTED", "gpu-box:8000"} {
		if !strings.Contains(joined, keep) {
			t.Errorf("%q lost: %s", keep, joined)
		}
	}
	if len(got) != len(args) || args[5] != "sk-live-1" {
		t.Error("RedactCommandLine must return a same-length copy and leave args alone")
	}
}

func TestWriteMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metadata.json")
	start := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	m := Metadata{
		Command:       []string{"thinkcap", "loadtest", "--api-key", "sk-secret", "--url", "http://gpu:8000"},
		TargetURL:     "http://admin:pw-secret@gpu:8000/v1",
		ServerVersion: "0.11.0",
		Model:         "Qwen/Qwen3-8B",
		MaxModelLen:   40960,
		CacheConfig:   &CacheConfig{NumGPUBlocks: 2375, BlockSize: 16, CacheDtype: "auto", Engines: 1, Labels: map[string]string{"num_gpu_blocks": "2375"}},
		Start:         start,
		End:           start.Add(time.Minute),
		Scrape:        &ScrapeStats{Attempts: 60, Failures: 1, LastError: "scrape: http 500"},
		Options:       map[string]any{"rate": 10.0, "api_key": "sk-opt", "warmup_s": 5},
	}
	if err := WriteMetadata(path, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sk-secret", "pw-secret", "sk-opt"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("%q written:\n%s", secret, b)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"thinkcap_version", "command", "target_url", "server_version", "model", "max_model_len", "cache_config", "start", "end", "scrape", "options"} {
		if _, ok := back[k]; !ok {
			t.Errorf("key %s missing:\n%s", k, b)
		}
	}
	if back["thinkcap_version"] == "" || back["max_model_len"] != 40960.0 {
		t.Errorf("%s", b)
	}
	if m.Command[3] != "sk-secret" {
		t.Error("WriteMetadata modified its argument")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
	if err := WriteMetadata(filepath.Join(t.TempDir(), "no", "such", "dir", "m.json"), m); err == nil {
		t.Error("missing directory: no error")
	}
}
