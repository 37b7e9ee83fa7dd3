package loadgen

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// timelineColumns starts with the simulator's timeline columns
// (sim/timeline_csv.go), so `verify` can line a load test up with a
// simulation, and adds the counters only a real server has.
var timelineColumns = []string{
	"time_s", "replica", "kv_usage", "running", "waiting", "preemptions",
	"prompt_tokens", "generation_tokens", "spec_accepted", "spec_drafts", "prefix_hits", "prefix_queries",
}

// timelineCounters are the counter columns, preemptions onwards.
var timelineCounters = []struct {
	f   Field
	get func(*Snapshot) float64
}{
	{FieldPreemptions, func(s *Snapshot) float64 { return s.Preemptions }},
	{FieldPromptTokens, func(s *Snapshot) float64 { return s.PromptTokens }},
	{FieldGenerationTokens, func(s *Snapshot) float64 { return s.GenerationTokens }},
	{FieldSpecAccepted, func(s *Snapshot) float64 { return s.SpecAccepted }},
	{FieldSpecDrafts, func(s *Snapshot) float64 { return s.SpecDrafts }},
	{FieldPrefixHits, func(s *Snapshot) float64 { return s.PrefixHits }},
	{FieldPrefixQueries, func(s *Snapshot) float64 { return s.PrefixQueries }},
}

// TimelineWriter writes timeline.csv one sample at a time, as the run
// scrapes: time_s is seconds since start, replica is 0 (a load test sees
// one server; running and waiting are summed and kv_usage averaged over
// its data-parallel engines), and every counter column (preemptions
// onwards) is the increase since the first sample having it, resets
// handled as in Summarize, so it starts at 0 like the simulator's. A
// quantity the server did not expose in a scrape is an empty cell, never
// a 0. It is not safe for concurrent use.
type TimelineWriter struct {
	cw    *csv.Writer
	start time.Time
	acc   []timelineCounter
	row   []string
}

type timelineCounter struct {
	seen      bool
	last, sum float64
}

// NewTimelineWriter writes to w, counting time from start.
func NewTimelineWriter(w io.Writer, start time.Time) *TimelineWriter {
	return &TimelineWriter{cw: csv.NewWriter(w), start: start,
		acc: make([]timelineCounter, len(timelineCounters)), row: make([]string, len(timelineColumns))}
}

// WriteHeader writes the column names.
func (t *TimelineWriter) WriteHeader() error {
	if err := t.cw.Write(timelineColumns); err != nil {
		return err
	}
	t.cw.Flush()
	return t.cw.Error()
}

// Write writes one sample's row and flushes it to the underlying writer.
func (t *TimelineWriter) Write(smp *Sample) error {
	s := &smp.Snapshot
	row := t.row
	row[0] = strconv.FormatFloat(smp.Time.Sub(t.start).Seconds(), 'f', 3, 64)
	row[1] = "0"
	row[2] = timelineCell(s, FieldKVUsage, s.KVUsage, 6)
	row[3] = timelineCell(s, FieldRunning, s.Running, -1)
	row[4] = timelineCell(s, FieldWaiting, s.Waiting, -1)
	for j, c := range timelineCounters {
		a := &t.acc[j]
		if !s.Has(c.f) {
			row[5+j] = ""
			continue
		}
		v := c.get(s)
		if a.seen {
			var reset bool
			a.sum += counterDelta(a.last, v, &reset)
		}
		a.seen, a.last = true, v
		row[5+j] = strconv.FormatFloat(a.sum, 'f', -1, 64)
	}
	if err := t.cw.Write(row); err != nil {
		return err
	}
	t.cw.Flush()
	return t.cw.Error()
}

// WriteTimelineCSV writes a header and one row per sample (TimelineWriter).
func WriteTimelineCSV(w io.Writer, samples []Sample, start time.Time) error {
	t := NewTimelineWriter(w, start)
	if err := t.WriteHeader(); err != nil {
		return err
	}
	for i := range samples {
		if err := t.Write(&samples[i]); err != nil {
			return err
		}
	}
	return nil
}

// timelineCell formats v, or "" when the snapshot lacks f.
func timelineCell(s *Snapshot, f Field, v float64, prec int) string {
	if !s.Has(f) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
