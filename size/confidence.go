package size

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/scenario"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Confidence makes a search buy a stated confidence: each candidate's
// replicas are the fewest at which every SLO holds at the pessimistic edge
// of its interval (scenario.ModelIntervals: chance over Seeds draws of the
// traffic, widened by the step model's measured error, Options.ModelError),
// not at the point estimate. Zero Level: point estimates, as without it.
type Confidence struct {
	Level float64 // e.g. 0.9
	// Seeds is how many draws of the traffic, the search's own included
	// (default scenario.DefaultSeeds); Redraw gives draw k ≥ 1 of it (nil or one
	// seed: the model's error alone).
	Seeds  int
	Redraw func(draw int) ([]workload.Request, error)

	once   sync.Once
	redraw [][]workload.Request
	err    error
}

func (c *Confidence) validate() error {
	if c == nil || c.Level == 0 {
		return nil
	}
	var errs []error
	if !(c.Level >= 0.5 && c.Level <= 0.98) {
		errs = append(errs, inputerr.Fieldf("Confidence", "must be from 0.5 to 0.98, got %g", c.Level))
	}
	if c.Seeds < 0 || c.Seeds > 1000 {
		errs = append(errs, inputerr.Fieldf("Seeds", "must be from 1 to 1000 draws of the traffic, got %d", c.Seeds))
	}
	return errors.Join(errs...)
}

// draws are the traffic's redraws, made once for every candidate.
func (c *Confidence) draws() ([][]workload.Request, error) {
	c.once.Do(func() {
		seeds := c.Seeds
		if seeds == 0 {
			seeds = scenario.DefaultSeeds
		}
		if c.Redraw == nil {
			return
		}
		for k := 1; k < seeds; k++ {
			reqs, err := c.Redraw(k)
			if err != nil {
				c.err = fmt.Errorf("draw %d of the traffic: %w", k, err)
				return
			}
			c.redraw = append(c.redraw, reqs)
		}
	})
	return c.redraw, c.err
}

// Edge is one SLO at the chosen replicas: the point estimate and the
// interval whose pessimistic edge (Hi) was held to the limit.
type Edge struct {
	SLO    string  `json:"slo"`
	LimitS float64 `json:"limit_s"`
	PointS float64 `json:"point_s"`
	LoS    float64 `json:"lo_s"`
	HiS    float64 `json:"hi_s"`
}

// confident is the fewest replicas from r at which every SLO's pessimistic
// edge holds, with that run's measurement and the edges; failed names the
// SLOs whose edge still misses when none does: at the search's maximum, or
// once a replica more no longer brings the worst edge 1% nearer its limit
// (the interval is the model's error on a latency the load does not set,
// as a long prompt's prefill).
func confident(rn *runner, reqs []workload.Request, r int, t trafficInfo) (n int, m Measurement, edges []Edge, failed []string, err error) {
	c := rn.opt.Confidence
	draws, err := c.draws()
	if err != nil {
		return 0, Measurement{}, nil, nil, err
	}
	prompt, output := scenario.TrafficMeans(reqs)
	phase := profiles.PhaseRegime(prompt, output)
	prevWorst := math.Inf(1)
	for n = r; n <= rn.opt.MaxReplicas; n++ {
		if m, err = rn.at(n, reqs, 0); err != nil {
			return 0, m, nil, nil, err
		}
		if !m.Passes() {
			continue // the point estimate itself fails (preemptions, a non-monotone SLO)
		}
		runs := []analysis.Latencies{m.Latencies}
		for k, d := range draws {
			cfg := rn.cfg
			cfg.Replicas = n
			cfg.Seed = int64(workload.DrawSeed(uint64(cfg.Seed), k+1))
			rep, err := sim.Run(cfg, d, sim.Options{})
			if err != nil {
				return 0, m, nil, nil, err
			}
			runs = append(runs, measure(rep, rn.opt.SLOs, rn.opt.MaxPreemptionRate).Latencies)
		}
		// The load per replica, by Little's law, decides the corpus
		// regime whose error applies.
		conc := profiles.ConcurrencyRegime(t.ratePerS * m.Latencies.E2E.Mean / float64(n))
		edges, failed = edges[:0], failed[:0]
		worst := 0.0
		for _, s := range rn.opt.SLOs {
			vals := make([]float64, len(runs))
			for i := range runs {
				vals[i] = s.Of(runs[i])
			}
			p := s.Of(m.Latencies)
			tr := analysis.Range{p, p}
			if len(vals) > 1 {
				tr = analysis.PredictionInterval(vals, c.Level)
			}
			reg := profiles.ErrorRegime{Concurrency: conc, Phase: phase, Generation: rn.cfg.GPU.Generation}
			lo, mid, hi, _, ok := rn.opt.ModelError.Band(scenario.FigureMetric(s.Metric, &m.Latencies), reg, c.Level)
			iv := scenario.Widen(p, tr, lo, mid, hi, ok)
			edges = append(edges, Edge{SLO: s.String(), LimitS: s.LimitS, PointS: p, LoS: iv[0], HiS: iv[1]})
			worst = max(worst, iv[1]/s.LimitS)
			if iv[1] > s.LimitS {
				failed = append(failed, s.Name())
			}
		}
		if len(failed) == 0 || worst > 0.99*prevWorst {
			return n, m, edges, failed, nil
		}
		prevWorst = worst
	}
	return rn.opt.MaxReplicas, m, edges, failed, nil
}

// curveBand is a capacity-curve point's interval of the first SLO's
// statistic: the model's error alone (the curve is one draw of the
// traffic), in the regime of one replica at that rate.
func curveBand(opt *Options, m *Measurement, ratePerS float64, phase, generation string) (lo, hi float64) {
	level := scenario.DefaultConfidence
	if opt.Confidence != nil && opt.Confidence.Level > 0 {
		level = opt.Confidence.Level
	}
	s := opt.SLOs[0]
	conc := profiles.ConcurrencyRegime(ratePerS * m.Latencies.E2E.Mean)
	reg := profiles.ErrorRegime{Concurrency: conc, Phase: phase, Generation: generation}
	qlo, mid, qhi, _, ok := opt.ModelError.Band(scenario.FigureMetric(s.Metric, &m.Latencies), reg, level)
	if !ok {
		return 0, 0
	}
	p := s.Of(m.Latencies)
	r := scenario.Widen(p, analysis.Range{p, p}, qlo, mid, qhi, true)
	return r[0], r[1]
}
