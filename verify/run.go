package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// Run is a load test's run directory, read back. Every time in it is in
// the server's time: a `thinkcap serve --time-scale S` run is stretched by
// S on reading, so that it lines up with a simulation of the same server.
type Run struct {
	Dir string
	// Results are every result record, warm-up included, in issue order.
	// Latencies are from the time each request was sent (the server cannot
	// see a late send), and ArrivalS is the sent time.
	Results []workload.Result
	// Measured marks the results the load test's statistics covered (not
	// warm-up).
	Measured []bool
	Timeline []loadgen.TimelineRow
	Meta     loadgen.Metadata
	// Summary is the load test's summary.json (nil when it is missing: an
	// interrupted run).
	Summary *analysis.Summary
	// TimeScale is the emulator's time scale (1 for a real server).
	TimeScale float64
	// State is how the load test ended, with notes on what was read.
	State RunState
}

// LoadRun reads a run directory written by `thinkcap loadtest`:
// results.jsonl and metadata.json are required, timeline.csv and
// summary.json are read when present. A run that ended early (interrupted,
// aborted, or killed: metadata.json's state, a partial last line in
// results.jsonl or timeline.csv, no summary.json) reads as far as it
// goes, and State says so.
func LoadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	var err error
	if r.Meta, err = loadgen.ReadMetadata(filepath.Join(dir, "metadata.json")); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	if r.State, err = readRunState(dir); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	r.TimeScale = loadgen.EmulatorTimeScale(r.Meta.ServerVersion)
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	if r.Results, err = readRunResults(filepath.Join(dir, "results.jsonl"), note); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	if r.Timeline, err = readRunTimeline(filepath.Join(dir, "timeline.csv"), note); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		var s analysis.Summary
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("run %s: summary.json: %w", dir, err)
		}
		r.Summary = &s
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	} else if r.State.Early() {
		note("no summary.json: the figures are rebuilt from results.jsonl and timeline.csv")
	}
	r.State.RequestsFinished = len(r.Results)
	if n := r.State.endNote(); n != "" {
		notes = append([]string{n}, notes...)
	}
	r.State.Notes = notes
	r.normalise()
	if err := r.markWarmup(); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	return r, nil
}

// readRunResults reads results.jsonl, dropping a partial last line (a
// writer killed mid-record) with a note. A file with no whole record
// reads as no results.
func readRunResults(path string, note func(string, ...any)) ([]workload.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) { // gzip: written whole, not appended
		return workload.ReadResults(bytes.NewReader(data), path)
	}
	data, dropped := dropPartialLine(data, func(line []byte) bool { return json.Valid(line) })
	if dropped > 0 {
		note("results.jsonl: dropped the partial last line %d (the writer stopped mid-record)", dropped)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		note("results.jsonl holds no result records")
		return nil, nil
	}
	return workload.ReadResults(bytes.NewReader(data), path)
}

// readRunTimeline reads timeline.csv when there is one, dropping a partial
// last line with a note: the load generator appends a row per scrape, and
// a CSV writer ends every whole row with a newline.
func readRunTimeline(path string, note func(string, ...any)) ([]loadgen.TimelineRow, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, dropped := dropPartialLine(data, func([]byte) bool { return false })
	if dropped > 0 {
		note("timeline.csv: dropped the partial last line %d", dropped)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		note("timeline.csv is empty: no server timeline")
		return nil, nil
	}
	rows, err := loadgen.ReadTimelineCSV(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("timeline.csv: %w", err)
	}
	return rows, nil
}

// normalise puts the results in issue order, measures them from their sent
// time and stretches every time by the emulator's time scale.
func (r *Run) normalise() {
	sort.SliceStable(r.Results, func(i, j int) bool { return r.Results[i].ScheduledS < r.Results[j].ScheduledS })
	k := r.TimeScale
	for i := range r.Results {
		res := &r.Results[i]
		sent := res.SentS
		if sent == 0 {
			sent = res.ArrivalS // sent at the very start, or never sent
		}
		lag := max(sent-res.ArrivalS, 0)
		res.ArrivalS = sent
		shift := func(v *float64) {
			if *v > 0 {
				*v = max(*v-lag, 0)
			}
		}
		shift(&res.TTFTS)
		shift(&res.TTFAS)
		shift(&res.E2ES)
		for _, v := range []*float64{&res.ArrivalS, &res.ScheduledS, &res.SentS, &res.TTFTS, &res.TTFAS,
			&res.ThinkS, &res.TPOTS, &res.E2ES, &res.ITLMeanS, &res.ITLP99S} {
			*v *= k
		}
	}
	for i := range r.Timeline {
		r.Timeline[i].TimeS *= k
	}
	if s := r.Summary; s != nil && k != 1 {
		scaleLatencies(&s.LatencyS, k)
		if s.LatencyFromSentS != nil {
			scaleLatencies(s.LatencyFromSentS, k)
		}
	}
}

func scaleLatencies(l *analysis.Latencies, k float64) {
	for _, st := range []*analysis.Stat{&l.TTFT, &l.TTFA, &l.TPOT, &l.ITL, &l.E2E, &l.Queue} {
		st.Mean, st.P50, st.P90, st.P99 = st.Mean*k, st.P50*k, st.P90*k, st.P99*k
	}
}

// markWarmup marks the requests the load test measured: all but the warm-up
// (metadata's options.warmup: the first N issued, or those scheduled in the
// first D).
func (r *Run) markWarmup() error {
	r.Measured = make([]bool, len(r.Results))
	n, d := 0, time.Duration(0)
	if w, ok := r.Meta.Options["warmup"].(string); ok && w != "" {
		var err error
		if n, d, err = loadgen.ParseWarmup(w); err != nil {
			return fmt.Errorf("metadata.json: options.warmup: %w", err)
		}
	}
	for i := range r.Results {
		r.Measured[i] = i >= n && r.Results[i].ScheduledS >= d.Seconds()*r.TimeScale
	}
	return nil
}

// MeasuredResults returns the measured results.
func (r *Run) MeasuredResults() []workload.Result {
	var out []workload.Result
	for i := range r.Results {
		if r.Measured[i] {
			out = append(out, r.Results[i])
		}
	}
	return out
}
