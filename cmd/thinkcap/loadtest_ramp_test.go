package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
)

// TestLoadtestRampUp: --ramp-up stretches an open loop's schedule onto the
// ramp (sparse first, the full rate after) and leaves the ramp's requests
// out of the statistics; --max-rate is refused with a closed loop.
func TestLoadtestRampUp(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	dir := filepath.Join(t.TempDir(), "run")
	out, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "40", "--rate", "100",
		"--arrival", "constant", "--prompt-tokens", "8", "--think-tokens", "2", "--answer-tokens", "2",
		"--ramp-up", "linear:200ms", "--out", dir, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "ramping up linear over 0.2s") {
		t.Errorf("the start line does not say so: %s", errOut)
	}
	f, err := os.Open(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sched []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			ScheduledS float64 `json:"scheduled_s"`
		}
		_ = json.Unmarshal(sc.Bytes(), &r)
		sched = append(sched, r.ScheduledS)
	}
	// 40 requests 10 ms apart; the linear ramp's 200 ms cover the first
	// 100 ms of schedule (10 requests), sparse at first.
	if len(sched) != 40 {
		t.Fatalf("%d records", len(sched))
	}
	inRamp := 0
	for _, s := range sched {
		if s < 0.2 {
			inRamp++
		}
	}
	if inRamp < 9 || inRamp > 11 {
		t.Errorf("%d requests scheduled in the 200 ms ramp, want about 10", inRamp)
	}
	var s struct {
		Requests struct{ Total int }
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Requests.Total != 40-inRamp {
		t.Errorf("%d requests in the statistics, want the %d after the ramp", s.Requests.Total, 40-inRamp)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ramp-up", "step:1s"}, "linear or exponential"},
		{[]string{"--max-rate", "5", "--concurrency", "2"}, "without --concurrency"},
	} {
		args := append([]string{"loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "2", "--out", filepath.Join(t.TempDir(), "x")}, c.args...)
		if _, errOut, code := thinkcap(t, args...); code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, exitBadInput, c.want, errOut)
		}
	}
}
