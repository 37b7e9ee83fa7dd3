package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
)

// TestLoadtestGoodput: --goodput counts the requests that met every
// per-request SLO, in summary.json and the table, and goodput thresholds
// fail a run that misses them; goodput thresholds without SLOs and bad
// SLOs are refused before anything is sent.
func TestLoadtestGoodput(t *testing.T) {
	srv, _ := vllmtest.Slow(t, 2*time.Millisecond)
	run := func(args ...string) (string, string, int) {
		dir := filepath.Join(t.TempDir(), "run")
		base := []string{"loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "6", "--rate", "50",
			"--prompt-tokens", "8", "--think-tokens", "4", "--answer-tokens", "4", "--out", dir}
		return thinkcap(t, append(base, args...)...)
	}
	goodput := func(out string) (good, requests int, perS float64) {
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
	out, errOut, code := run("--goodput", "ttft=10s,tpot=50ms", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if good, n, perS := goodput(out); good != 6 || n != 6 || perS <= 0 {
		t.Errorf("loose SLOs: %d of %d good at %g req/s, want 6 of 6", good, n, perS)
	}
	out, errOut, code = run("--goodput", "tpot:0.5", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if good, n, _ := goodput(out); good != 0 || n != 6 {
		t.Errorf("tight SLO: %d of %d good, want 0 of 6", good, n)
	}
	// The table says it; a goodput threshold decides the exit.
	out, errOut, code = run("--goodput", "tpot=50ms", "--threshold", "goodput_fraction>=90%")
	if code != exitOK || !strings.Contains(out, "goodput req/s") || !strings.Contains(out, "6 (100.0%)") {
		t.Errorf("exit %d, table lacks the goodput rows:\n%s\n%s", code, out, errOut)
	}
	_, errOut, code = run("--goodput", "tpot=0.5ms", "--threshold", "goodput_fraction>=90%")
	if code != exitCheckFailed || !strings.Contains(errOut, "goodput_fraction>=90%") {
		t.Errorf("a missed goodput threshold: exit %d, want %d: %s", code, exitCheckFailed, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--threshold", "goodput_requests>1"}, "give them"},
		{[]string{"--goodput", "tpot=50"}, "--goodput: "},
		{[]string{"--goodput", "itl=5ms"}, "unknown metric"},
	} {
		if _, errOut, code := run(c.args...); code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, exitBadInput, c.want, errOut)
		}
	}
}
