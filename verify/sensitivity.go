package verify

import (
	"github.com/thinkcap/thinkcap/sim"
)

// sensitivityStep is the relative (efficiencies) or absolute (overheads, in
// their units) change each step-time parameter is nudged by to measure
// the step's sensitivity to it. The step time is piecewise linear in every
// parameter (sums and maxima of linear terms), so a small finite
// difference is its derivative unless the nudge carries a maximum across
// its kink, where both sides would count: a nudge of 1e-7 does that to
// about one step in ten million, and float64 keeps 8 digits of it.
const sensitivityStep = 1e-7

// stepGradient prices a batch's sensitivity to every parameter: the
// derivative of its step time, in ns per unit of parameter.
type stepGradient struct {
	base   *sim.StepModel
	nudged []*sim.StepModel // one per coefficient; nil when it has no term
	delta  []float64        // the parameter change each nudged model makes
}

func newStepGradient(cfg sim.Config) (*stepGradient, error) {
	base, err := sim.NewStepModel(&cfg)
	if err != nil {
		return nil, err
	}
	g := &stepGradient{base: base, nudged: make([]*sim.StepModel, len(coefficients)), delta: make([]float64, len(coefficients))}
	p := params(cfg.Step)
	for k, c := range coefficients {
		q := append([]float64(nil), p...)
		switch {
		case c.inverse && p[k] > 0:
			g.delta[k] = p[k] * sensitivityStep
		case !c.inverse:
			g.delta[k] = sensitivityStep
		default:
			continue // an efficiency of 0 is not a valid model
		}
		q[k] += g.delta[k]
		nc := cfg
		nc.Step = withParams(cfg.Step, q)
		if g.nudged[k], err = sim.NewStepModel(&nc); err != nil {
			g.nudged[k] = nil
		}
	}
	return g, nil
}

// add adds weight × the batch's sensitivities (in seconds per unit of each
// parameter) to out.
func (g *stepGradient) add(b *sim.Batch, weight float64, out []float64) {
	t := g.base.StepTimeNs(b)
	for k, m := range g.nudged {
		if m != nil {
			out[k] += weight * (m.StepTimeNs(b) - t) / g.delta[k] / 1e9
		}
	}
}
