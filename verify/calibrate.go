package verify

import (
	"errors"
	"fmt"
	"math"

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
	// APIOverheadS is, per run, the time every request's TTFT had beyond
	// the engine's steps (HTTP, tokenisation, the network), in server time:
	// fitted alongside so that it does not bias the coefficients, and not
	// part of the step model.
	APIOverheadS map[string]float64 `json:"api_overhead_s"`
	Iterations   int     `json:"iterations"`
	// Requests is how many request latencies (TTFT and decode span each)
	// the final fit used.
	Requests int `json:"requests"`
	// HeldOut is the error on data the fit did not see: each run fitted on
	// the others, or, with one run, half its requests fitted on the other.
	HeldOut []HeldOut `json:"held_out"`
}

// HeldOut is the prediction error on one held-out set before and after
// calibration.
type HeldOut struct {
	Run      string `json:"run"`
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

// Calibration limits: iterations of replay-and-fit, and the parameter
// change (relative) that counts as converged.
const (
	maxIterations = 12
	converged     = 1e-3
)

// Calibrate fits the coefficients named in fit (DefaultFit when empty) to
// the runs, each replayed through its configured deployment (cfgs[i] for
// runs[i], set up by Configure). A latency is a sum of engine steps, so,
// given the steps the replay put each request through, its TTFT and decode
// span are linear in the step-time parameters (see coefficient): each
// iteration replays every run, fits the parameters by least squares on the
// relative errors of every measured request's TTFT and decode span (plus a
// constant API overhead on TTFT), and replays again with the fit, until the
// parameters move less than 0.1%.
func Calibrate(cfgs []sim.Config, runs []*Run, fit []string) (*Calibration, error) {
	if len(runs) == 0 || len(cfgs) != len(runs) {
		return nil, errors.New("calibrate: need one configuration per run")
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
		c.HeldOut = append(c.HeldOut, h)
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

// fitRuns iterates replay and fit over the chosen runs.
func fitRuns(cfgs []sim.Config, runs []*Run, use []int, free []bool, pick requestFilter) (*Calibration, error) {
	before := cfgs[use[0]].Step
	p := params(before)
	c := &Calibration{Before: before}
	K := len(coefficients)
	overhead := make([]float64, len(use)) // per run, the last column(s)
	lower := make([]float64, K+len(use))
	for k, co := range coefficients {
		if co.inverse {
			lower[k] = 1 // an efficiency is at most 1
		}
	}
	for c.Iterations = 1; c.Iterations <= maxIterations; c.Iterations++ {
		var rows [][]float64
		var rhs []float64
		share := make([]float64, K)
		total := 0.0
		for u, i := range use {
			cfg := cfgs[i]
			cfg.Step = withParams(cfg.Step, p)
			r, err := sensitivities(cfg, runs[i])
			if err != nil {
				return nil, err
			}
			for n := range r.ttft {
				if pick != nil && !pick(n) {
					continue
				}
				// Rows are scaled by 1/measured: the fit minimises relative
				// errors, so a 20 ms TTFT counts as much as a 20 s decode.
				add := func(g []float64, y float64, ttft bool) {
					if !(y > 0) {
						return
					}
					row := make([]float64, K+len(use))
					for k := range K {
						row[k] = g[k] / y
						share[k] += math.Abs(g[k] * p[k])
						total += math.Abs(g[k] * p[k])
					}
					if ttft {
						row[K+u] = 1 / y
					}
					rows = append(rows, row)
					rhs = append(rhs, 1)
				}
				if debugTTFT {
					add(r.ttft[n], r.measured[n].TTFTS, true)
				}
				add(r.decode[n], r.measured[n].E2ES-r.measured[n].TTFTS, false)
			}
		}
		c.Requests = len(rows) / 2
		// A coefficient whose terms are under 0.5% of the engine time the
		// runs saw cannot be fitted from them: keep it.
		c.Kept = map[string]string{}
		fitFree := append([]bool(nil), free...)
		for range use {
			fitFree = append(fitFree, true)
		}
		for k, co := range coefficients {
			if free[k] && share[k] < 0.005*total {
				fitFree[k] = false
				c.Kept[co.name] = fmt.Sprintf("its terms are %.2f%% of the engine time in these runs", 100*share[k]/max(total, 1e-300))
			}
		}
		x0 := append(append([]float64(nil), p...), overhead...)
		if !debugTTFT {
			for u := range use {
				fitFree[K+u] = false
			}
		}
		x, err := analysis.LeastSquaresBounded(rows, rhs, x0, lower, fitFree)
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
		copy(p, x[:K])
		copy(overhead, x[K:])
		if debugFit != nil {
			debugFit(c.Iterations, p)
		}
		if moved < converged {
			break
		}
	}
	c.Iterations = min(c.Iterations, maxIterations)
	c.After = withParams(before, p)
	c.APIOverheadS = map[string]float64{}
	for u, i := range use {
		c.APIOverheadS[runs[i].Dir] = overhead[u]
	}
	c.Fitted = nil
	for k, co := range coefficients {
		if free[k] {
			if _, kept := c.Kept[co.name]; !kept {
				c.Fitted = append(c.Fitted, co.name)
			}
		}
	}
	return c, nil
}

// runSensitivity is one replay's measured requests with their predicted
// sensitivities.
type runSensitivity struct {
	measured, predicted []workload.Result
	ttft, decode        [][]float64
}

// sensitivities replays the run with cfg and returns, for each measured
// request, the sensitivities of its predicted TTFT and decode span.
func sensitivities(cfg sim.Config, r *Run) (*runSensitivity, error) {
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	rec, err := newStepRecorder(cfg, cfg.Replicas)
	if err != nil {
		return nil, err
	}
	p, err := predict(cfg, r, sim.Options{OnStep: rec.onStep})
	if err != nil {
		return nil, err
	}
	out := &runSensitivity{measured: p.MeasuredResults, predicted: p.PredictedResults}
	for i := range p.PredictedResults {
		pr := &p.PredictedResults[i]
		var t, d []float64
		if pr.OK() || pr.Status == workload.StatusTruncated {
			t, d = rec.spans(pr)
		} else {
			t, d = make([]float64, len(coefficients)), make([]float64, len(coefficients))
		}
		out.ttft, out.decode = append(out.ttft, t), append(out.decode, d)
	}
	return out, nil
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

var debugFit func(int, []float64)
var debugTTFT = false
