package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/verify"
)

// This file is a sweep: one load test per load point (`--rate 1,2,4,8`,
// `--concurrency 1,8,64`, or GuideLLM's `--sweep N`), each its own run
// directory under --out, then the sweep's table, sweep.json and the
// capacity curve (sweep.png, with the simulator's prediction over it under
// --predict), the one picture that shows where the model and the cluster
// part. Points go from the lightest load up, and the sweep stops at the
// first saturated one: the heavier ones would only queue longer.

// SweepPoint is one load: an offered rate (open loop) or a concurrency
// (closed loop).
type SweepPoint struct {
	Rate        float64 `json:"rate,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"`
}

// Label names the point's run directory: rate-2, concurrency-8.
func (p SweepPoint) Label() string {
	if p.Concurrency > 0 {
		return "concurrency-" + strconv.Itoa(p.Concurrency)
	}
	return "rate-" + strconv.FormatFloat(p.Rate, 'g', 4, 64)
}

// load is the point's offered load, the curve's x.
func (p SweepPoint) load() float64 {
	if p.Concurrency > 0 {
		return float64(p.Concurrency)
	}
	return p.Rate
}

// SweepOptions are a sweep's: one run's options for every point, and the
// points (or Auto).
type SweepOptions struct {
	// Base is every point's options; Base.Out is the sweep's directory,
	// each point a directory in it. A point's requests are Base.Traffic at
	// its rate (pointRequests); its Concurrency is the point's.
	Base Options
	// Points, lightest first; or Auto > 0: GuideLLM's sweep, a
	// synchronous run (concurrency 1), a throughput run (every request at
	// once), then Auto rates evenly between the two runs' request rates.
	Points []SweepPoint
	Auto   int
}

// pointOptions are Base with a point's requests: the base traffic at the
// point's rate, or at a listed concurrency (a closed loop's arrival times
// are not used); GuideLLM's points take the traffic's default rate.
func (so *SweepOptions) pointOptions(base Options, p SweepPoint) (Options, error) {
	o := base
	o.Requests = nil
	o.Traffic.RatePerS, o.Traffic.Concurrency = max(p.Rate, 0), 0
	if so.Auto == 0 {
		o.Traffic.Concurrency = max(p.Concurrency, 0)
	}
	err := o.loadRequests()
	return o, err
}

// SweepRow is one point's outcome.
type SweepRow struct {
	Point SweepPoint `json:"point"`
	Dir   string     `json:"dir"`
	// Measured is the run's summary; Predicted the simulator's of the
	// same run (--predict). Against an emulator both are in its server
	// time (TimeScale: the measured times multiplied by it, the rates
	// divided), as verify compares them.
	Measured  *analysis.Summary `json:"measured,omitempty"`
	Predicted *analysis.Summary `json:"predicted,omitempty"`
	// Saturated says why the point saturated ("" when it did not);
	// Skipped marks a point left out after one that saturated.
	Saturated string  `json:"saturated,omitempty"`
	TimeScale float64 `json:"time_scale,omitempty"`
	Skipped   bool    `json:"skipped,omitempty"`
	Error     string  `json:"error,omitempty"`

	finished, planned int // the run's records and requests
}

// SweepOutcome is a whole sweep.
type SweepOutcome struct {
	Dir  string     `json:"dir"`
	Rows []SweepRow `json:"points"`
	// Interrupted marks a sweep stopped by a signal.
	Interrupted bool `json:"interrupted,omitempty"`
	signal      os.Signal
}

