package loadtest

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/loadgen"
)

// TestHeadersAndExtraBody: Headers reach every route the load
// test calls (models, metrics, chat), a value from the environment
// included; ExtraBody's fields are in every chat body; no header value
// is written to the run directory.
func TestHeadersAndExtraBody(t *testing.T) {
	backend, _ := vllmtest.Slow(t, time.Millisecond)
	var mu sync.Mutex
	seen := map[string][]string{} // path → X-Tenant / X-Gw-Token seen
	var bodies []map[string]any
	gw := vllmtest.Gateway(t, backend.URL, func(w http.ResponseWriter, r *http.Request, chat []byte) bool {
		mu.Lock()
		seen[r.URL.Path] = append(seen[r.URL.Path], r.Header.Get("X-Tenant")+"|"+r.Header.Get("X-Gw-Token"))
		if chat != nil {
			var m map[string]any
			_ = json.Unmarshal(chat, &m)
			bodies = append(bodies, m)
		}
		mu.Unlock()
		if r.Header.Get("X-Gw-Token") != "s3cret-gw" {
			http.Error(w, "gateway: no token", http.StatusUnauthorized)
			return false
		}
		return true
	})
	env := map[string]string{"GW_TOKEN_FOR_TEST": "s3cret-gw"}
	headers, err := loadgen.ParseHeaders([]string{"X-Tenant=blue", "X-Gw-Token: env:GW_TOKEN_FOR_TEST", "X-Literal=lit-value-77"},
		func(name string) string { return env[name] })
	if err != nil {
		t.Fatal(err)
	}
	extra, err := loadgen.ParseExtraBody(`{"top_p": 0.5, "chat_template_kwargs": {"enable_thinking": true}}`)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	o := testOptions(gw.URL, dir, synthetic(t, 4, 50, "8", "2", "2"))
	o.Model, o.ScrapeInterval, o.Headers, o.ExtraBody = "slow-model", time.Second, headers, extra
	_, errOut, code := load(t, o)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"/v1/models", "/metrics", "/v1/chat/completions"} {
		if len(seen[path]) == 0 {
			t.Errorf("%s never called", path)
		}
		for _, h := range seen[path] {
			if h != "blue|s3cret-gw" {
				t.Errorf("%s saw headers %q", path, h)
			}
		}
	}
	if len(bodies) != 4 {
		t.Fatalf("%d chat bodies", len(bodies))
	}
	for _, b := range bodies {
		kw, _ := b["chat_template_kwargs"].(map[string]any)
		if b["top_p"] != 0.5 || kw["enable_thinking"] != true || b["model"] != "slow-model" {
			t.Errorf("body %v lacks --extra-body's fields", b)
		}
	}
	// No value of a header in any file of the run.
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, secret := range []string{"s3cret-gw", "lit-value-77"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds a header value %q", filepath.Base(f), secret)
			}
		}
	}
}
