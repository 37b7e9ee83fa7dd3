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

// WriteTimelineCSV writes one row per sample: time_s is seconds since
// start, replica is 0 (a load test sees one server; running and waiting
// are summed and kv_usage averaged over its data-parallel engines), and
// every counter column (preemptions onwards) is the increase since the
// first sample, resets handled as in Summarize, so it starts at 0 like the
// simulator's. A quantity the server does not expose is an empty cell.
func WriteTimelineCSV(w io.Writer, samples []Sample, start time.Time) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(timelineColumns); err != nil {
		return err
	}
	counters := []struct {
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
	type running struct {
		seen      bool
		last, sum float64
	}
	acc := make([]running, len(counters))
	row := make([]string, len(timelineColumns))
	for i := range samples {
		s := &samples[i].Snapshot
		row[0] = strconv.FormatFloat(samples[i].Time.Sub(start).Seconds(), 'f', 3, 64)
		row[1] = "0"
		row[2] = timelineCell(s, FieldKVUsage, s.KVUsage, 6)
		row[3] = timelineCell(s, FieldRunning, s.Running, -1)
		row[4] = timelineCell(s, FieldWaiting, s.Waiting, -1)
		for j, c := range counters {
			a := &acc[j]
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
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// timelineCell formats v, or "" when the snapshot lacks f.
func timelineCell(s *Snapshot, f Field, v float64, prec int) string {
	if !s.Has(f) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
