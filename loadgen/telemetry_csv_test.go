package loadgen

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWriteTimelineCSV(t *testing.T) {
	full := func(kv, running, waiting, preempt, prompt, gen, acc, drafts, hits, queries float64) Snapshot {
		s := telemetryState(kv, running, waiting, preempt, prompt, gen)
		s.Present |= FieldSpecAccepted | FieldSpecDrafts | FieldPrefixHits | FieldPrefixQueries
		s.SpecAccepted, s.SpecDrafts, s.PrefixHits, s.PrefixQueries = acc, drafts, hits, queries
		return s
	}
	samples := []Sample{
		sampleAt(0, full(0.1, 2, 0, 7, 100, 10, 50, 40, 0, 64)),
		sampleAt(1.25, full(0.123456789, 5, 1, 9, 400, 110, 80, 60, 16, 128)),
		sampleAt(2.5, Snapshot{Present: FieldKVUsage, KVUsage: 0.3, KVUsageMax: 0.3}), // a cut-short scrape
		sampleAt(3, full(0.2, 1, 0, 1, 50, 20, 5, 4, 0, 10)),                          // server restarted
	}
	var b strings.Builder
	if err := WriteTimelineCSV(&b, samples, telemetryT0); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"time_s", "replica", "kv_usage", "running", "waiting", "preemptions", "prompt_tokens", "generation_tokens", "spec_accepted", "spec_drafts", "prefix_hits", "prefix_queries"},
		{"0.000", "0", "0.100000", "2", "0", "0", "0", "0", "0", "0", "0", "0"},
		{"1.250", "0", "0.123457", "5", "1", "2", "300", "100", "30", "20", "16", "64"},
		{"2.500", "0", "0.300000", "", "", "", "", "", "", "", "", ""},
		{"3.000", "0", "0.200000", "1", "0", "3", "350", "120", "35", "24", "16", "74"},
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows:\n%s", len(rows), b.String())
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d = %v\nwant   %v", i, rows[i], want[i])
		}
	}
	// The first six columns are the simulator's (sim/timeline_csv.go).
	if !slices.Equal(rows[0][:6], []string{"time_s", "replica", "kv_usage", "running", "waiting", "preemptions"}) {
		t.Errorf("header %v", rows[0])
	}
}

func TestWriteTimelineCSVEmpty(t *testing.T) {
	var b strings.Builder
	if err := WriteTimelineCSV(&b, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != strings.Join(timelineColumns, ",")+"\n" {
		t.Errorf("got %q", got)
	}
}
