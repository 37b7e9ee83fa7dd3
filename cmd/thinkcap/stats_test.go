package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/golden"
	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// execAnalysisCmd runs one command built on its own (as the root command
// would run it: flag errors are bad input) and returns stdout, stderr and
// the exit code that main would give.
func execAnalysisCmd(t *testing.T, c *cobra.Command, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c.SetArgs(args)
	c.SetOut(&stdout)
	c.SetErr(&stderr)
	c.SilenceUsage, c.SilenceErrors = true, true
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return inputerr.New(err) })
	err := c.Execute()
	code := exitOK
	if err != nil {
		fmt.Fprintf(&stderr, "thinkcap: %v\n", err)
		code = exitCheckFailed
		var bad *inputerr.Error
		if errors.As(err, &bad) || isUsageError(err) {
			code = exitBadInput
		}
	}
	return stdout.String(), stderr.String(), code
}

// writeTemp writes content to a file called name in a fresh directory.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var statsLogPath = filepath.Join("testdata", "stats-log.jsonl")

func TestStatsGolden(t *testing.T) {
	out, errOut, code := execAnalysisCmd(t, newStatsCmd(), statsLogPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, "stats-table.txt", []byte(out))

	out, errOut, code = execAnalysisCmd(t, newStatsCmd(), statsLogPath, "-o", "json", "--tpot", "0.02", "--concurrency", "64")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, "stats.json", []byte(out))
	var rep struct {
		Overall struct {
			Count    int
			Capacity struct {
				TPOTS       float64 `json:"tpot_s"`
				Concurrency int
			}
			UnclosedThinkRate *float64 `json:"unclosed_think_rate"`
		}
		Classes []struct{ Mode, Category string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Overall.Count != 12 || len(rep.Classes) != 3 || rep.Overall.Capacity.TPOTS != 0.02 ||
		rep.Overall.Capacity.Concurrency != 64 || rep.Overall.UnclosedThinkRate == nil || *rep.Overall.UnclosedThinkRate != 1.0/12 {
		t.Errorf("report %+v", rep)
	}
}

// TestAnalysisBadInput: every bad input to stats, drift and curve is a clear
// error naming the file:line or flag at fault, and exit code 2.
func TestAnalysisBadInput(t *testing.T) {
	good := `{"arrival_s":0,"prompt_tokens":10,"think_tokens":5,"answer_tokens":1}` + "\n"
	evalHeader := "item,category,budget,correct,total_tokens\n"
	cases := []struct {
		name string
		cmd  func() *cobra.Command
		args []string
		want string
	}{
		{"stats: empty file", newStatsCmd, []string{writeTemp(t, "empty.jsonl", "")}, "empty.jsonl: no request records"},
		{"stats: missing file", newStatsCmd, []string{"/nonexistent/log.jsonl"}, "/nonexistent/log.jsonl"},
		{"stats: negative tokens", newStatsCmd, []string{writeTemp(t, "neg.jsonl", good+`{"arrival_s":1,"prompt_tokens":10,"think_tokens":-5}`+"\n")}, "neg.jsonl:2: think_tokens"},
		{"stats: non-numeric tokens", newStatsCmd, []string{writeTemp(t, "word.csv", "arrival_s,prompt_tokens,think_tokens\n0,10,many\n")}, "word.csv:2: think_tokens"},
		{"stats: NaN tokens", newStatsCmd, []string{writeTemp(t, "nan.jsonl", good+`{"arrival_s":1,"prompt_tokens":10,"answer_tokens":"NaN"}`+"\n")}, "nan.jsonl:2: answer_tokens"},
		{"stats: missing column", newStatsCmd, []string{writeTemp(t, "cols.csv", "think_tokens,answer_tokens\n5,1\n")}, "cols.csv:1"},
		{"stats: zero tpot", newStatsCmd, []string{statsLogPath, "--tpot", "0"}, "--tpot"},
		{"stats: zero concurrency", newStatsCmd, []string{statsLogPath, "--concurrency", "0"}, "--concurrency"},
		{"stats: bad output", newStatsCmd, []string{statsLogPath, "-o", "yaml"}, "-o"},
		{"stats: no log", newStatsCmd, nil, "accepts 1 arg"},
		{"stats: unknown flag", newStatsCmd, []string{statsLogPath, "--nope"}, "unknown flag"},

		{"drift: one log", newDriftCmd, []string{statsLogPath}, "accepts 2 arg"},
		{"drift: bad base", newDriftCmd, []string{writeTemp(t, "base.jsonl", "{}\n"), statsLogPath}, "base.jsonl:1"},
		{"drift: bad new", newDriftCmd, []string{statsLogPath, writeTemp(t, "new.jsonl", good+"not json\n")}, "new.jsonl:2"},
		{"drift: negative threshold", newDriftCmd, []string{statsLogPath, statsLogPath, "--threshold", "-5"}, "--threshold"},
		{"drift: NaN threshold", newDriftCmd, []string{statsLogPath, statsLogPath, "--threshold", "NaN"}, "--threshold"},
		{"drift: negative min count", newDriftCmd, []string{statsLogPath, statsLogPath, "--min-count", "-1"}, "--min-count"},
		{"drift: tolerance above 100", newDriftCmd, []string{statsLogPath, statsLogPath, "--accuracy-tolerance", "150"}, "--accuracy-tolerance"},
		{"drift: bad output", newDriftCmd, []string{statsLogPath, statsLogPath, "-o", "csv"}, "-o"},

		{"curve: empty file", newCurveCmd, []string{writeTemp(t, "empty.csv", evalHeader)}, "empty.csv: no eval rows"},
		{"curve: empty jsonl", newCurveCmd, []string{writeTemp(t, "empty.jsonl", "\n\n")}, "empty.jsonl: no eval rows"},
		{"curve: missing column", newCurveCmd, []string{writeTemp(t, "nocol.csv", "item,category,budget,correct\na,math,0,1\n")}, "nocol.csv:1: header: total_tokens: missing column"},
		{"curve: missing field", newCurveCmd, []string{writeTemp(t, "nofield.jsonl", `{"item":"a","budget":0,"correct":true}`+"\n")}, "nofield.jsonl:1: total_tokens: missing"},
		{"curve: negative tokens", newCurveCmd, []string{writeTemp(t, "neg.csv", evalHeader+"a,math,0,1,10\nb,math,0,1,-3\n")}, "neg.csv:3: total_tokens: must be a non-negative integer"},
		{"curve: non-numeric budget", newCurveCmd, []string{writeTemp(t, "word.csv", evalHeader+"a,math,lots,1,10\n")}, "word.csv:2: budget"},
		{"curve: NaN tokens", newCurveCmd, []string{writeTemp(t, "nan.jsonl", `{"budget":0,"correct":1,"total_tokens":"NaN"}`+"\n")}, "nan.jsonl:1: total_tokens"},
		{"curve: bad grade", newCurveCmd, []string{writeTemp(t, "grade.csv", evalHeader+"a,math,0,maybe,10\n")}, "grade.csv:2: correct: must be true, false, 1 or 0"},
		{"curve: unwritable plot", newCurveCmd, []string{filepath.Join("testdata", "curve-eval.csv"), "--plot", "/nonexistent/dir/curves.png"}, "curves.png"},
		{"curve: bad output", newCurveCmd, []string{filepath.Join("testdata", "curve-eval.csv"), "-o", "png"}, "-o"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := execAnalysisCmd(t, c.cmd(), c.args...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitBadInput, out, errOut)
			}
			if !strings.Contains(errOut, c.want) {
				t.Errorf("stderr %q lacks %q", errOut, c.want)
			}
			if strings.Contains(errOut, "panic") {
				t.Errorf("panic: %s", errOut)
			}
		})
	}
}

