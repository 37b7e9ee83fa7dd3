package calibrate

import (
	"fmt"
	"math"
	"sort"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
)

// fitRuns fits the free coefficients to the decode spans of the chosen
// runs' measured requests (those pick keeps) that no preemption touched.
// The batches come from the measured timings (reconstruction); what
// depends on the coefficients is which side of each step's roofline
// maximum binds and the step clock, so the fit is repeated with the new
// coefficients until they settle. Then it measures, per run, the time TTFT
// has beyond the engine's steps.
func fitRuns(obs []Observation, use []int, free []bool, pick requestFilter) (*Calibration, error) {
	before := obs[use[0]].Config.Step
	p := ParamsOf(before)
	c := &Calibration{Before: before}
	K := len(Params)
	type span struct {
		run, req int
		y        float64
	}
	var spans []span
	recs := map[int]*reconstruction{}
	for _, i := range use {
		rec, measured, err := newReconstruction(&obs[i])
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
		return nil, fmt.Errorf("%w: %d decode spans untouched by preemption in %s, want %d or more", errTooFew, c.Requests, runNames(obs, use), minSpans)
	}
	grads := map[int]*stepGradient{}
	setModels := func() error {
		for _, i := range use {
			cfg := obs[i].Config
			cfg.Step = WithParams(cfg.Step, p)
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
		rows := make([]Row, 0, len(spans))
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
			rows = append(rows, Row{A: row, B: 1, W: 1})
		}
		// A coefficient whose terms are under 0.5% of the engine time the
		// runs saw cannot be fitted from them: keep it.
		c.Kept = map[string]string{}
		fitFree := append([]bool(nil), free...)
		for k, co := range Params {
			if free[k] && share[k] < 0.005*total {
				fitFree[k] = false
				c.Kept[co.Key] = fmt.Sprintf("%.2f%% of the engine time", 100*share[k]/max(total, 1e-300))
			}
		}
		x, err := Solver{}.Solve(rows, p, p, fitFree)
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
	c.Fitted = nil
	for k, co := range Params {
		if free[k] {
			if _, kept := c.Kept[co.Key]; !kept {
				c.Fitted = append(c.Fitted, co.Key)
			}
		}
	}
	c.After = fittedCoefficients(before, p, c.Fitted)
	copy(p, ParamsOf(c.After))
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
			c.APIOverheadS[obs[i].Name] = analysis.Quantile(excess, 0.5)
		}
	}
	return c, nil
}

// newReconstruction rebuilds a run's batches (see reconstruction). measured
// gives, for each of its requests, the position among the run's measured
// requests (the index Observation.Predict's results use), or -1 for a
// warm-up request.
func newReconstruction(o *Observation) (*reconstruction, []int, error) {
	cfg := o.Config
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
	// Each replayed request, in issue order, goes to the replica
	// round-robin routing gives it; those without a first token have no
	// timings to rebuild from.
	var measured []int
	replicas := max(cfg.Replicas, 1)
	ordinal, n := 0, 0
	for i := range o.Requests {
		res := &o.Requests[i]
		pos := -1
		if o.Measured[i] {
			pos = ordinal
			ordinal++
		}
		replica := n % replicas
		n++
		if res.TTFTS <= 0 || res.E2ES < res.TTFTS {
			continue
		}
		// The engine sees a request after the API server's own time (the
		// model's mean: the measurement does not say).
		first := res.ArrivalS + res.TTFTS
		rec.reqs = append(rec.reqs, timedRequest{
			arrive: min(res.ArrivalS+cfg.APIDelayS(res.PromptTokens), first), first: first, end: res.ArrivalS + res.E2ES,
			prompt: res.PromptTokens, cached: min(res.CachedTokens, res.PromptTokens),
			outputs: res.ThinkTokens + res.AnswerTokens, replica: replica,
		})
		measured = append(measured, pos)
	}
	rec.indexRequests()
	rec.timeline = o.Timeline
	return rec, measured, nil
}
