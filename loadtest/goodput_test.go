package loadtest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
)

// TestGoodput: Goodput counts the requests that met every per-request
// SLO, in summary.json and the table, and goodput thresholds fail a run
// that misses them; goodput thresholds without SLOs are refused before
// anything is sent.
func TestGoodput(t *testing.T) {
	srv, _ := vllmtest.Slow(t, 2*time.Millisecond)
	run := func(slos string, json bool, specs ...string) (string, string, int) {
		o := testOptions(srv.URL, filepath.Join(t.TempDir(), "run"), synthetic(t, 6, 50, "8", "4", "4"))
		o.Model, o.ScrapeInterval, o.JSON, o.Thresholds = "slow-model", time.Second, json, thresholds(t, specs...)
		if slos != "" {
			o.Goodput = goodput(t, slos)
		}
		return load(t, o)
	}
	counted := func(out string) (good, requests int, perS float64) {
		var s struct {
			Goodput *struct {
				Good, Requests int
				RequestsPerS   float64            `json:"requests_per_s"`
				SLOs           map[string]float64 `json:"slo_s"`
			}
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Goodput == nil {
			t.Fatalf("no goodput in the summary (%v): %s", err, out)
		}
		return s.Goodput.Good, s.Goodput.Requests, s.Goodput.RequestsPerS
	}
	// Tokens 2 ms apart: every request meets a 50 ms TPOT and none 0.5 ms.
	out, errOut, code := run("ttft=10s,tpot=50ms", true)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if good, n, perS := counted(out); good != 6 || n != 6 || perS <= 0 {
		t.Errorf("loose SLOs: %d of %d good at %g req/s, want 6 of 6", good, n, perS)
	}
	out, errOut, code = run("tpot:0.5", true)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if good, n, _ := counted(out); good != 0 || n != 6 {
		t.Errorf("tight SLO: %d of %d good, want 0 of 6", good, n)
	}
	// The table says it; a goodput threshold decides the exit.
	out, errOut, code = run("tpot=50ms", false, "goodput_fraction>=90%")
	if code != exitOK || !strings.Contains(out, "goodput req/s") || !strings.Contains(out, "6 (100.0%)") {
		t.Errorf("exit %d, table lacks the goodput rows:\n%s\n%s", code, out, errOut)
	}
	_, errOut, code = run("tpot=0.5ms", false, "goodput_fraction>=90%")
	if code != exitCheckFailed || !strings.Contains(errOut, "goodput_fraction>=90%") {
		t.Errorf("a missed goodput threshold: exit %d, want %d: %s", code, exitCheckFailed, errOut)
	}
	// A goodput threshold needs the SLOs (bad SLOs are the command's
	// TestLoadtestGoodputFlags).
	if _, errOut, code := run("", false, "goodput_requests>1"); code != exitBadInput || !strings.Contains(errOut, "give them") {
		t.Errorf("a goodput threshold without SLOs: exit %d, want %d: %s", code, exitBadInput, errOut)
	}
}
