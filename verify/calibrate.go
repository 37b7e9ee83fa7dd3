package verify

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Calibration is a fit of the step-time coefficients to measured runs.
type Calibration struct {
	// Before is the coefficients the fit started from (the GPU profile's,
	// with any --step-model); After the fitted ones.
	Before profiles.StepCoefficients `json:"before"`
	After  profiles.StepCoefficients `json:"after"`
	// Fitted names the coefficients fitted; Kept those asked for but kept
	// at Before because the runs cannot tell them apart (why, per name).
	Fitted []string          `json:"fitted"`
	Kept   map[string]string `json:"kept,omitempty"`
	// APIOverheadS is, per run, the median time TTFT had beyond the engine's
	// steps (HTTP, tokenisation, the network), in server time, over the
	// requests scheduled on arrival: what the step model cannot have.
	APIOverheadS map[string]float64 `json:"api_overhead_s"`
	Iterations   int                `json:"iterations"`
	// Requests is how many measured decode spans the fit used.
	Requests int `json:"requests"`
	// HeldOut is the error on data the fit did not see: each run fitted on
	// the others, or, with one run, half its requests fitted on the other.
	HeldOut []HeldOut `json:"held_out"`
}

// HeldOut is the prediction error on one held-out set before and after
// calibration.
type HeldOut struct {
	Run string `json:"run"`
	// Split is true when the held-out set is half a run's requests (one run
	// given): the odd ones, predicted by a fit of the even ones.
	Split bool `json:"split,omitempty"`
	// Skipped says why the run could not be held out (the others alone
	// were too few to fit).
	Skipped  string `json:"skipped,omitempty"`
	Requests int    `json:"requests"`
	Before   MAPE   `json:"before"`
	After    MAPE   `json:"after"`
}

// MAPE is the mean absolute percentage error of per-request latencies, as
// fractions.
type MAPE struct {
	TTFT float64 `json:"ttft"`
	TPOT float64 `json:"tpot"`
	E2E  float64 `json:"e2e"`
}

// Calibration limits: iterations of the fit, the parameter change
// (relative) that counts as converged, and the fewest decode spans a fit
// takes.
const (
	maxIterations = 12
	converged     = 1e-3
	minSpans      = 20
)

// errTooFew is a fit without enough data.
var errTooFew = errors.New("calibrate: too few requests to fit")

func runNames(runs []*Run, use []int) string {
	names := make([]string, len(use))
	for k, i := range use {
		names[k] = runs[i].Dir
	}
	return strings.Join(names, ", ")
}

// Calibrate fits the coefficients named in fit (DefaultFit when empty) to
// the runs, each set up as cfgs[i] for runs[i] (by Configure). The data are
// the measured requests' decode spans, first token to last: a sum of the
// engine steps the request decoded in, each a roofline whose terms are
// linear in the parameters (see coefficient), over batches rebuilt from
// every request's measured timings (see reconstruction); the prefill chunks
// that shared those steps carry the compute terms. The fit is least squares
// on relative errors. TTFT is not fitted: it adds the API server's own time
// (HTTP, tokenisation, which grows with the prompt), which the step model
// does not have and which would pass for slow prefill; its median is
// reported, and TTFT is in the held-out error, measured with full replays.
//
// progress, if set, is told of the fits done (the fit on every run, then
// one per held-out fold).
func Calibrate(cfgs []sim.Config, runs []*Run, fit []string, progress func(done, total int)) (*Calibration, error) {
	if len(runs) == 0 || len(cfgs) != len(runs) {
		return nil, errors.New("calibrate: need one configuration per run")
	}
	folds := len(runs) // one held-out fold per run (one run: its odd half)
	report := func(done int) {
		if progress != nil {
			progress(done, 1+folds)
		}
	}
	if len(fit) == 0 {
		fit = DefaultFit
	}
	free, err := parseFit(fit)
	if err != nil {
		return nil, fmt.Errorf("--fit: %w", err)
	}
	all := make([]int, len(runs))
	for i := range runs {
		all[i] = i
	}
	c, err := fitRuns(cfgs, runs, all, free, nil)
	if err != nil {
		return nil, err
	}
	report(1)
	// Held out: each run against a fit of the others; one run: its odd
	// requests against a fit of its even ones.
	if len(runs) == 1 {
		half, err := fitRuns(cfgs, runs, all, free, evenRequests)
		if err != nil {
			return nil, err
		}
		h, err := heldOut(cfgs[0], runs[0], c.Before, half.After, oddRequests)
		if err != nil {
			return nil, err
		}
		h.Split = true
		c.HeldOut = append(c.HeldOut, h)
		report(2)
		return c, nil
	}
	for j := range runs {
		var others []int
		for i := range runs {
			if i != j {
				others = append(others, i)
			}
		}
		part, err := fitRuns(cfgs, runs, others, free, nil)
		report(2 + j)
		if errors.Is(err, errTooFew) {
			c.HeldOut = append(c.HeldOut, HeldOut{Run: runs[j].Dir, Skipped: err.Error()})
			continue
		}
		if err != nil {
			return nil, err
		}
		h, err := heldOut(cfgs[j], runs[j], c.Before, part.After, nil)
		if err != nil {
			return nil, err
		}
		c.HeldOut = append(c.HeldOut, h)
	}
	return c, nil
}

