package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/loadtest"
)

func readSweep(t *testing.T, dir string) loadtest.SweepOutcome {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out loadtest.SweepOutcome
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLoadtestSweepStopsAtSaturation: a rate sweep against an emulated
// server with a small KV cache runs the light point, finds the heavy one
// saturated (its queue grew over the schedule), skips the heavier one, and
// writes a run directory per point run, sweep.json with the predicted side
// (--predict) and the capacity plots.
func TestLoadtestSweepStopsAtSaturation(t *testing.T) {
	if testing.Short() {
		t.Skip("drives an emulated server for about 10 s")
	}
	dir, _, url := truthServer(t, 4000, 20)
	out := filepath.Join(dir, "sweep")
	stdout, errOut, code := thinkcap(t, "loadtest", "--url", url, "--model", "Qwen/Qwen3-8B", "--gpu", "h100-sxm",
		"--prompt-tokens", "uniform:50..4000", "--think-tokens", "uniform:50..1500", "--answer-tokens", "uniform:20..300",
		"--requests", "40", "--scrape-interval", "50ms", "--rate", "800,20,400", "--out", out, "--predict")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	s := readSweep(t, out)
	if len(s.Rows) != 3 {
		t.Fatalf("%d rows: %+v", len(s.Rows), s.Rows)
	}
	light, heavy, skipped := s.Rows[0], s.Rows[1], s.Rows[2]
	if light.Point.Rate != 20 || heavy.Point.Rate != 400 || skipped.Point.Rate != 800 {
		t.Fatalf("points not lightest first: %v %v %v", light.Point, heavy.Point, skipped.Point)
	}
	if light.Saturated != "" || light.Measured == nil || light.Predicted == nil {
		t.Errorf("the light point: saturated %q, measured %v, predicted %v", light.Saturated, light.Measured != nil, light.Predicted != nil)
	}
	if !strings.Contains(heavy.Saturated, "queue grew") || !skipped.Skipped || skipped.Measured != nil {
		t.Errorf("heavy point saturated %q; the heavier one skipped %v", heavy.Saturated, skipped.Skipped)
	}
	// The emulator is the simulator with other coefficients: the
	// prediction with the profile's is faster per token than measured.
	if p, m := light.Predicted.LatencyS.TPOT.P50, light.Measured.LatencyS.TPOT.P50; !(p < m) {
		t.Errorf("TPOT p50 predicted %g, measured %g (server time): the slow emulator should be slower", p, m)
	}
	for _, f := range []string{"rate-20/summary.json", "rate-400/results.jsonl", "sweep.png", "sweep_latency.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "rate-800")); err == nil {
		t.Error("the skipped point has a run directory")
	}
	for _, w := range []string{"rate-400 saturated: the queue grew", "skipped", "predicted tok/s", "emulator time scale 20"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("table lacks %q:\n%s", w, stdout)
		}
	}
}

// TestLoadtestSweepRefusals: the sweep's flags that contradict each other
// are refused before any load (what a sweep refuses of a run's options is
// loadtest's TestSweepRefusals).
func TestLoadtestSweepRefusals(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "1,2", "--concurrency", "1,2"}, "varies one of them"},
		{[]string{"--sweep", "2", "--rate", "1,2"}, "not both"},
		{[]string{"--rate", "1,-2"}, "rate"},
		{[]string{"--sweep", "-1"}, "--sweep -1"},
	} {
		args := append([]string{"loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "2", "--out", filepath.Join(t.TempDir(), "x")}, c.args...)
		if _, errOut, code := thinkcap(t, args...); code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, exitBadInput, c.want, errOut)
		}
	}
}
