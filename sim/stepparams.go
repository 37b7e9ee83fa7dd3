package sim

import (
	"github.com/thinkcap/thinkcap/profiles"
)

// A StepParam is one step-time coefficient as a fit sees it. The step time
// is a sum, maximum and minimum of terms each proportional to one parameter: the
// inverse of an efficiency (time ∝ 1/efficiency) or an overhead itself. In
// those parameters the step time is homogeneous of degree one, so any
// span of steps is the sum over parameters of parameter × its sensitivity:
// a linear model, given the batches (StepModel).
type StepParam struct {
	Name string
	// Inverse: the parameter is 1/value (an efficiency in (0, 1], its key
	// ending in _efficiency); otherwise it is the value (an overhead, >= 0).
	Inverse bool
	Field   func(*profiles.StepCoefficients) *float64
}

// StepParams are the fittable step-time coefficients: the fields of
// profiles.StepCoefficients whose role is profiles.FitStep. Left out are
// fp8_kv_read_penalty, which multiplies kv_bandwidth_efficiency's term, so
// that only their product is identifiable, and the API server's
// coefficients, which are not part of a step (frontend.go).
var StepParams = stepParams()

func stepParams() []StepParam {
	var ps []StepParam
	for _, f := range profiles.StepFields {
		if f.Fit == profiles.FitStep {
			ps = append(ps, StepParam{f.Key, f.Inverse(), f.Value})
		}
	}
	return ps
}

// ParamsOf returns s as fit parameters, in StepParams' order.
func ParamsOf(s profiles.StepCoefficients) []float64 {
	out := make([]float64, len(StepParams))
	for k, c := range StepParams {
		v := *c.Field(&s)
		if c.Inverse && v > 0 {
			v = 1 / v
		}
		out[k] = v
	}
	return out
}

// WithParams returns s with the parameters p (StepParams' order) set.
func WithParams(s profiles.StepCoefficients, p []float64) profiles.StepCoefficients {
	for k, c := range StepParams {
		v := p[k]
		if c.Inverse && v > 0 {
			v = 1 / v
		}
		*c.Field(&s) = v
	}
	return s
}

// sensitivityStep is the relative (efficiencies) or absolute (overheads, in
// their units) change each step-time parameter is nudged by to measure
// the step's sensitivity to it. The step time is piecewise linear in every
// parameter (sums, maxima and minima of linear terms: a minimum is the
// cheaper of two all-reduce protocols, allreduce.go, or the shorter of a
// grouped GEMM's two times, groupedGEMM), so a small finite
// difference is its derivative unless the nudge carries a maximum across
// its kink, where both sides would count: a nudge of 1e-7 does that to
// about one step in ten million, and float64 keeps 8 digits of it.
const sensitivityStep = 1e-7

// StepGradient prices a batch's sensitivity to every parameter: the
// derivative of its step time, in seconds per unit of parameter.
type StepGradient struct {
	base   *StepModel
	nudged []*StepModel // one per parameter; nil when it has no term
	delta  []float64    // the parameter change each nudged model makes
}

// NewStepGradient builds the gradient of cfg's step model.
func NewStepGradient(cfg Config) (*StepGradient, error) {
	base, err := NewStepModel(&cfg)
	if err != nil {
		return nil, err
	}
	g := &StepGradient{base: base, nudged: make([]*StepModel, len(StepParams)), delta: make([]float64, len(StepParams))}
	p := ParamsOf(cfg.Step)
	for k, c := range StepParams {
		q := append([]float64(nil), p...)
		switch {
		case c.Inverse && p[k] > 0:
			g.delta[k] = p[k] * sensitivityStep
		case !c.Inverse:
			g.delta[k] = sensitivityStep
		default:
			continue // an efficiency of 0 is not a valid model
		}
		q[k] += g.delta[k]
		nc := cfg
		nc.Step = WithParams(cfg.Step, q)
		if g.nudged[k], err = NewStepModel(&nc); err != nil || inert(base, g.nudged[k]) {
			g.nudged[k] = nil
		}
	}
	return g, nil
}

// probeBatches are steps of every kind: a lone decode, a large decode
// batch, a prefill beside decodes and a pure prefill.
var probeBatches = []Batch{
	{NumReqs: 1, DecodeReqs: 1, DecodeTokens: 1, ContextTokens: 1000},
	{NumReqs: 256, DecodeReqs: 256, DecodeTokens: 256, ContextTokens: 256 * 2000},
	{NumReqs: 33, DecodeReqs: 32, DecodeTokens: 32, ContextTokens: 32 * 2000, PrefillTokens: 2048, PrefillAttnPairs: 2048 * 2049 / 2},
	{NumReqs: 1, PrefillTokens: 8192, PrefillAttnPairs: 8192 * 8193 / 2},
}

// inert reports whether nudging a parameter changes no probe step: the
// parameter has no term in this deployment (an MoE coefficient of a dense
// model, an all-reduce's at TP 1), so its sensitivity is zero everywhere
// and need not be priced step by step.
func inert(base, nudged *StepModel) bool {
	for i := range probeBatches {
		if base.StepTimeNs(&probeBatches[i]) != nudged.StepTimeNs(&probeBatches[i]) {
			return false
		}
	}
	return true
}

// Base is the step model at the gradient's point.
func (g *StepGradient) Base() *StepModel { return g.base }

// Add adds weight × the batch's sensitivities (in seconds per unit of each
// parameter) to out.
func (g *StepGradient) Add(b *Batch, weight float64, out []float64) {
	t := g.base.StepTimeNs(b)
	for k, m := range g.nudged {
		if m != nil {
			out[k] += weight * (m.StepTimeNs(b) - t) / g.delta[k] / 1e9
		}
	}
}
