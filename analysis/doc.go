// Package analysis turns result records into numbers people act on:
// quantiles, the summary JSON of DESIGN.md, and the human-readable report.
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
//   - table.go: [WriteTable], the terminal report, in milliseconds and
//     percent.
package analysis
