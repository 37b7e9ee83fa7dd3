package loadgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

func TestCheckRunDir(t *testing.T) {
	root := t.TempDir()
	withRun := func(name string) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		dir     string
		force   bool
		refused bool
	}{
		{filepath.Join(root, "new"), false, false},
		{withRun("notes.txt"), false, false}, // exists, holds no run
		{withRun(ResultsFile), false, true},
		{withRun(MetadataFile), false, true},
		{filepath.Join(root, ResultsFile), true, false},
	} {
		err := CheckRunDir(c.dir, c.force)
		if (err != nil) != c.refused {
			t.Errorf("%s force=%v: %v", c.dir, c.force, err)
		}
		if err != nil && (!strings.Contains(err.Error(), c.dir) || !strings.Contains(err.Error(), "--force")) {
			t.Errorf("error %q should name the directory and --force", err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Errorf("CheckRunDir created a directory: %v", err)
	}
}

// TestRunDirLifecycle: metadata.json says running from the start (what a
// reader finds after kill -9), results and timeline rows are on disk as
// they come, and Finish replaces the metadata with the end state and
// counts; an abort stays an abort when the command finishes afterwards.
func TestRunDirLifecycle(t *testing.T) {
	for _, c := range []struct {
		name             string
		early            string // a Finish before the final one
		final            string
		wantState        string
		wantReason       string
		wantInterrupted  bool
		wantFinishedRecs int
	}{
		{"complete", "", RunComplete, RunComplete, "", false, 3},
		{"interrupted", "", RunInterrupted, RunInterrupted, "by test", true, 3},
		{"aborted by the breaker", RunAborted, RunComplete, RunAborted, "breaker", true, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			d, err := OpenRunDir(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			start := time.Now()
			if err := d.Start(Metadata{Model: "m", TargetURL: "http://127.0.0.1:1", Start: start, RequestsPlanned: 5}); err != nil {
				t.Fatal(err)
			}
			m, err := ReadMetadata(filepath.Join(dir, MetadataFile))
			if err != nil || m.State != RunRunning || !m.Died() || !m.Interrupted || m.RequestsPlanned != 5 {
				t.Fatalf("at start: %+v, %v", m, err)
			}
			d.AddSample(Sample{Time: start.Add(time.Second), Snapshot: telemetryState(0.5, 2, 1, 0, 10, 20)})
			for i := range 3 {
				if err := d.WriteResult(&workload.Result{Request: workload.Request{ID: string(rune('a' + i))}, Status: workload.StatusOK}); err != nil {
					t.Fatal(err)
				}
				if c.early != "" && i == 1 {
					if err := d.Finish(c.early, "breaker"); err != nil {
						t.Fatal(err)
					}
				}
			}
			// On disk already, before any Finish or Close.
			res, err := workload.ReadResultsFile(filepath.Join(dir, ResultsFile))
			if err != nil || len(res) != 3 {
				t.Fatalf("results before the end: %d, %v", len(res), err)
			}
			f, err := os.Open(filepath.Join(dir, TimelineFile))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := ReadTimelineCSV(f)
			f.Close()
			if err != nil || len(rows) != 1 || rows[0].TimeS != 1 || rows[0].Running != 2 {
				t.Fatalf("timeline before the end: %+v, %v", rows, err)
			}
			reason := ""
			if c.final == RunInterrupted {
				reason = "by test"
			}
			if err := d.Finish(c.final, reason); err != nil {
				t.Fatal(err)
			}
			m, err = ReadMetadata(filepath.Join(dir, MetadataFile))
			if err != nil || m.State != c.wantState || m.Reason != c.wantReason || m.Interrupted != c.wantInterrupted ||
				m.RequestsFinished != c.wantFinishedRecs || m.RequestsPlanned != 5 || m.End.IsZero() {
				t.Fatalf("at the end: %+v, %v", m, err)
			}
			if st, _ := d.State(); st != c.wantState {
				t.Errorf("State() = %s", st)
			}
			if m.EndedEarly() != c.wantInterrupted {
				t.Errorf("EndedEarly = %v", m.EndedEarly())
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".metadata-") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func TestRunDirForceAndRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	d, err := OpenRunDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(Metadata{}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRunDir(dir, false); err == nil {
		t.Fatal("an existing run was reopened without force")
	}
	d, err = OpenRunDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); !os.IsNotExist(err) {
		t.Errorf("--force kept the old run's summary: %v", err)
	}
	// The directory existed: Remove takes the run files, not the directory.
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("after Remove: %v, %v", entries, err)
	}
	// A directory it created goes entirely.
	fresh := filepath.Join(t.TempDir(), "a", "b")
	d, err = OpenRunDir(fresh, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("refused run left %s: %v", fresh, err)
	}
}

func TestMetadataEndNote(t *testing.T) {
	for _, c := range []struct {
		m    Metadata
		want string
	}{
		{Metadata{State: RunComplete, RequestsPlanned: 10}, ""},
		{Metadata{}, ""}, // written before the state key
		{Metadata{State: RunRunning, RequestsPlanned: 10}, "process died"},
		{Metadata{State: RunInterrupted, Reason: "interrupted by signal SIGINT", RequestsPlanned: 10}, "interrupted (interrupted by signal SIGINT) after 4 of 10 planned"},
		{Metadata{State: RunAborted, Reason: "20 consecutive connection failures"}, "aborted (20 consecutive connection failures) after 4 requests"},
	} {
		got := c.m.EndNote(4)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.m, got, c.want)
		}
	}
}
