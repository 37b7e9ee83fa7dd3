// Package analysis is thinkcap's statistics and its summary contract: it
// turns result records into the numbers a simulation and a load test are
// both judged by, so that the two are summarised by the very same code and
// can be compared line by line. It imports workload only and does no I/O;
// tables and plots of these numbers are in package report, the request-log
// commands (stats, drift, curve, fit) in package logstats.
//
// Read first:
//   - summary.go: [Summary], the stable JSON contract (keys may be added,
//     never renamed). JSON holds seconds and fractions; summary_nodata.go
//     says how "not measured" is written (null, never 0).
//   - summarize.go and accumulate.go: [Summarize] and [Accumulator], which
//     fill a Summary from result records; the caller adds what the records
//     cannot tell (config, capacity, ITL, preemptions, KV usage, occupancy).
//   - quantile.go: [Quantile] and [Describe], the one definition of a
//     percentile used everywhere (numpy's default, Hyndman–Fan type 7);
//     sketch.go: [Sketch], the same in bounded memory; distribution.go: the
//     optional percentiles of a latency.
//   - metric.go: the registry of metric names (ttft_p99, failure_rate, ...)
//     that every bound resolves through; bound.go reads the bounds of
//     slo.go ([ParseSLOs]), threshold.go, goodput.go and compare.go's
//     tolerances, and [ParseLatency].
//   - compare.go: [Compare], a predicted summary against a measured one
//     metric by metric, with tolerances and the verdict; threshold.go and
//     goodput.go: the pass/fail checks of a load test.
//   - intervals.go: [PredictionInterval] and the intervals a prediction
//     carries.
//   - ks.go and lsq.go: [KSTwoSample] (the drift alert's test) and
//     [LeastSquaresBounded] (the step-model fit).
package analysis
