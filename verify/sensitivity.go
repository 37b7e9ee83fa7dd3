package verify

import (
	"math"
	"sort"

	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// sensitivityStep is the relative (efficiencies) or absolute (overheads, in
// their units) change each step-time parameter is nudged by to measure
// the step's sensitivity to it. The step time is piecewise linear in every
// parameter (sums and maxima of linear terms), so a small finite
// difference is its derivative unless the nudge carries a maximum across
// its kink, where both sides would count: a nudge of 1e-7 does that to
// about one step in ten million, and float64 keeps 8 digits of it.
const sensitivityStep = 1e-7

// stepRecorder watches a replay's engine steps (sim.Options.OnStep) and
// keeps, per replica, every step's span and the running sum of the steps'
// sensitivities to each parameter: the derivative of elapsed engine time.
type stepRecorder struct {
	base    *sim.StepModel
	nudged  []*sim.StepModel // one per coefficient; nil when it cannot move
	delta   []float64        // the parameter change each nudged model makes
	grad    []float64        // scratch
	replica []stepLog
}

type stepLog struct {
	start, end []int64
	cum        []float64 // (steps+1) × parameters, row i = Σ over steps before i
}

func newStepRecorder(cfg sim.Config, replicas int) (*stepRecorder, error) {
	base, err := sim.NewStepModel(&cfg)
	if err != nil {
		return nil, err
	}
	r := &stepRecorder{base: base, nudged: make([]*sim.StepModel, len(coefficients)),
		delta: make([]float64, len(coefficients)), grad: make([]float64, len(coefficients)),
		replica: make([]stepLog, replicas)}
	p := params(cfg.Step)
	for k, c := range coefficients {
		q := append([]float64(nil), p...)
		switch {
		case c.inverse && p[k] > 0:
			r.delta[k] = p[k] * sensitivityStep
		case !c.inverse:
			r.delta[k] = sensitivityStep
		default:
			continue // an efficiency of 0 is not a valid model
		}
		q[k] += r.delta[k]
		nc := cfg
		nc.Step = withParams(cfg.Step, q)
		if r.nudged[k], err = sim.NewStepModel(&nc); err != nil {
			r.nudged[k] = nil // e.g. interconnect at TP 1: no term
		}
	}
	for i := range r.replica {
		r.replica[i].cum = make([]float64, len(coefficients))
	}
	return r, nil
}

// onStep is sim.Options.OnStep.
func (r *stepRecorder) onStep(replica int, startNs, durNs int64, b *sim.Batch) {
	t := r.base.StepTimeNs(b)
	for k, m := range r.nudged {
		r.grad[k] = 0
		if m != nil {
			r.grad[k] = (m.StepTimeNs(b) - t) / r.delta[k]
		}
	}
	l := &r.replica[replica]
	l.start = append(l.start, startNs)
	l.end = append(l.end, startNs+durNs)
	last := l.cum[len(l.cum)-len(coefficients):]
	for k := range coefficients {
		l.cum = append(l.cum, last[k]+r.grad[k])
	}
}

// elapsedAt writes into out the cumulative sensitivity of replica's engine
// time up to t ns: whole steps before t, and the elapsed fraction of the
// step in flight at t.
func (r *stepRecorder) elapsedAt(replica int, t float64, out []float64) {
	l := &r.replica[replica]
	K := len(coefficients)
	i := sort.Search(len(l.start), func(i int) bool { return float64(l.start[i]) > t }) - 1
	if i < 0 {
		clear(out)
		return
	}
	copy(out, l.cum[i*K:(i+1)*K])
	frac := 1.0
	if span := float64(l.end[i] - l.start[i]); t < float64(l.end[i]) && span > 0 {
		frac = (t - float64(l.start[i])) / span
	}
	for k := range out {
		out[k] += frac * (l.cum[(i+1)*K+k] - l.cum[i*K+k])
	}
}

// spans returns a predicted result's sensitivities over its time to first
// token and its decode span (first token to last): seconds per unit of each
// parameter. While a request waits or runs its replica never idles, so
// both spans are back-to-back steps whose times sum to the latency.
func (r *stepRecorder) spans(res *workload.Result) (ttft, decode []float64) {
	K := len(coefficients)
	a := res.ArrivalS * 1e9
	f, e := a+res.TTFTS*1e9, a+res.E2ES*1e9
	at := make([]float64, 3*K)
	r.elapsedAt(res.Replica, a, at[:K])
	r.elapsedAt(res.Replica, f, at[K:2*K])
	r.elapsedAt(res.Replica, e, at[2*K:])
	ttft, decode = make([]float64, K), make([]float64, K)
	for k := range K {
		ttft[k] = (at[K+k] - at[k]) / 1e9
		decode[k] = (at[2*K+k] - at[K+k]) / 1e9
		if math.IsNaN(ttft[k]) || math.IsNaN(decode[k]) {
			ttft[k], decode[k] = 0, 0
		}
	}
	return ttft, decode
}