// Sweep runs the points one after the other. A point refused (bad input)
// stops the sweep with its error; one interrupted stops it with what was
// measured so far, written.
func Sweep(ctx context.Context, so SweepOptions) (*SweepOutcome, error) {
	base := so.Base
	if base.Out == "" {
		base.Out = runDirName("") + "-sweep"
	}
	if base.JSON {
		return nil, inputerr.New(errors.New("a sweep prints its table and writes sweep.json in --out; -o json is for one run"))
	}
	if len(base.Thresholds) > 0 || base.MaxFailureRate != nil || base.SaveResult != "" || base.Report != "" {
		return nil, inputerr.New(errors.New("--threshold, --max-failure-rate, --save-result and --report judge or record one run; in a sweep each point's run directory has its summary.json, and the sweep its table, sweep.json and sweep.png"))
	}
	if err := os.MkdirAll(base.Out, 0o755); err != nil {
		return nil, inputerr.New(err)
	}
	out := &SweepOutcome{Dir: base.Out}
	points := slices.Clone(so.Points)
	if so.Auto > 0 {
		points = []SweepPoint{{Concurrency: 1}, {Concurrency: -1}} // the second: every request at once
	}
	for i := 0; i < len(points); i++ {
		p := points[i]
		o, err := so.pointOptions(base, p)
		if err != nil {
			return out, err
		}
		if p.Concurrency < 0 {
			p.Concurrency = len(o.Requests)
		}
		row, stopped, err := runPoint(ctx, o, p, rowBefore(out.Rows))
		if err != nil {
			return out, err
		}
		out.Rows = append(out.Rows, row)
		if stopped != nil {
			out.Interrupted, out.signal = true, stopped
			break
		}
		if so.Auto > 0 && i == 1 {
			points = append(points, autoRates(out.Rows[0], out.Rows[1], so.Auto)...)
		}
		if row.Saturated != "" && so.Auto == 0 {
			for _, q := range points[i+1:] {
				out.Rows = append(out.Rows, SweepRow{Point: q, Skipped: true})
			}
			break
		}
	}
	return out, writeSweepFiles(out)
}

// rowBefore is the last row measured, nil for the first point.
func rowBefore(rows []SweepRow) *SweepRow {
	if len(rows) == 0 {
		return nil
	}
	return &rows[len(rows)-1]
}

// autoRates are n request rates evenly between a synchronous run's and a
// throughput run's achieved rates, as GuideLLM's sweep places them.
func autoRates(sync, throughput SweepRow, n int) []SweepPoint {
	if sync.Measured == nil || throughput.Measured == nil {
		return nil
	}
	lo, hi := sync.Measured.Throughput.RequestsPerS, throughput.Measured.Throughput.RequestsPerS
	if !(hi > lo) {
		return nil
	}
	var ps []SweepPoint
	for i := 1; i <= n; i++ {
		ps = append(ps, SweepPoint{Rate: lo + (hi-lo)*float64(i)/float64(n+1)})
	}
	return ps
}

// runPoint runs one point's load test quietly (its lines on stderr, its
// tables left to the sweep's), and judges whether it saturated.
func runPoint(ctx context.Context, o Options, p SweepPoint, prev *SweepRow) (SweepRow, os.Signal, error) {
	predict := o.Predict
	o.Concurrency = p.Concurrency
	o.Out = filepath.Join(o.Out, p.Label())
	o.Stdout, o.Predict = io.Discard, nil
	row := SweepRow{Point: p, Dir: o.Out}
	fmt.Fprintf(o.Stderr, "thinkcap: sweep point %s\n", p.Label())
	res, err := Run(ctx, o)
	if err != nil {
		return row, nil, err
	}
	verdictErr := Write(io.Discard, res) // releases the signals; the verdict is the sweep's own
	row.Measured, row.finished, row.planned = &res.Summary, res.Finished, res.Planned
	if res.Signal != nil {
		return row, res.Signal, nil
	}
	if res.Aborted != "" {
		row.Error = res.Aborted
	} else if verdictErr != nil {
		row.Error = verdictErr.Error()
	}
	run, err := verify.LoadRun(o.Out)
	if err != nil {
		return row, nil, err
	}
	if k := run.TimeScale; k > 0 && k != 1 {
		s := scaled(res.Summary, k)
		row.Measured, row.TimeScale = &s, k
	}
	row.Saturated = saturation(p, run, row.Measured, prev)
	if predict != nil {
		if pred, err := predictPoint(predict, run); err != nil {
			row.Error = errors.Join(errors.New(row.Error), fmt.Errorf("--predict: %w", err)).Error()
		} else {
			row.Predicted = pred
		}
	}
	return row, nil, nil
}

