package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/emulator"
	"github.com/thinkcap/thinkcap/internal/approx"
	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
	"github.com/thinkcap/thinkcap/workload"
)

// truthStepModel is the step model the emulated server runs: far from the
// H100 profile's, as a GPU that reaches less of its datasheet and whose
// kernels cost more a layer would be.
const truthStepModel = `kv_bandwidth_efficiency: 0.42
compute_efficiency: 0.32
per_layer_overhead_us: 60
`

// startEmulatedServer serves Qwen3-8B on one H100 with the given step model
// file and block count at the scale, on a loopback port, as thinkcap serve
// does, until the test ends.
// truthServer writes truthStepModel into a fresh test directory and
// starts an emulated server on it: the directory, the step-model file and
// the server's URL.
func truthServer(t *testing.T, blocks int, scale float64) (dir, truthFile, url string) {
	t.Helper()
	dir = t.TempDir()
	truthFile = filepath.Join(dir, "truth.yaml")
	if err := os.WriteFile(truthFile, []byte(truthStepModel), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, truthFile, startEmulatedServer(t, truthFile, blocks, scale)
}

func startEmulatedServer(t *testing.T, stepModel string, blocks int, scale float64) string {
	t.Helper()
	model, gpu := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
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
	_, srvURL := serveEmulator(t, emu, 2*time.Minute)
	return srvURL
}

// TestCalibrateAndVerifyAgainstServe is docs/verify.md's workflow end to end:
// an emulated server whose step coefficients differ from the profile's is
// load-tested at two rates; calibrate recovers its coefficients within 10%
// from the two runs; verify with the calibration passes, and fails (exit 1)
// when the prediction takes the wrong number of KV blocks or the wrong KV
// dtype; the report and the plots are written.
func TestCalibrateAndVerifyAgainstServe(t *testing.T) {
	if testing.Short() {
		t.Skip("drives an emulated server for about 10 s")
	}
	// Time scale 20: a run's 80 simulated seconds take 4 wall seconds.
	dir, truthFile, url := truthServer(t, 16000, 20)
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
	var c calibrate.Calibration
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
		{"per_layer_overhead_us", c.After.PerLayerOverheadUs, truth.PerLayerOverheadUs},
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
	if data, err := os.ReadFile(calFile); err != nil || approx.OverPrecise(string(data)) != "" {
		t.Errorf("calibration file with digits the fit did not determine (%v):\n%s", err, data)
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
		"--scrape-interval", "50ms", "--out", filepath.Join(dir, "run"), "--predict",
		// This test is the plumbing of --predict; the peaks of a 60-request,
		// 1.5 s run rest on a scrape or two and on the wall clock's jitter
		// at time scale 20 (seen -20% on an idle machine), so they get a
		// wide bound. Fidelity is TestCalibrateAndVerifyAgainstServe's.
		"--tolerance", "kv_usage_peak=50%,running_peak=50%")
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

// defaultDeployment is the deployment verify and calibrate assume with no
// flags: the deployment flags' defaults.
func defaultDeployment(t *testing.T) sim.Config {
	t.Helper()
	var d deploymentFlags
	fs := pflag.NewFlagSet("deployment", pflag.ContinueOnError)
	d.register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	cat, err := d.catalog()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := d.config(cat)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runDir is a handmade run directory.
type runDir struct {
	results  []workload.Result
	timeline string         // timeline.csv, none when ""
	state    map[string]any // metadata.json's run-state keys
	tail     string         // appended to results.jsonl: a partial last line
}

// write writes the run directory under parent and returns its path.
func (rd runDir) write(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := loadgen.Metadata{Command: []string{"thinkcap", "loadtest"}, TargetURL: "http://127.0.0.1:8000",
		ServerVersion: "0.11.0", Model: "Qwen/Qwen3-8B"}
	if err := loadgen.WriteMetadata(filepath.Join(dir, "metadata.json"), meta); err != nil {
		t.Fatal(err)
	}
	if rd.state != nil {
		data, _ := os.ReadFile(filepath.Join(dir, "metadata.json"))
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		maps.Copy(m, rd.state)
		data, _ = json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, "metadata.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for i := range rd.results {
		line, err := json.Marshal(&rd.results[i])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(rd.tail)
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if rd.timeline != "" {
		if err := os.WriteFile(filepath.Join(dir, "timeline.csv"), []byte(rd.timeline), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// simulatedRunDir is a load test, as it would have been recorded, of a
// server that is exactly the default deployment: n requests at the rate,
// with a timeline unless noTimeline.
func simulatedRunDir(t *testing.T, n int, rate float64, seed uint64, noTimeline bool) runDir {
	t.Helper()
	cfg := defaultDeployment(t)
	reqs, err := workload.Synthetic{Requests: n, RatePerS: rate, Seed: seed, Classes: []workload.Class{
		{Name: "mixed", Share: 1, Prompt: simtest.Dist(t, "uniform:50..3000"), Think: simtest.Dist(t, "uniform:50..800"), Answer: simtest.Dist(t, "uniform:20..200")},
	}}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Run(cfg, reqs, sim.Options{Timeline: !noTimeline})
	if err != nil {
		t.Fatal(err)
	}
	var rd runDir
	for _, res := range rep.Results {
		res.SentS, res.ScheduledS = res.ArrivalS, res.ArrivalS
		res.QueueS, res.Preemptions, res.Replica = 0, 0, 0
		rd.results = append(rd.results, res)
	}
	if !noTimeline {
		var b strings.Builder
		b.WriteString("time_s,replica,kv_usage,running,waiting,preemptions\n")
		for _, s := range rep.Timeline {
			fmt.Fprintf(&b, "%g,0,%g,%d,%d,%d\n", s.TimeS, s.KVUsage, s.Running, s.Waiting, s.Preemptions)
		}
		rd.timeline = b.String()
	}
	return rd
}

// TestVerifyNoData: a run where nothing, or too little, was measured, is
// not a pass: the verdict is "no data" and the exit status 1. A metric
// never measured (KV usage without a scrape) is "no data", not a pass, and
// the JSON encodes it as null.
func TestVerifyNoData(t *testing.T) {
	dir := t.TempDir()
	var notFound runDir
	for i := range 200 {
		notFound.results = append(notFound.results, workload.Result{
			Request: workload.Request{ID: fmt.Sprint(i), ArrivalS: float64(i) / 10, PromptTokens: 100},
			Status:  workload.StatusHTTPError, HTTPStatus: 404, Error: "404 Not Found", E2ES: 0.002,
			ScheduledS: float64(i) / 10, SentS: float64(i) / 10,
		})
	}
	all404 := notFound.write(t, dir, "404")
	few := simulatedRunDir(t, 10, 2, 1, false).write(t, dir, "few")
	unscraped := simulatedRunDir(t, 60, 4, 2, true).write(t, dir, "unscraped")

	for _, c := range []struct {
		name     string
		args     []string
		code     int
		want     []string // in stdout
		wantErr  string
		unwanted string
	}{
		{"all 404", []string{"verify", all404}, 1, []string{"verdict: no data: 0 requests compared (need at least 20)", "200 failed ones not replayed"}, "no data", "verdict: pass"},
		{"too few", []string{"verify", few}, 1, []string{"verdict: no data: 10 requests compared (need at least 20)"}, "no data", "verdict: pass"},
		{"too few, lower minimum", []string{"verify", few, "--min-requests", "5"}, 0, []string{"verdict: pass"}, "", "no data:"},
		{"KV never scraped", []string{"verify", unscraped}, 0, []string{"verdict: pass", "without data: ttft_engine_mean, itl_mean, kv_usage_mean, kv_usage_peak, running_peak, preemptions)"}, "", "no data:"},
		{"bad minimum", []string{"verify", few, "--min-requests", "-1"}, 2, nil, "--min-requests", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := thinkcap(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.wantErr) || (c.unwanted != "" && strings.Contains(out, c.unwanted)) {
				t.Errorf("exit %d, want %d (stderr naming %q, no %q)\n%s%s", code, c.code, c.wantErr, c.unwanted, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}

	// The KV checks in the table and the JSON: no data, not a pass.
	out, _, _ := thinkcap(t, "verify", unscraped)
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "KV usage") && (!strings.Contains(l, "no data") || strings.Contains(l, "pass")) {
			t.Errorf("KV line %q: want no data", l)
		}
	}
	out, errOut, code := thinkcap(t, "verify", unscraped, "-o", "json")
	if code != 0 {
		t.Fatalf("-o json: exit %d\n%s", code, errOut)
	}
	var got struct {
		Comparison struct {
			Verdict string            `json:"verdict"`
			Metrics []json.RawMessage `json:"metrics"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("-o json does not decode: %v\n%s", err, out)
	}
	if got.Comparison.Verdict != "pass" {
		t.Errorf("verdict %q", got.Comparison.Verdict)
	}
	found := false
	for _, m := range got.Comparison.Metrics {
		var compact bytes.Buffer
		if err := json.Compact(&compact, m); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(compact.String(), `"kv_usage_mean"`) {
			found = true
			for _, w := range []string{`"measured":null`, `"pass":null`, `"verdict":"no data"`} {
				if !strings.Contains(compact.String(), w) {
					t.Errorf("kv_usage_mean %s lacks %s", m, w)
				}
			}
		}
	}
	if !found {
		t.Error("no kv_usage_mean in the JSON")
	}
	// The 404 run's JSON says no data too.
	out, _, code = thinkcap(t, "verify", all404, "-o", "json")
	if code != 1 || !strings.Contains(out, `"verdict": "no data"`) || !strings.Contains(out, `"reason": "0 requests compared (need at least 20)"`) {
		t.Errorf("404 run -o json: exit %d\n%s", code, out)
	}
}

// TestVerifyShowsBound: the table's tolerance and bound columns carry the
// slack and the bound tested; a wrong step model's TPOT miss fails with its
// bound shown.
func TestVerifyShowsBound(t *testing.T) {
	dir := t.TempDir()
	run := simulatedRunDir(t, 60, 4, 3, false).write(t, dir, "run")
	slow := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(slow, []byte("kv_bandwidth_efficiency: 0.4\nweight_bandwidth_efficiency: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := thinkcap(t, "verify", run, "--step-model", slow, "--tolerance", "none,tpot_mean=10%")
	if code != 1 || !strings.Contains(errOut, "tpot_mean") {
		t.Fatalf("exit %d, want 1 with tpot_mean failing\n%s%s", code, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "TPOT mean") {
			if !strings.Contains(l, "±10.0% + 1 ms") || !strings.Contains(l, "FAIL") || !regexp.MustCompile(`±\d+\.\d `).MatchString(l) {
				t.Errorf("TPOT mean line %q: want the tolerance with its slack, the bound in ms and FAIL", l)
			}
		}
	}
	out, _, _ = thinkcap(t, "verify", run, "--step-model", slow, "--tolerance", "none,tpot_mean=10%", "-o", "json")
	var got struct {
		Comparison analysis.Comparison `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, m := range got.Comparison.Metrics {
		if m.Name != "tpot_mean" {
			continue
		}
		b := m.Bound
		if b == nil || b.Relative != 0.1 || b.Slack != 0.001 || b.TimeScale != 1 || math.Abs(b.Absolute-(0.1*math.Abs(m.Measured)+0.001)) > 1e-12 {
			t.Errorf("bound %+v, want 10%% of %v + 1 ms", b, m.Measured)
		}
		if math.Abs(m.Predicted-m.Measured) <= b.Absolute || m.Verdict != "fail" {
			t.Errorf("|%v − %v| within %v but %s", m.Predicted, m.Measured, b.Absolute, m.Verdict)
		}
	}
}

// TestVerifyAndCalibrateRunEndedEarly: a run interrupted after 65 of 200
// requests, with partial last lines in results.jsonl and timeline.csv and
// no summary.json, is verified and calibrated on what it holds, and both
// say so.
func TestVerifyAndCalibrateRunEndedEarly(t *testing.T) {
	dir := t.TempDir()
	rd := simulatedRunDir(t, 65, 3, 4, false)
	rd.state = map[string]any{"state": "interrupted", "interrupted": true, "reason": "interrupted by signal", "requests_planned": 200, "requests_finished": 65}
	rd.tail = `{"id":"x","status":"ok","arrival_s":30.1,"ttft_s":0.`
	rd.timeline += "31.5,0,0.2"
	killed := rd
	killed.state = map[string]any{"state": "running", "requests_planned": 200}
	interrupted, died := rd.write(t, dir, "interrupted"), killed.write(t, dir, "killed")

	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"verify", interrupted}, []string{"note: run interrupted after 65 of 200 requests (interrupted by signal)",
			"note: results.jsonl: dropped the partial last line 66", "note: timeline.csv: dropped the partial last line", "verdict: pass", "ended early"}},
		{[]string{"verify", died}, []string{`note: the load test did not finish (metadata state "running": the process died): 65 of 200 requests recorded`}},
		{[]string{"calibrate", interrupted, "--out", filepath.Join(dir, "cal.yaml"), "--write-anyway"}, []string{"note: " + interrupted + ": run interrupted after 65 of 200 requests"}},
	} {
		out, errOut, code := thinkcap(t, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, out, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	out, _, _ := thinkcap(t, "verify", interrupted, "-o", "json")
	var got struct {
		RunState verify.RunState `json:"run_state"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if s := got.RunState; s.State != "interrupted" || s.RequestsFinished != 65 || s.RequestsPlanned != 200 || s.Reason != "interrupted by signal" || len(s.Notes) == 0 {
		t.Errorf("run_state %+v", s)
	}
}

// TestCalibrateRefusesNoImprovement: runs of a server that is exactly the
// starting model cannot be improved on: calibrate warns, writes nothing and
// exits 1; --write-anyway writes a file that reads back, with no digit the
// fit did not determine.
func TestCalibrateRefusesNoImprovement(t *testing.T) {
	dir := t.TempDir()
	a := simulatedRunDir(t, 150, 2, 5, false).write(t, dir, "a")
	b := simulatedRunDir(t, 150, 8, 6, false).write(t, dir, "b")
	cal := filepath.Join(dir, "cal.yaml")
	out, errOut, code := thinkcap(t, "calibrate", a, b, "--out", cal)
	if code != 1 || !strings.Contains(errOut, "warning: the calibration does not improve the held-out error") || !strings.Contains(errOut, "--write-anyway") {
		t.Errorf("exit %d, want 1 with a warning\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(cal); err == nil {
		t.Error("a calibration that does not improve was written")
	}
	out, errOut, code = thinkcap(t, "calibrate", a, b, "--out", cal, "--write-anyway")
	if code != 0 || !strings.Contains(errOut, "warning:") || !strings.Contains(out, "wrote "+cal) {
		t.Errorf("--write-anyway: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(cal)
	if err != nil {
		t.Fatal(err)
	}
	if long := approx.OverPrecise(string(data)); long != "" {
		t.Errorf("the file has the number %s:\n%s", long, data)
	}
	if _, err := profiles.LoadStepCoefficients(cal); err != nil {
		t.Errorf("does not read back: %v", err)
	}
}
