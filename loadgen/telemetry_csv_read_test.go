package loadgen

import (
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/sim"
)

// nan marks an empty cell in the expected rows.
var nan = math.NaN()

// sameFloat is == with NaN equal to NaN.
func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

func checkTimelineRows(t *testing.T, what string, got, want []TimelineRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows %+v, want %d %+v", what, len(got), got, len(want), want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if !sameFloat(g.TimeS, w.TimeS) || g.Replica != w.Replica || !sameFloat(g.KVUsage, w.KVUsage) ||
			!sameFloat(g.Running, w.Running) || !sameFloat(g.Waiting, w.Waiting) || !sameFloat(g.Preemptions, w.Preemptions) {
			t.Errorf("%s: row %d = %+v\nwant   %+v", what, i, g, w)
		}
	}
}

func TestReadTimelineCSVRoundTrip(t *testing.T) {
	samples := []Sample{
		sampleAt(0, telemetryState(0.1, 2, 0, 7, 100, 10)),
		sampleAt(1.25, telemetryState(0.123456789, 5, 1, 9, 400, 110)),
		sampleAt(2.5, Snapshot{Present: FieldKVUsage, KVUsage: 0.3, KVUsageMax: 0.3}),          // a cut-short scrape
		sampleAt(2.75, Snapshot{Present: FieldRunning | FieldWaiting, Running: 4, Waiting: 2}), // no KV usage, no counters
		sampleAt(3, telemetryState(0.2, 1, 0, 1, 50, 20)),                                      // server restarted
		sampleAt(4.0004, telemetryState(0.25, 3, 7, 4, 60, 30)),
	}
	var b strings.Builder
	if err := WriteTimelineCSV(&b, samples, telemetryT0); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTimelineCSV(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	// Time to the millisecond, KV usage to 6 places, preemptions the
	// increase since the first row (7 → 9 is 2, the restart to 1 adds 1,
	// then 1 → 4 adds 3), empty cells NaN, replica 0.
	checkTimelineRows(t, "round trip", got, []TimelineRow{
		{TimeS: 0, KVUsage: 0.1, Running: 2, Waiting: 0, Preemptions: 0},
		{TimeS: 1.25, KVUsage: 0.123457, Running: 5, Waiting: 1, Preemptions: 2},
		{TimeS: 2.5, KVUsage: 0.3, Running: nan, Waiting: nan, Preemptions: nan},
		{TimeS: 2.75, KVUsage: nan, Running: 4, Waiting: 2, Preemptions: nan},
		{TimeS: 3, KVUsage: 0.2, Running: 1, Waiting: 0, Preemptions: 3},
		{TimeS: 4, KVUsage: 0.25, Running: 3, Waiting: 7, Preemptions: 6},
	})

	// No samples: a header and no rows.
	b.Reset()
	if err := WriteTimelineCSV(&b, nil, telemetryT0); err != nil {
		t.Fatal(err)
	}
	got, err = ReadTimelineCSV(strings.NewReader(b.String()))
	if err != nil || len(got) != 0 {
		t.Errorf("empty timeline: %v, %v", got, err)
	}
}

func TestReadTimelineCSVSimulator(t *testing.T) {
	// The simulator's own writer, several replicas.
	var b strings.Builder
	err := sim.WriteTimelineCSV(&b, []sim.TimelineSample{
		{TimeS: 0, Replica: 0, KVUsage: 0, Running: 0, Waiting: 0, Preemptions: 0},
		{TimeS: 0, Replica: 1, KVUsage: 0.01, Running: 1, Waiting: 0, Preemptions: 0},
		{TimeS: 0.5, Replica: 0, KVUsage: 0.4321, Running: 12, Waiting: 3, Preemptions: 1},
		{TimeS: 0.5, Replica: 1, KVUsage: 0.9876545, Running: 256, Waiting: 100, Preemptions: 17},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "time_s,replica,kv_usage,running,waiting,preemptions\n") {
		t.Fatalf("the simulator's header changed:\n%s", b.String())
	}
	got, err := ReadTimelineCSV(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	checkTimelineRows(t, "simulator", got, []TimelineRow{
		{TimeS: 0, Replica: 0},
		{TimeS: 0, Replica: 1, KVUsage: 0.01, Running: 1},
		{TimeS: 0.5, Replica: 0, KVUsage: 0.4321, Running: 12, Waiting: 3, Preemptions: 1},
		{TimeS: 0.5, Replica: 1, KVUsage: 0.987654, Running: 256, Waiting: 100, Preemptions: 17},
	})

	// The same header, written by hand.
	got, err = ReadTimelineCSV(strings.NewReader("time_s,replica,kv_usage,running,waiting,preemptions\n" +
		"0.25,3,0.5,8,2,0\n" +
		"12.75,3,0.125,9,0,4\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkTimelineRows(t, "simulator text", got, []TimelineRow{
		{TimeS: 0.25, Replica: 3, KVUsage: 0.5, Running: 8, Waiting: 2, Preemptions: 0},
		{TimeS: 12.75, Replica: 3, KVUsage: 0.125, Running: 9, Waiting: 0, Preemptions: 4},
	})
}

func TestReadTimelineCSVColumns(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []TimelineRow
	}{
		{"reordered with extra columns",
			"replica,foo,waiting,time_s,prompt_tokens\n2,x,3,0.5,100\n",
			[]TimelineRow{{TimeS: 0.5, Replica: 2, KVUsage: nan, Running: nan, Waiting: 3, Preemptions: nan}}},
		{"time only",
			"time_s\n1\n2.5\n",
			[]TimelineRow{
				{TimeS: 1, KVUsage: nan, Running: nan, Waiting: nan, Preemptions: nan},
				{TimeS: 2.5, KVUsage: nan, Running: nan, Waiting: nan, Preemptions: nan},
			}},
		{"short row",
			"time_s,replica,kv_usage,running\n1.5\n2,1\n",
			[]TimelineRow{
				{TimeS: 1.5, KVUsage: nan, Running: nan, Waiting: nan, Preemptions: nan},
				{TimeS: 2, Replica: 1, KVUsage: nan, Running: nan, Waiting: nan, Preemptions: nan},
			}},
		{"empty replica",
			"time_s,replica,running\n1,,4\n",
			[]TimelineRow{{TimeS: 1, Replica: 0, KVUsage: nan, Running: 4, Waiting: nan, Preemptions: nan}}},
		{"CRLF, quotes, exponents, negative time",
			"time_s,kv_usage,running\r\n\"-1.5\",1e-3,\"7\"\r\n",
			[]TimelineRow{{TimeS: -1.5, KVUsage: 0.001, Running: 7, Waiting: nan, Preemptions: nan}}},
		{"long row",
			"time_s,running\n1,2,3,4\n",
			[]TimelineRow{{TimeS: 1, KVUsage: nan, Running: 2, Waiting: nan, Preemptions: nan}}},
		{"header only", "time_s,replica\n", nil},
	} {
		got, err := ReadTimelineCSV(strings.NewReader(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkTimelineRows(t, c.name, got, c.want)
	}
}

func TestReadTimelineCSVErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string // substrings of the error
	}{
		{"empty input", "", []string{"line 1", "empty"}},
		{"blank lines only", "\n\n", []string{"line 1", "empty"}},
		{"no time_s", "replica,kv_usage\n0,0.1\n", []string{"line 1", "time_s"}},
		{"time_s misspelt", "Time_S,replica\n0,0\n", []string{"line 1", "time_s"}},
		{"not a number", "time_s,kv_usage\n0,0.1\n1,abc\n", []string{"line 3", "kv_usage", `"abc"`}},
		{"running not a number", "time_s,running\n0,1\n1,2\n2,three\n", []string{"line 4", "running"}},
		{"NaN cell", "time_s,waiting\n0,NaN\n", []string{"line 2", "waiting"}},
		{"Inf cell", "time_s,preemptions\n0,1\n1,+Inf\n", []string{"line 3", "preemptions"}},
		{"time not a number", "time_s\n0\n1s\n", []string{"line 3", "time_s", `"1s"`}},
		{"empty time_s", "time_s,running\n0,1\n,2\n", []string{"line 3", "time_s"}},
		{"missing time_s cell", "running,time_s\n1,0\n2\n", []string{"line 3", "time_s"}},
		{"negative replica", "time_s,replica\n0,0\n1,-1\n", []string{"line 3", "replica"}},
		{"fractional replica", "time_s,replica\n0,0\n1,1.5\n", []string{"line 3", "replica", "1.5"}},
		{"huge replica", "time_s,replica\n0,0\n1,1e300\n", []string{"line 3", "replica"}},
		{"replica not a number", "time_s,replica\n0,0\n1,one\n", []string{"line 3", "replica"}},
		{"bad quote", "time_s\n0\n1\"x\n", []string{"line 3"}},
	} {
		got, err := ReadTimelineCSV(strings.NewReader(c.in))
		if err == nil {
			t.Errorf("%s: no error, rows %+v", c.name, got)
			continue
		}
		if got != nil {
			t.Errorf("%s: rows %+v with the error", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

// TestReadTimelineCSVPartialLastLine: a run killed mid-write leaves a
// row without its newline; it is dropped with a note, never an error.
func TestReadTimelineCSVPartialLastLine(t *testing.T) {
	full := "time_s,replica,kv_usage,running,waiting,preemptions\n0.000,0,0.1,2,0,0\n1.000,0,0.2,3,1,0\n"
	for _, c := range []struct {
		name  string
		in    string
		rows  int
		noted bool
	}{
		{"complete", full, 2, false},
		{"cut mid-row", full + "2.000,0,0.", 2, true},
		{"cut mid-number of the last cell", full + "2.000,0,0.3,4,1,1", 2, true},
		{"header only", "time_s,replica\n", 0, false},
	} {
		var notes []string
		rows, err := ReadTimelineCSVNoted(strings.NewReader(c.in), func(s string) { notes = append(notes, s) })
		if err != nil || len(rows) != c.rows || (len(notes) > 0) != c.noted {
			t.Errorf("%s: %d rows, notes %q, %v", c.name, len(rows), notes, err)
		}
		if c.noted && !strings.Contains(notes[0], "line 4") {
			t.Errorf("%s: note %q should name line 4", c.name, notes[0])
		}
	}
}
