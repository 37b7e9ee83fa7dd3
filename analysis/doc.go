// Package analysis turns result records into numbers people act on:
// quantiles, the summary JSON (docs/formats.md), and the human-readable report.
// It imports workload only, so a simulation and a load test are summarised by
// the very same code and can be compared line by line.
//
// Read first:
//   - summary.go: [Summary], the stable JSON contract (keys may be added,
//     never renamed). JSON holds seconds and fractions.
//   - quantile.go: [Quantile] and [Describe], the one definition of a
//     percentile used everywhere (numpy's default, Hyndman–Fan type 7).
//   - summarize.go: [Summarize], which fills a Summary from result records;
//     the caller adds what the records cannot tell (config, capacity, ITL,
//     preemptions, KV usage, occupancy).
//   - metric.go: the registry of metric names (ttft_p99, failure_rate, ...)
//     that every bound resolves through; bound.go reads the bounds of
//     slo.go ([ParseSLOs]), threshold.go, goodput.go and compare.go's
//     tolerances, and [ParseLatency].
//   - table.go: [WriteTable], the terminal report, in milliseconds and
//     percent; table_builder.go: how every report's tables are built
//     (writeReport, newAlignedTable, writeRows, classRows).
//   - stats.go: [StatsAccumulator], tokens per class of a request log with
//     a back-of-the-envelope capacity view (`thinkcap stats`).
//   - drift.go and ks.go: [CompareDrift] and [KSTwoSample], the cost
//     regression alert of `thinkcap drift`.
//   - curve.go and knee.go: accuracy against thinking budget per category
//     and its Kneedle [Knee] (`thinkcap curve`); plot.go draws it.
//   - fit.go and fit_traffic.go: [Fit] of lognormal, gamma and empirical
//     candidates by Kolmogorov–Smirnov distance with cap and zero spikes,
//     and [TrafficFitter] for a whole log (`thinkcap fit`).
package analysis
