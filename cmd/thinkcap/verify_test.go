package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/emulator"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
)

// truthStepModel is the step model the emulated server runs: far from the
// H100 profile's (kv 0.86, compute 0.60, overhead 1.16 ms), as a GPU that
// reaches less of its datasheet would be.
const truthStepModel = `kv_bandwidth_efficiency: 0.62
compute_efficiency: 0.42
step_overhead_ms: 2.3
`

// startEmulatedServer serves Qwen3-8B on one H100 with the given step model
// file and block count at the scale, on a loopback port, as thinkcap serve
// does, until the test ends.
func startEmulatedServer(t *testing.T, stepModel string, blocks int, scale float64) string {
	t.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	model, _ := cat.Model("qwen3-8b")
	gpu, _ := cat.GPU("h100-sxm")
	override, err := profiles.LoadStepCoefficients(stepModel)
	if err != nil {
		t.Fatal(err)
	}
	emu, err := emulator.New(emulator.Config{
		Sim:       sim.Config{Model: model, GPU: gpu, Step: gpu.Step.Merge(override), NumGPUBlocksOverride: blocks},
		TimeScale: scale, Seed: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	go func() { _ = emu.Run(ctx) }()
	srv := httptest.NewServer(emu.Handler())
	t.Cleanup(func() {
		srv.Close()
		emu.Close()
		cancel()
	})
	return srv.URL
}

// TestCalibrateAndVerifyAgainstServe is the README's workflow end to end:
// an emulated server whose step coefficients differ from the profile's is
// load-tested at two rates; calibrate recovers its coefficients within 10%
// from the two runs; verify with the calibration passes, and fails (exit 1)
// when the prediction takes the wrong number of KV blocks or the wrong KV
// dtype; the report and the plots are written.
func TestCalibrateAndVerifyAgainstServe(t *testing.T) {
	if testing.Short() {
		t.Skip("drives an emulated server for about 10 s")
	}
	dir := t.TempDir()
	truthFile := filepath.Join(dir, "truth.yaml")
	if err := os.WriteFile(truthFile, []byte(truthStepModel), 0o644); err != nil {
		t.Fatal(err)
	}
	// Time scale 20: a run's 80 simulated seconds take 4 wall seconds.
	url := startEmulatedServer(t, truthFile, 16000, 20)
	traffic := []string{"--prompt-tokens", "uniform:50..4000", "--think-tokens", "uniform:50..1500", "--answer-tokens", "uniform:20..300",
		"--requests", "150", "--scrape-interval", "50ms"}
	for _, run := range []struct{ name, rate, seed string }{{"lo", "40", "1"}, {"mid", "60", "2"}} {
		args := append([]string{"loadtest", "--url", url, "--model", "Qwen/Qwen3-8B", "--rate", run.rate, "--seed", run.seed,
			"--out", filepath.Join(dir, run.name)}, traffic...)
		if _, errOut, code := thinkcap(t, args...); code != 0 {
			t.Fatalf("loadtest %s: exit %d\n%s", run.name, code, errOut)
		}
	}
	lo, mid := filepath.Join(dir, "lo"), filepath.Join(dir, "mid")

	calFile := filepath.Join(dir, "calibration.yaml")
	out, errOut, code := thinkcap(t, "calibrate", lo, mid, "--out", calFile, "-o", "json")
	if code != 0 {
		t.Fatalf("calibrate: exit %d\n%s", code, errOut)
	}
	var c verify.Calibration
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	truth := c.Before.Merge(mustStep(t, truthFile))
	for _, k := range []struct {
		name      string
		got, want float64
	}{
		{"kv_bandwidth_efficiency", c.After.KVBandwidthEfficiency, truth.KVBandwidthEfficiency},
		{"compute_efficiency", c.After.ComputeEfficiency, truth.ComputeEfficiency},
		{"step_overhead_ms", c.After.StepOverheadMs, truth.StepOverheadMs},
	} {
		if math.Abs(k.got-k.want) > 0.10*k.want {
			t.Errorf("calibrated %s = %.4g, the server's is %.4g: more than 10%% off", k.name, k.got, k.want)
		}
	}
	for _, h := range c.HeldOut {
		if h.Skipped != "" || !(h.After.TPOT < h.Before.TPOT/3) {
			t.Errorf("held out %s: TPOT MAPE %.1f%% → %.1f%% (%s): want it cut to a third or less", h.Run, 100*h.Before.TPOT, 100*h.After.TPOT, h.Skipped)
		}
	}
	if got, err := profiles.LoadStepCoefficients(calFile); err != nil || got != c.After {
		t.Errorf("calibration file reads back as %+v (%v), want %+v", got, err, c.After)
	}
	t.Logf("calibrated %+v; held out %+v", c.After, c.HeldOut)

	report := filepath.Join(dir, "mid.html")
	if out, errOut, code := thinkcap(t, "verify", mid, "--step-model", calFile, "--report", report, "--plot-dir", filepath.Join(dir, "plots")); code != 0 {
		t.Fatalf("verify with the calibration: exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{report, filepath.Join(dir, "plots", "tpot_cdf.png"), filepath.Join(dir, "plots", "kv_usage.png")} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, wrong := range [][]string{{"--num-gpu-blocks-override", "32000"}, {"--kv-cache-dtype", "fp8"}} {
		args := append([]string{"verify", mid, "--step-model", calFile}, wrong...)
		out, errOut, code := thinkcap(t, args...)
		if code != 1 || !strings.Contains(errOut, "kv_usage_mean") {
			t.Errorf("verify %v: exit %d, want 1 with kv_usage_mean failing\n%s%s", wrong, code, out, errOut)
		}
	}
}

func mustStep(t *testing.T, path string) profiles.StepCoefficients {
	t.Helper()
	s, err := profiles.LoadStepCoefficients(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLoadtestPredict: --predict prints the prediction before the load and
// the verification after it; against an emulator running the profile's own
// step model the prediction passes.
func TestLoadtestPredict(t *testing.T) {
	dir := t.TempDir()
	profileStep := filepath.Join(dir, "none.yaml")
	if err := os.WriteFile(profileStep, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := startEmulatedServer(t, profileStep, 4000, 20)
	out, errOut, code := thinkcap(t, "loadtest", "--url", url, "--model", "Qwen/Qwen3-8B", "--requests", "60", "--rate", "40",
		"--prompt-tokens", "uniform:100..1500", "--think-tokens", "uniform:50..600", "--answer-tokens", "50",
		"--scrape-interval", "50ms", "--out", filepath.Join(dir, "run"), "--predict")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	pred, summary, verdict := strings.Index(out, "thinkcap prediction summary"), strings.Index(out, "thinkcap loadtest summary"), strings.Index(out, "verdict: pass")
	if pred < 0 || summary < pred || verdict < summary {
		t.Errorf("want the prediction, then the load test, then a passing verdict; got\n%s", out)
	}
	if !strings.Contains(out, "4000 KV blocks") {
		t.Errorf("the prediction did not take the server's block count:\n%s", out)
	}
}

// TestVerifyBadInput: a missing run, bad tolerances, an unknown coefficient
// or --predict with JSON exit 2 with the flag or file named.
func TestVerifyBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", filepath.Join(dir, "nope")}, "metadata.json"},
		{[]string{"verify", dir, "--tolerance", "ttft_p50=lots"}, "--tolerance"},
		{[]string{"verify", dir, "--tolerance", "latency=5%"}, "unknown metric"},
		{[]string{"verify", dir, "-o", "yaml"}, "-o"},
		{[]string{"calibrate", filepath.Join(dir, "nope")}, "metadata.json"},
		{[]string{"calibrate"}, "requires at least 1 arg"},
		{[]string{"loadtest", "--url", "http://127.0.0.1:1", "--model", "m", "--predict", "-o", "json"}, "--predict"},
		// A bad tolerance is caught before any load is sent.
		{[]string{"loadtest", "--url", "http://127.0.0.1:1", "--model", "Qwen/Qwen3-8B", "--requests", "3", "--out", filepath.Join(dir, "lt"),
			"--predict", "--tolerance", "ttft_p50=lots"}, "--tolerance"},
	} {
		_, errOut, code := thinkcap(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "lt", "results.jsonl")); err == nil {
		t.Error("loadtest --predict with a bad --tolerance sent its load before failing")
	}
}
