package calibrate

import "math"

// Metric names of the aggregates a fit compares, as the fidelity
// scoreboard and its JSON use them.
const (
	MetricTPOT       = "tpot"
	MetricTTFT       = "ttft"
	MetricThroughput = "throughput"
)

// Stat is a latency's statistics as a source gives them (0: not given).
type Stat struct {
	Mean   float64 `json:"mean,omitempty"`
	Median float64 `json:"median,omitempty"`
	P90    float64 `json:"p90,omitempty"`
	P99    float64 `json:"p99,omitempty"`
}

// Aggregates are a load point's figures as a whole, as `vllm bench serve`
// reports them (ms; tokens/s): what a published benchmark measured, or
// what a replay of it predicts.
type Aggregates struct {
	TPOT, ITL, TTFT, E2EL Stat
	// OutputThroughput is the output tokens/s. A measurement gives it only
	// where the load saturated the server (a closed loop, a burst): an
	// open loop at a rate the server keeps up with has the rate's
	// throughput whatever the model says.
	OutputThroughput float64
	DurationS        float64
	Preemptions      int64
}

// Pair is one metric at one point: the measured value, the predicted
// value of the same statistic, and which statistic it is.
type Pair struct {
	Statistic           string  // mean, median, p99, or "" for a throughput
	Measured, Predicted float64 // ms, or tokens/s
	// ITL marks a TPOT judged on the source's ITL, which weighs each
	// request by its tokens where TPOT weighs each request once.
	ITL bool
}

// Err is the signed relative error (predicted − measured) / measured.
func (p Pair) Err() float64 { return (p.Predicted - p.Measured) / p.Measured }

// Pairs are the metrics a point can be judged on: TPOT (else ITL, which
// `vllm bench serve` computes over the same decode gaps) and TTFT with the
// first of mean, median, p99 the source gives; the output throughput when
// both sides have it.
func Pairs(m, p *Aggregates) map[string]Pair {
	out := map[string]Pair{}
	pick := func(name string, ms, ps Stat) bool {
		for _, s := range []struct {
			name string
			m, p float64
		}{{"mean", ms.Mean, ps.Mean}, {"median", ms.Median, ps.Median}, {"p99", ms.P99, ps.P99}} {
			if s.m > 0 && s.p > 0 && !math.IsInf(s.p, 0) {
				out[name] = Pair{Statistic: s.name, Measured: s.m, Predicted: s.p}
				return true
			}
		}
		return false
	}
	if !pick(MetricTPOT, m.TPOT, p.TPOT) && pick(MetricTPOT, m.ITL, p.ITL) {
		pr := out[MetricTPOT]
		pr.ITL = true
		out[MetricTPOT] = pr
	}
	pick(MetricTTFT, m.TTFT, p.TTFT)
	if m.OutputThroughput > 0 && p.OutputThroughput > 0 {
		out[MetricThroughput] = Pair{Measured: m.OutputThroughput, Predicted: p.OutputThroughput}
	}
	return out
}

// AggregateWeights are how much each metric's relative error counts in a
// fit to aggregates: TPOT and throughput are the engine's steady state,
// what sizing rests on; TTFT adds the API server and the queue at the
// start of a closed loop, noisier in the sources, so it counts three
// quarters (a TTFT served from the prefix cache, which the replay cannot
// know of, is left out of its Aggregates: fidelity's exclusion rules).
//
// A saturated throughput counts twice a TPOT: only a seventh of the
// corpus's points measure one (closed loops and bursts that report it),
// yet it is the figure `size` divides the traffic by, and the scoreboard
// holds its mean error to the same target as TPOT's; at one each it was
// fitted as an afterthought of the TPOTs. 2 is the least weight at which
// every target is met; the refits that chose it are in
// docs/fidelity-log.md.
var AggregateWeights = map[string]float64{MetricTPOT: 1, MetricThroughput: 2, MetricTTFT: 0.75}

// Trace is one replay of an observation at a set of coefficients: what
// the client would measure and, per metric, its derivative in every fit
// parameter (same units per unit of parameter), which makes the
// prediction a linear model of the coefficients near them. The batches the
// engine ran are held fixed in that model; the fit re-simulates until they
// settle.
type Trace struct {
	Pred Aggregates
	// Grad maps a metric (MetricTPOT, MetricTTFT, MetricThroughput, GradITL)
	// to the derivative of its mean (tokens/s for throughput; ms for
	// latencies).
	Grad map[string][]float64
}

// GradITL is Trace.Grad's key for the mean ITL: the decode time per
// output token after the first, each request weighted by its tokens,
// where MetricTPOT's mean weighs each request once.
const GradITL = "itl"

// Mean is the mean of Trace.Grad's metric m.
func (p *Aggregates) Mean(m string) float64 {
	switch m {
	case MetricTPOT:
		return p.TPOT.Mean
	case GradITL:
		return p.ITL.Mean
	case MetricTTFT:
		return p.TTFT.Mean
	}
	return p.OutputThroughput
}