// requestFilter picks the requests of a run a fit or an evaluation uses, by
// their index among the run's measured, replayed requests.
type requestFilter func(i int) bool

func evenRequests(i int) bool { return i%2 == 0 }
func oddRequests(i int) bool  { return i%2 == 1 }

// fitRuns fits the free coefficients to the decode spans of the chosen
// runs' measured requests (those pick keeps) that no preemption touched.
// The batches come from the measured timings (reconstruction); what
// depends on the coefficients is which side of each step's roofline
// maximum binds and the step clock, so the fit is repeated with the new
// coefficients until they settle. Then it measures, per run, the time TTFT
// has beyond the engine's steps.
func fitRuns(cfgs []sim.Config, runs []*Run, use []int, free []bool, pick requestFilter) (*Calibration, error) {
	before := cfgs[use[0]].Step
	p := params(before)
	c := &Calibration{Before: before}
	K := len(coefficients)
	lower := make([]float64, K)
	for k, co := range coefficients {
		if co.inverse {
			lower[k] = 1 // an efficiency is at most 1
		}
	}
	type span struct {
		run, req int
		y        float64
	}
	var spans []span
	recs := map[int]*reconstruction{}
	for _, i := range use {
		rec, measured, err := newReconstruction(cfgs[i], runs[i])
		if err != nil {
			return nil, err
		}
		recs[i] = rec
		for j, q := range rec.reqs {
			if measured[j] < 0 || pick != nil && !pick(measured[j]) || rec.preempted(q.arrive, q.end) {
				continue
			}
			if q.outputs >= 2 && q.end > q.first {
				spans = append(spans, span{i, j, q.end - q.first})
			}
		}
	}
	c.Requests = len(spans)
	if c.Requests < minSpans {
		return nil, fmt.Errorf("%w: %d decode spans untouched by preemption in %s, want %d or more", errTooFew, c.Requests, runNames(runs, use), minSpans)
	}
	grads := map[int]*stepGradient{}
	setModels := func() error {
		for _, i := range use {
			cfg := cfgs[i]
			cfg.Step = withParams(cfg.Step, p)
			g, err := newStepGradient(cfg)
			if err != nil {
				return fmt.Errorf("calibrate: %w", err)
			}
			grads[i] = g
			recs[i].buildClocks(g.base)
		}
		return nil
	}
	for c.Iterations = 1; c.Iterations <= maxIterations; c.Iterations++ {
		if err := setModels(); err != nil {
			return nil, err
		}
		rows := make([][]float64, 0, len(spans))
		rhs := make([]float64, 0, len(spans))
		share := make([]float64, K)
		total := 0.0
		for _, sp := range spans {
			g := make([]float64, K)
			recs[sp.run].decodeSpan(sp.req, grads[sp.run], g)
			// Scaled by 1/measured: the fit minimises relative errors, so a
			// 2 s decode counts as much as a 60 s one.
			row := make([]float64, K)
			for k := range K {
				row[k] = g[k] / sp.y
				share[k] += math.Abs(g[k] * p[k])
				total += math.Abs(g[k] * p[k])
			}
			rows, rhs = append(rows, row), append(rhs, 1)
		}
		// A coefficient whose terms are under 0.5% of the engine time the
		// runs saw cannot be fitted from them: keep it.
		c.Kept = map[string]string{}
		fitFree := append([]bool(nil), free...)
		for k, co := range coefficients {
			if free[k] && share[k] < 0.005*total {
				fitFree[k] = false
				c.Kept[co.name] = fmt.Sprintf("%.2f%% of the engine time", 100*share[k]/max(total, 1e-300))
			}
		}
		x, err := analysis.LeastSquaresBounded(rows, rhs, p, lower, fitFree)
		if err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
		moved := 0.0
		for k := range K {
			if p[k] != 0 {
				moved = max(moved, math.Abs(x[k]-p[k])/math.Abs(p[k]))
			} else {
				moved = max(moved, math.Abs(x[k]))
			}
		}
		copy(p, x)
		if moved < converged {
			break
		}
	}
	c.Iterations = min(c.Iterations, maxIterations)
	c.After = withParams(before, p)
	c.Fitted = nil
	for k, co := range coefficients {
		if free[k] {
			if _, kept := c.Kept[co.name]; !kept {
				c.Fitted = append(c.Fitted, co.name)
			}
		}
	}
	// What TTFT has beyond the engine: the median, over requests scheduled
	// on arrival, of measured TTFT less the rebuilt steps at the fit.
	if err := setModels(); err != nil {
		return nil, err
	}
	c.APIOverheadS = map[string]float64{}
	for _, i := range use {
		var excess []float64
		for j, q := range recs[i].reqs {
			g := make([]float64, K)
			if recs[i].preempted(q.arrive, q.first) || !recs[i].ttftSpan(j, grads[i], g) {
				continue
			}
			engine := 0.0
			for k := range K {
				engine += p[k] * g[k]
			}
			excess = append(excess, q.first-q.arrive-engine)
		}
		if len(excess) > 0 {
			sort.Float64s(excess)
			c.APIOverheadS[runs[i].Dir] = analysis.Quantile(excess, 0.5)
		}
	}
	return c, nil
}