// TestStatsOfResults reads a load test's results.jsonl: the ok records are
// summarised, the failed ones (whose prompt_tokens 0 no request log may
// have) counted by status instead of failing the read.
func TestStatsOfResults(t *testing.T) {
	path := filepath.Join("testdata", "stats-results.jsonl")
	out, errOut, code := execAnalysisCmd(t, newStatsCmd(), path, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Overall struct {
			Count int
			Think struct{ Mean, Max float64 }
		}
		Failed map[string]int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// The timeout's 150 think tokens are not a length it would have had.
	if rep.Overall.Count != 2 || rep.Overall.Think.Mean != 300 || rep.Overall.Think.Max != 400 {
		t.Errorf("overall %+v, want the 2 ok records (think mean 300, max 400)", rep.Overall)
	}
	if len(rep.Failed) != 2 || rep.Failed["http_error"] != 2 || rep.Failed["timeout"] != 1 {
		t.Errorf("failed %v, want http_error 2, timeout 1", rep.Failed)
	}

	out, errOut, code = execAnalysisCmd(t, newStatsCmd(), path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"thinkcap stats: 2 requests in 1 classes", "failed: 3 not summarised (http_error 2, timeout 1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	// Read as a request log on purpose, the failed records are invalid.
	_, errOut, code = execAnalysisCmd(t, newStatsCmd(), path, "--workload-format", "native")
	if code != exitBadInput || !strings.Contains(errOut, "stats-results.jsonl:2: prompt_tokens") {
		t.Errorf("--workload-format native: exit %d, %s", code, errOut)
	}
	// A results file with a bad record names its line.
	bad := writeTemp(t, "results.jsonl", `{"status":"ok","think_tokens":1}`+"\n"+`{"status":"exploded"}`+"\n")
	_, errOut, code = execAnalysisCmd(t, newStatsCmd(), bad)
	if code != exitBadInput || !strings.Contains(errOut, "results.jsonl:2: status") {
		t.Errorf("bad status: exit %d, %s", code, errOut)
	}
}
