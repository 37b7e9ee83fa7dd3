package fidelity

import (
	"math"
	"sort"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// A param is one coefficient the corpus fit moves: the step model's
// (sim.StepParams) and the API server's two, which add to the client's
// TTFT outside any step.
type param struct {
	name    string
	inverse bool
	field   func(*profiles.StepCoefficients) *float64
}

var params = func() []param {
	var ps []param
	for _, p := range sim.StepParams {
		ps = append(ps, param{p.Name, p.Inverse, p.Field})
	}
	for _, f := range profiles.StepFields {
		if f.Key == "api_request_overhead_ms" || f.Key == "api_prompt_token_us" {
			ps = append(ps, param{f.Key, false, f.Value})
		}
	}
	return ps
}()

// nStep is how many of params are the step model's.
var nStep = len(sim.StepParams)

// paramsOf is s as fit parameters (inverse efficiencies, overheads).
func paramsOf(s profiles.StepCoefficients) []float64 {
	out := make([]float64, len(params))
	for k, p := range params {
		v := *p.field(&s)
		if p.inverse && v > 0 {
			v = 1 / v
		}
		out[k] = v
	}
	return out
}

// withParams is s with the fit parameters x set.
func withParams(s profiles.StepCoefficients, x []float64) profiles.StepCoefficients {
	for k, p := range params {
		v := x[k]
		if p.inverse && v > 0 {
			v = 1 / v
		}
		*p.field(&s) = v
	}
	return s
}

// apiUnits are the API parameters' derivatives of a latency in seconds:
// api_request_overhead_ms adds 1 ms a request, api_prompt_token_us 1 µs a
// prompt token.
const apiRequestS, apiPromptTokenS = 1e-3, 1e-6

// Trace is one replay at a set of coefficients: what the client would
// measure and, per metric, its derivative in every fit parameter (same
// units per unit of parameter), which makes the prediction a linear model
// of the coefficients near them. The batches the engine ran are held fixed
// in that model; the fit re-simulates until they settle.
type Trace struct {
	Pred Predicted
	// Grad maps a metric (MetricTPOT, MetricTTFT, MetricThroughput) to the
	// derivative of its mean (tokens/s for throughput; ms for latencies).
	Grad map[string][]float64
}

// stepLog is the engine's steps of one replay with the cumulative
// sensitivities, so any span of time has its sensitivity in O(log steps).
type stepLog struct {
	start, end []int64
	cum        []float64 // (steps+1) × K: Σ of the steps' sensitivities before each step
	k          int
}

func (l *stepLog) add(start, dur int64, g []float64) {
	if len(l.cum) == 0 {
		l.cum = make([]float64, l.k)
	}
	n := len(l.cum)
	for i := range l.k {
		l.cum = append(l.cum, l.cum[n-l.k+i]+g[i])
	}
	l.start, l.end = append(l.start, start), append(l.end, start+dur)
}

// at adds the cumulative sensitivity up to time t (ns) to out with sign:
// whole steps before t, and the part of the step t falls in.
func (l *stepLog) at(t int64, sign float64, out []float64) {
	s := sort.Search(len(l.start), func(i int) bool { return l.start[i] > t }) - 1
	if s < 0 {
		return
	}
	frac := 1.0
	if t < l.end[s] {
		frac = float64(t-l.start[s]) / float64(l.end[s]-l.start[s])
	}
	base, next := s*l.k, (s+1)*l.k
	for i := range l.k {
		out[i] += sign * (l.cum[base+i] + frac*(l.cum[next+i]-l.cum[base+i]))
	}
}

// trace replays r on cfg and returns the prediction with its gradient.
func trace(cfg sim.Config, r *Record) (*Trace, error) {
	reqs, err := requests(r)
	if err != nil {
		return nil, err
	}
	cfg.Seed = 1
	grad, err := sim.NewStepGradient(cfg)
	if err != nil {
		return nil, err
	}
	K := len(params)
	log := &stepLog{k: K}
	g := make([]float64, K)
	rep, err := sim.Run(cfg, reqs, sim.Options{Concurrency: r.Concurrency, OnStep: func(_ int, start, dur int64, b *sim.Batch) {
		clear(g)
		grad.Add(b, 1, g[:nStep])
		log.add(start, dur, g)
	}})
	if err != nil {
		return nil, err
	}
	t := &Trace{Pred: summarise(rep), Grad: map[string][]float64{}}
	tpot, ttft := make([]float64, K), make([]float64, K)
	nTPOT, nTTFT := 0, 0
	first, last := int64(math.MaxInt64), int64(0)
	var firstReq, lastReq int
	outTok := 0.0
	for i := range rep.Results {
		res := &rep.Results[i]
		if res.Status != "ok" {
			continue
		}
		arrive := secondsNs(res.ArrivalS)
		atEngine := arrive + secondsNs(res.TTFTS-res.TTFTEngineS)
		tFirst, tLast := arrive+secondsNs(res.TTFTS), arrive+secondsNs(res.E2ES)
		// TTFT: the steps from the engine's arrival to the first token,
		// and the API server's time.
		log.at(tFirst, 1, ttft)
		log.at(atEngine, -1, ttft)
		ttft[nStep] += apiRequestS
		ttft[nStep+1] += apiPromptTokenS * float64(res.PromptTokens)
		nTTFT++
		if n := res.OutputTokens(); n > 1 {
			w := 1 / float64(n-1)
			log.at(tLast, w, tpot)
			log.at(tFirst, -w, tpot)
			nTPOT++
		}
		outTok += float64(res.OutputTokens())
		if arrive < first {
			first, firstReq = arrive, i
		}
		if tLast > last {
			last, lastReq = tLast, i
		}
	}
	if nTTFT > 0 {
		t.Grad[MetricTTFT] = scaled(ttft, 1e3/float64(nTTFT))
	}
	if nTPOT > 0 {
		t.Grad[MetricTPOT] = scaled(tpot, 1e3/float64(nTPOT))
	}
	if last > first && t.Pred.DurationS > 0 {
		// Throughput = tokens / duration: the duration's sensitivity is the
		// steps between the first arrival and the last token, plus the
		// last request's API time.
		d := make([]float64, K)
		log.at(last, 1, d)
		log.at(first, -1, d)
		d[nStep] += apiRequestS
		d[nStep+1] += apiPromptTokenS * float64(rep.Results[lastReq].PromptTokens)
		_ = firstReq
		t.Grad[MetricThroughput] = scaled(d, -outTok/(t.Pred.DurationS*t.Pred.DurationS))
	}
	return t, nil
}

func scaled(v []float64, f float64) []float64 {
	for i := range v {
		v[i] *= f
	}
	return v
}

func secondsNs(s float64) int64 { return int64(math.Round(s * 1e9)) }