// newReconstruction rebuilds a run's batches (see reconstruction). measured
// gives, for each of its requests, the position among the run's measured
// replayed requests (the index PredictedResults and MeasuredResults use),
// or -1 for a warm-up request.
func newReconstruction(cfg sim.Config, r *Run) (*reconstruction, []int, error) {
	if err := cfg.Resolve(); err != nil {
		return nil, nil, err
	}
	rec := &reconstruction{budget: cfg.MaxNumBatchedTokens, al: 1}
	if sc := cfg.Speculative; sc != nil {
		rec.k = sc.NumSpeculativeTokens
		if sampler, err := sim.NewAcceptanceSampler(sc.AcceptanceRates); err == nil && len(sc.AcceptanceRates) > 0 {
			rec.al = sampler.MeanAcceptanceLength()
		}
	}
	var measured []int
	var results []workload.Result
	ordinal := 0
	for i := range r.Results {
		res := &r.Results[i]
		if !Replayed(res) {
			continue
		}
		pos := -1
		if r.Measured[i] {
			pos = ordinal
			ordinal++
		}
		if res.TTFTS <= 0 || res.E2ES < res.TTFTS {
			continue
		}
		results = append(results, *res)
		measured = append(measured, pos)
	}
	rec.reqs = timedRequests(results, cfg.Replicas)
	rec.indexRequests()
	rec.timeline = runTimeline(r.Timeline)
	return rec, measured, nil
}

// heldOut measures the error on a run (its requests pick chooses) with the
// coefficients before and after.
func heldOut(cfg sim.Config, r *Run, before, after profiles.StepCoefficients, pick requestFilter) (HeldOut, error) {
	h := HeldOut{Run: r.Dir}
	for _, side := range []struct {
		step profiles.StepCoefficients
		dst  *MAPE
	}{{before, &h.Before}, {after, &h.After}} {
		c := cfg
		c.Step = side.step
		p, err := Predict(c, r)
		if err != nil {
			return h, err
		}
		*side.dst, h.Requests = mape(p.PredictedResults, p.MeasuredResults, pick)
	}
	return h, nil
}

// mape is the mean absolute percentage error of TTFT, TPOT and E2E over the
// picked requests that completed on both sides.
func mape(pred, meas []workload.Result, pick requestFilter) (MAPE, int) {
	var m MAPE
	var n, nTPOT float64
	ape := func(p, v float64) float64 { return math.Abs(p-v) / v }
	for i := range meas {
		if pick != nil && !pick(i) {
			continue
		}
		p, v := &pred[i], &meas[i]
		if !p.OK() || !v.OK() || v.TTFTS <= 0 || v.E2ES <= 0 {
			continue
		}
		n++
		m.TTFT += ape(p.TTFTS, v.TTFTS)
		m.E2E += ape(p.E2ES, v.E2ES)
		if v.TPOTS > 0 {
			nTPOT++
			m.TPOT += ape(p.TPOTS, v.TPOTS)
		}
	}
	if n > 0 {
		m.TTFT /= n
		m.E2E /= n
	}
	if nTPOT > 0 {
		m.TPOT /= nTPOT
	}
	return m, int(n)
}
