package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/runtest"
	"github.com/thinkcap/thinkcap/workload"
)

// setRunState adds metadata.json's run-state keys (loadgen writes them) to
// a run directory's metadata.json.
func setRunState(t *testing.T, dir string, keys map[string]any) {
	t.Helper()
	path := filepath.Join(dir, "metadata.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range keys {
		m[k] = v
	}
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendFile appends text to a file of a run directory, as a writer killed
// mid-line leaves it.
func appendFile(t *testing.T, dir, name, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLoadRunEndedEarly: a run that was interrupted, aborted or killed
// (metadata.json's state, a partial last line in results.jsonl or
// timeline.csv, no summary.json) reads as far as it goes, with notes that
// say so; a complete run of the old format has none.
func TestLoadRunEndedEarly(t *testing.T) {
	var results []workload.Result
	for _, rr := range loadRunFixture {
		results = append(results, rr.result())
	}
	for _, c := range []struct {
		name     string
		state    map[string]any
		results  string // appended to results.jsonl
		timeline string // appended to timeline.csv
		wantN    int
		want     []string // each in some note
		early    bool
	}{
		{name: "complete, old format", wantN: 4},
		{name: "complete", state: map[string]any{"state": "complete", "interrupted": false, "requests_planned": 4, "requests_finished": 4}, wantN: 4},
		{name: "interrupted", state: map[string]any{"state": "interrupted", "interrupted": true, "reason": "interrupted by signal", "requests_planned": 200, "requests_finished": 4},
			wantN: 4, early: true, want: []string{"run interrupted after 4 of 200 requests (interrupted by signal)", "no summary.json"}},
		{name: "aborted", state: map[string]any{"state": "aborted", "interrupted": true, "reason": "20 consecutive connection failures", "requests_planned": 100},
			wantN: 4, early: true, want: []string{"run aborted after 4 of 100 requests (20 consecutive connection failures)"}},
		{name: "killed mid-line", state: map[string]any{"state": "running", "requests_planned": 200},
			results: `{"id":"e","status":"ok","arrival_s":4.0,"ttft_s":0.1`, timeline: "1.500,0,0.4",
			wantN: 4, early: true, want: []string{`the load test did not finish (metadata state "running": the process died): 4 of 200 requests recorded`,
				"results.jsonl: dropped the partial last line 5", "timeline.csv: dropped the partial last line 5"}},
		{name: "interrupted flag alone", state: map[string]any{"interrupted": true}, wantN: 4, early: true, want: []string{"run interrupted after 4 requests"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRunDir(t, emulatorMeta("0"), results, runTimelineCSV)
			if c.state != nil {
				setRunState(t, dir, c.state)
			}
			if c.results != "" {
				appendFile(t, dir, "results.jsonl", c.results)
			}
			if c.timeline != "" {
				appendFile(t, dir, "timeline.csv", c.timeline)
			}
			r, err := LoadRun(dir)
			if err != nil {
				t.Fatalf("a run that ended early does not read: %v", err)
			}
			if len(r.Results) != c.wantN || r.State.RequestsFinished != c.wantN || len(r.Timeline) != 3 {
				t.Errorf("%d results (finished %d), %d timeline rows; want %d, 3", len(r.Results), r.State.RequestsFinished, len(r.Timeline), c.wantN)
			}
			if r.State.Early() != c.early {
				t.Errorf("state %q: early %v, want %v", r.State.State, r.State.Early(), c.early)
			}
			if !c.early && len(r.State.Notes) > 0 {
				t.Errorf("notes on a complete run: %q", r.State.Notes)
			}
			for _, w := range c.want {
				if !notesContain(r.State.Notes, w) {
					t.Errorf("no note %q in %q", w, r.State.Notes)
				}
			}
		})
	}
}

// TestLoadRunKilledEarly: killed before a record or a scrape was whole:
// no results and no timeline, not an error; the verdict is then "no data".
// A bad line that is not the last one is still an error.
func TestLoadRunKilledEarly(t *testing.T) {
	cfg := runtest.Qwen3OnH100(t)
	dir := writeRunDir(t, emulatorMeta("0"), nil, "time_s,repl")
	setRunState(t, dir, map[string]any{"state": "running", "requests_planned": 50})
	appendFile(t, dir, "results.jsonl", `{"id":"a","sta`)
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 0 || len(r.Timeline) != 0 || !notesContain(r.State.Notes, "0 of 50 requests recorded") ||
		!notesContain(r.State.Notes, "no result records") {
		t.Errorf("results %d timeline %d notes %q", len(r.Results), len(r.Timeline), r.State.Notes)
	}
	out, err := Verify(cfg, r, explicitFields(), map[string]float64{"ttft_p50": 0.25}, DefaultMinRequests)
	if err != nil {
		t.Fatal(err)
	}
	if out.Comparison.Verdict != "no data" || out.Comparison.Pass || !strings.Contains(out.Comparison.Reason, "0 requests compared (need at least 20)") {
		t.Errorf("verdict %q (%s), want no data", out.Comparison.Verdict, out.Comparison.Reason)
	}
	if out.RunState.State != "running" {
		t.Errorf("outcome run state %+v", out.RunState)
	}

	bad := writeRunDir(t, emulatorMeta("0"), []workload.Result{loadRunFixture[0].result()}, "")
	appendFile(t, bad, "results.jsonl", "{not json}\n")
	appendFile(t, bad, "results.jsonl", loadRunFixtureLine(t))
	if _, err := LoadRun(bad); err == nil || !strings.Contains(err.Error(), "results.jsonl:2") {
		t.Errorf("a bad line mid-file: err %v, want one naming results.jsonl:2", err)
	}
}

func loadRunFixtureLine(t *testing.T) string {
	t.Helper()
	data, err := json.Marshal(loadRunFixture[1].result())
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}
