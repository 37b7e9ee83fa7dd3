package fidelity

import (
	"github.com/thinkcap/thinkcap/calibrate"
)

// Metric names as the scoreboard and its JSON use them.
const (
	MetricTPOT       = calibrate.MetricTPOT
	MetricTTFT       = calibrate.MetricTTFT
	MetricThroughput = calibrate.MetricThroughput
)

// Metrics is the scoreboard's metrics, in order.
var Metrics3 = []string{MetricTPOT, MetricTTFT, MetricThroughput}

// Pair is one metric at one point: the measured value, the predicted
// value of the same statistic, and which statistic it is.
type Pair = calibrate.Pair

// pairs are the metrics a point can be judged on (calibrate.Pairs): TPOT
// (else ITL) and TTFT, and the output throughput when given and the engine
// sets it, that is saturated: a closed loop or a burst (every prompt at
// once). An open loop at a rate the server keeps up with has the rate's
// throughput whatever the model says.
func pairs(r *Record, p *Predicted) map[string]Pair {
	m := measured(r)
	return calibrate.Pairs(&m, p)
}

// measured is the record's figures as the fit compares them: the output
// throughput only where the load saturated the server.
func measured(r *Record) calibrate.Aggregates {
	m := &r.Measured
	a := calibrate.Aggregates{TPOT: m.TPOT, ITL: m.ITL, TTFT: m.TTFT, E2EL: m.E2EL, DurationS: m.DurationS}
	if r.ClosedLoop() || r.RequestRate < 0 {
		a.OutputThroughput = m.OutputThroughput
	}
	return a
}
