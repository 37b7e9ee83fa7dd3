package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

var sampleLog = filepath.Join("..", "..", "testdata", "production.jsonl")

type replaySummary struct {
	Requests  struct{ Total, Completed int }
	DurationS float64 `json:"duration_s"`
}

func replay(t *testing.T, args ...string) replaySummary {
	t.Helper()
	out, errOut, code := thinkcap(t, append([]string{"simulate", "--workload", sampleLog, "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var s replaySummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReplayRescaling: the sample log spans a day; --speedup and --rate
// compress it, --arrival day-shaped redraws it with the same shape.
func TestReplayRescaling(t *testing.T) {
	// 56 requests of the sample hit max_tokens inside their thinking: they
	// end truncated, not completed.
	base := replay(t)
	if base.Requests.Total != 6000 || base.Requests.Completed != 6000-56 || base.DurationS < 80000 {
		t.Fatalf("replay %+v", base)
	}
	fast := replay(t, "--speedup", "4")
	if fast.DurationS > base.DurationS/4+600 || fast.DurationS < base.DurationS/4-600 {
		t.Fatalf("--speedup 4: %g s from %g s", fast.DurationS, base.DurationS)
	}
	// 6000 requests at 1 req/s span about 6000 s.
	rated := replay(t, "--rate", "1")
	if rated.DurationS < 5500 || rated.DurationS > 7000 {
		t.Fatalf("--rate 1: %g s", rated.DurationS)
	}
	// The log starts at midnight, its quietest hours: at a mean of 2 req/s
	// over the day, 6000 requests take longer than the 3000 s a flat rate
	// would.
	day := replay(t, "--arrival", "day-shaped", "--rate", "2")
	if day.DurationS < 4000 || day.DurationS > 43200 || day.Requests.Completed != 6000-56 {
		t.Fatalf("day-shaped at 2 req/s: %+v", day)
	}
}

func TestReplayFlagConflicts(t *testing.T) {
	for _, args := range [][]string{
		{"--workload", sampleLog, "--speedup", "2", "--rate", "3"},
		{"--workload", sampleLog, "--arrival", "constant"},
		{"--workload", sampleLog, "--think-tokens", "100"},
		{"--speedup", "2"},
		{"--arrival", "day-shaped"},
		{"--arrival", "gamma:burstiness=-1"},
		{"--workload", sampleLog, "--map", "nonsense"},
		{"--workload", sampleLog, "--workload-format", "parquet"},
	} {
		_, errOut, code := thinkcap(t, append([]string{"simulate"}, args...)...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errOut)
		}
	}
}

func TestGammaArrivals(t *testing.T) {
	out, errOut, code := thinkcap(t, "simulate", "--requests", "300", "--arrival", "gamma:burstiness=0.5", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s replaySummary
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Requests.Completed != 300 {
		t.Fatalf("%v %+v", err, s)
	}
}

// TestReplayOtherFormats: OpenAI usage logs and mapped logs replay too.
func TestReplayOtherFormats(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "workload")
	for _, args := range [][]string{
		{"--workload", filepath.Join(dir, "openai_usage.jsonl")},
		{"--workload", filepath.Join(dir, "openai_usage.jsonl"), "--workload-format", "openai-usage"},
	} {
		out, errOut, code := thinkcap(t, append([]string{"simulate", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var s replaySummary
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Requests.Total == 0 {
			t.Fatalf("%v: %v %+v", args, err, s)
		}
	}
}
