package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/golden"
	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// fitLogPath is a small fixed log (400 requests of fitMixture, seed 7): a
// low class that does not think, a medium one under a 1,024-token budget
// (its tail clamped onto the cap) and a high one with an explicit 10% cap
// spike and 10% of empty answers.
var fitLogPath = filepath.Join("testdata", "fit-log.jsonl")

// fitMixture generates the three-class traffic the fit tests use.
func fitMixture(t *testing.T, n int, seed uint64) []workload.Request {
	t.Helper()
	syn := workload.Synthetic{
		Requests: n, RatePerS: 2, Seed: seed,
		Classes: []workload.Class{
			{Mode: "low", Category: "extraction", Share: 0.5,
				Prompt: simtest.Dist(t, "lognormal:p50=600,sigma=0.6"), Think: workload.Constant(0),
				Answer: simtest.Dist(t, "lognormal:p50=80,sigma=0.5")},
			{Mode: "medium", Category: "rag", Share: 0.35,
				Prompt: simtest.Dist(t, "gamma:shape=6,scale=400"), Think: simtest.Dist(t, "lognormal:p50=450,sigma=0.8,max=1024"),
				Answer: simtest.Dist(t, "gamma:shape=3,scale=90")},
			{Mode: "high", Category: "math", Share: 0.15,
				Prompt: simtest.Dist(t, "lognormal:p50=300,sigma=0.5"),
				Think:  simtest.Dist(t, "lognormal:p50=2500,sigma=0.7,max=4096,spike=4096@0.1"),
				Answer: simtest.Dist(t, "lognormal:p50=350,sigma=0.5,spike=0@0.1")},
		},
	}
	reqs, err := syn.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestFitGolden pins the report and the profile of the small fixed log.
func TestFitGolden(t *testing.T) {
	out, errOut, code := execAnalysisCmd(t, newFitCmd(), fitLogPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Without -o the profile goes to stdout and the report to stderr.
	golden.Check(t, "fit-profile.yaml", []byte(out))
	golden.Check(t, "fit-report.txt", []byte(errOut))

	out, errOut, code = execAnalysisCmd(t, newFitCmd(), fitLogPath, "--report", "json",
		"-o", filepath.Join(t.TempDir(), "p.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The JSON carries full-precision floats, which need not agree to the
	// last digit across platforms: check its structure, not its bytes.
	var rep logstats.FitReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Name != "fit-log" || rep.Requests != 400 || len(rep.Classes) != 3 {
		t.Fatalf("report %s: %d requests, %d classes", rep.Name, rep.Requests, len(rep.Classes))
	}
	high := rep.Classes[2]
	if high.Name != "high-math" || len(high.Think.Spikes) != 1 || high.Think.Spikes[0].Kind != "cap" ||
		high.Think.Spikes[0].Value != 4096 || len(high.Think.Candidates) != 3 {
		t.Errorf("high-math think: %+v", high.Think)
	}
	var raw map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	class := raw["classes"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "mode", "category", "count", "share", "prompt_tokens", "think_tokens", "answer_tokens"} {
		if _, ok := class[k]; !ok {
			t.Errorf("class JSON lacks %q", k)
		}
	}
	field := class["prompt_tokens"].(map[string]any)
	for _, k := range []string{"family", "params", "spec", "ks", "candidates", "spikes", "n", "body_n"} {
		if _, ok := field[k]; !ok {
			t.Errorf("fit JSON lacks %q", k)
		}
	}
}

// TestFitProfileReproducesLog is the end-to-end promise of fit: the profile
// it writes loads with --profiles, drives simulate, and generates traffic
// whose per-class p50 and p99 are within 10% of the log's.
func TestFitProfileReproducesLog(t *testing.T) {
	const n = 40_000
	dir := t.TempDir()
	logPath := filepath.Join(dir, "prod.jsonl")
	var buf bytes.Buffer
	if err := workload.WriteRequests(&buf, fitMixture(t, n, 1)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	profilePath := filepath.Join(dir, "profile.yaml")
	out, errOut, code := execAnalysisCmd(t, newFitCmd(), logPath, "-o", profilePath, "--name", "prod-fit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `traffic profile "prod-fit" from 40,000 requests in 3 classes`) || errOut != "" {
		t.Errorf("with -o the report goes to stdout:\n%s\nstderr: %s", out, errOut)
	}

	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.LoadPath(profilePath); err != nil {
		t.Fatal(err)
	}
	tp, err := cat.TrafficProfile("prod-fit")
	if err != nil {
		t.Fatal(err)
	}
	classes, err := workload.ClassesFromTraffic(tp)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := workload.Synthetic{Requests: n, RatePerS: 1, Seed: 2, Classes: classes}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	logReqs, err := workload.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	logStats, genStats := classPercentiles(logReqs), classPercentiles(gen)
	for key, want := range logStats {
		got := genStats[key]
		for i := range want {
			if math.Abs(got[i]-want[i]) > 0.10*want[i] {
				t.Errorf("%s %s: generated %.0f, log %.0f", key, percentileNames[i], got[i], want[i])
			}
		}
	}
	if len(genStats) != len(logStats) {
		t.Errorf("classes: generated %d, log %d", len(genStats), len(logStats))
	}

	// The profile drives simulate.
	sout, serr, code := thinkcap(t, "simulate", "--profiles", profilePath, "--traffic", "prod-fit", "--requests", "200", "-o", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, serr)
	}
	if !strings.Contains(sout, `"completed": 200`) {
		t.Errorf("simulate did not complete the requests:\n%s", sout)
	}
}

var percentileNames = []string{"prompt p50", "prompt p99", "think p50", "think p99", "answer p50", "answer p99"}

// classPercentiles is, per "mode/category", the p50 and p99 of prompt,
// think and answer tokens, in percentileNames' order.
func classPercentiles(reqs []workload.Request) map[string][]float64 {
	fields := map[string][3][]float64{}
	for _, r := range reqs {
		k := r.Mode + "/" + r.Category
		f := fields[k]
		f[0] = append(f[0], float64(r.PromptTokens))
		f[1] = append(f[1], float64(r.ThinkTokens))
		f[2] = append(f[2], float64(r.AnswerTokens))
		fields[k] = f
	}
	out := map[string][]float64{}
	for k, f := range fields {
		for _, xs := range f {
			slices.Sort(xs)
			out[k] = append(out[k], analysis.Quantile(xs, 0.5), analysis.Quantile(xs, 0.99))
		}
	}
	return out
}

func TestFitProfileFormat(t *testing.T) {
	out, _, code := execAnalysisCmd(t, newFitCmd(), fitLogPath, "--name", "mine", "--spike-min-mass", "1")
	if code != 0 {
		t.Fatal(code)
	}
	var c profiles.Catalog
	if err := c.LoadYAML("out", []byte(out)); err != nil {
		t.Fatal(err)
	}
	tp, err := c.TrafficProfile("mine")
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Classes) != 3 || tp.Classes[0].Name != "low-extraction" || tp.Classes[0].ThinkTokens != "constant:0" {
		t.Errorf("profile %+v", tp)
	}
	// --spike-min-mass 1 turns spikes off.
	if strings.Contains(out, ",spike=") {
		t.Errorf("spikes with --spike-min-mass 1:\n%s", out)
	}
	for _, want := range []string{"# Use: thinkcap simulate --profiles FILE --traffic mine", "KS ", `think_tokens: "constant:0"`} {
		if !strings.Contains(out, want) {
			t.Errorf("profile lacks %q:\n%s", want, out)
		}
	}
	// Empty keys are left out.
	if strings.Contains(out, "prefix_id") || strings.Contains(out, "prefix_tokens") {
		t.Errorf("profile has empty prefix keys:\n%s", out)
	}
}

func TestFitBadInput(t *testing.T) {
	empty := writeTemp(t, "empty.jsonl", "")
	bad := writeTemp(t, "bad.jsonl", `{"arrival_s":0,"prompt_tokens":10}`+"\n"+`{"arrival_s":1,"prompt_tokens":"x"}`+"\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no log", nil, "accepts 1 arg"},
		{"missing log", []string{"/nonexistent.jsonl"}, "nonexistent"},
		{"empty log", []string{empty}, "no request records"},
		{"bad line", []string{bad}, "bad.jsonl:2"},
		{"bad report", []string{fitLogPath, "--report", "yaml"}, "--report"},
		{"spike mass zero", []string{fitLogPath, "--spike-min-mass", "0"}, "--spike-min-mass"},
		{"spike mass above one", []string{fitLogPath, "--spike-min-mass", "1.5"}, "--spike-min-mass"},
		{"spike mass NaN", []string{fitLogPath, "--spike-min-mass", "NaN"}, "--spike-min-mass"},
		{"bad name", []string{fitLogPath, "--name", "my profile"}, "--name"},
		{"unwritable output", []string{fitLogPath, "-o", filepath.Join(t.TempDir(), "no", "such", "dir.yaml")}, "-o"},
		{"unknown flag", []string{fitLogPath, "--nope"}, "unknown flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// An empty, not nil, slice: cobra reads os.Args for nil.
			_, errOut, code := execAnalysisCmd(t, newFitCmd(), append([]string{}, c.args...)...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitBadInput, errOut)
			}
			if !strings.Contains(errOut, c.want) {
				t.Fatalf("stderr %q lacks %q", errOut, c.want)
			}
		})
	}
}