// predictPoint is the simulator's summary of the run, as verify sets it
// up (in an emulator's server time).
func predictPoint(p *Predict, run *verify.Run) (*analysis.Summary, error) {
	cfg, err := p.Config(run.Meta.Model)
	if err != nil {
		return nil, err
	}
	out, err := verify.Verify(cfg, run, p.Explicit, p.Tolerances, p.MinRequests)
	if err != nil {
		return nil, err
	}
	return &out.Predicted, nil
}

// scaled is a summary measured on an emulator running k times faster than
// its server time, in server time: latencies times k, rates over k.
func scaled(s analysis.Summary, k float64) analysis.Summary {
	t := &s.Throughput
	t.RequestsPerS, t.OutputTokensPerS, t.ThinkTokensPerS, t.AnswerTokensPerS, t.PromptTokensPerS =
		t.RequestsPerS/k, t.OutputTokensPerS/k, t.ThinkTokensPerS/k, t.AnswerTokensPerS/k, t.PromptTokensPerS/k
	l := &s.LatencyS
	for _, st := range []*analysis.Stat{&l.TTFT, &l.TTFTEngine, &l.TTFA, &l.TPOT, &l.ITL, &l.E2E, &l.Queue} {
		st.Mean, st.P50, st.P90, st.P99 = st.Mean*k, st.P50*k, st.P90*k, st.P99*k
	}
	s.DurationS *= k
	if g := s.Goodput; g != nil {
		gc := *g
		gc.RequestsPerS /= k
		s.Goodput = &gc
	}
	return s
}

// Saturation thresholds: more than a tenth failed; the queue grew (the
// requests sent in the schedule's last third waited for their first token
// more than twice as long as the first third's, and a second of server
// time longer); a
// closed loop's output throughput rose less than 5% over the previous
// point's.
const (
	saturatedFailures = 0.10
	saturatedGrowth   = 2.0
	saturatedDelayS   = 1.0
	saturatedGain     = 1.05
)

// saturation says why a point is saturated, "" when it is not.
func saturation(p SweepPoint, run *verify.Run, s *analysis.Summary, prev *SweepRow) string {
	if n := s.Requests.Total; n > 0 && float64(s.Requests.Failed)/float64(n) > saturatedFailures {
		return fmt.Sprintf("%d of %d requests failed", s.Requests.Failed, n)
	}
	if p.Concurrency > 0 {
		if prev != nil && prev.Measured != nil && prev.Point.Concurrency > 0 {
			before, now := prev.Measured.Throughput.OutputTokensPerS, s.Throughput.OutputTokensPerS
			if before > 0 && now < saturatedGain*before {
				return fmt.Sprintf("output throughput %.0f tok/s, %+.1f%% over concurrency %d's", now, 100*(now/before-1), prev.Point.Concurrency)
			}
		}
		return ""
	}
	var ttft []float64
	for i, r := range run.Results {
		if run.Measured[i] && r.OK() {
			ttft = append(ttft, r.TTFTS) // in send order, which is the schedule's
		}
	}
	if len(ttft) < 9 {
		return ""
	}
	third := len(ttft) / 3
	first, last := median(ttft[:third]), median(ttft[len(ttft)-third:])
	if last > saturatedGrowth*first && last-first > saturatedDelayS { // run.Results are in server time
		return fmt.Sprintf("the queue grew: TTFT median %.2f s in the last third of the schedule, %.2f s in the first", last, first)
	}
	return ""
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return analysis.Quantile(s, 0.5)
}
