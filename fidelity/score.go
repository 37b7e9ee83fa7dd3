package fidelity

import (
	"math"
)

// Metric names as the scoreboard and its JSON use them.
const (
	MetricTPOT       = "tpot"
	MetricTTFT       = "ttft"
	MetricThroughput = "throughput"
)

// Metrics is the scoreboard's metrics, in order.
var Metrics3 = []string{MetricTPOT, MetricTTFT, MetricThroughput}

// Pair is one metric at one point: the measured value, the predicted
// value of the same statistic, and which statistic it is.
type Pair struct {
	Statistic           string  // mean, median, p99, or "" for a throughput
	Measured, Predicted float64 // ms, or tokens/s
	// itl marks a TPOT judged on the source's ITL, which weighs each
	// request by its tokens where TPOT weighs each request once.
	itl bool
}

// Err is the signed relative error (predicted − measured) / measured.
func (p Pair) Err() float64 { return (p.Predicted - p.Measured) / p.Measured }

// pairs are the metrics a point can be judged on: TPOT (else ITL, which
// `vllm bench serve` computes over the same decode gaps) and TTFT with the
// first of mean, median, p99 the source gives; the output throughput when
// given and the engine sets it, that is saturated: a closed loop or a burst
// (every prompt at once). An open loop at a rate the server keeps up with
// has the rate's throughput whatever the model says.
func pairs(r *Record, p *Predicted) map[string]Pair {
	m := &r.Measured
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
		pr.itl = true
		out[MetricTPOT] = pr
	}
	pick(MetricTTFT, m.TTFT, p.TTFT)
	if m.OutputThroughput > 0 && p.OutputThroughput > 0 && (r.ClosedLoop() || r.RequestRate < 0) {
		out[MetricThroughput] = Pair{Measured: m.OutputThroughput, Predicted: p.OutputThroughput}
	}
	return out
}
