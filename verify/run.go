package verify

import (
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
}

// LoadRun reads a run directory written by `thinkcap loadtest`:
// results.jsonl and metadata.json are required, timeline.csv and
// summary.json are read when present.
func LoadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	var err error
	if r.Meta, err = loadgen.ReadMetadata(filepath.Join(dir, "metadata.json")); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	r.TimeScale = loadgen.EmulatorTimeScale(r.Meta.ServerVersion)
	if r.Results, err = workload.ReadResultsFile(filepath.Join(dir, "results.jsonl")); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	if len(r.Results) == 0 {
		return nil, fmt.Errorf("run %s: results.jsonl has no result records", dir)
	}
	if f, err := os.Open(filepath.Join(dir, "timeline.csv")); err == nil {
		r.Timeline, err = loadgen.ReadTimelineCSV(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("run %s: timeline.csv: %w", dir, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
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
	}
	r.normalise()
	if err := r.markWarmup(); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	return r, nil
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
