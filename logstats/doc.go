// Package logstats is the logic of the commands that read a request log or
// an eval: `thinkcap stats` (tokens per class and the capacity view they
// imply), `thinkcap drift` (a cost regression between two logs), `thinkcap
// curve` (accuracy against thinking budget and its knee) and `thinkcap fit`
// (distributions of a log, written as a traffic profile). Their tables and
// plots are in package report; the statistics they rest on (quantiles, the
// Kolmogorov–Smirnov test) in package analysis.
//
// Read first:
//   - stats.go: [StatsAccumulator], one pass over a log, and its
//     [StatsReport]; stats_class.go: how records are grouped by mode and
//     category.
//   - drift.go: [CompareDrift] and its alert rule.
//   - curve.go and knee.go: [CurveAccumulator] and its Kneedle [Knee].
//   - fit.go and fit_traffic.go: [Fit] of lognormal, gamma and empirical
//     candidates by Kolmogorov–Smirnov distance with cap and zero spikes,
//     and [TrafficFitter] for a whole log; fit_profile.go writes the
//     traffic profile.
//   - command_options.go: the options each command validates.
package logstats
