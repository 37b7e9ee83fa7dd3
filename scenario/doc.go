// Package scenario runs a what-if study on the simulator: `thinkcap
// simulate`'s deployment, traffic, what-ifs and routing, turned into
// simulated runs and one summary with intervals.
//
// Read first:
//   - simulate.go: Options and Simulate, the entry point: resolve
//     the deployment, load the traffic, apply the what-ifs
//     (workload.WhatIfOptions), route, run, summarise.
//   - route.go: RouteOptions, the routing what-if that sends a class or a
//     fraction of the requests to a separate pool.
//   - pools.go: Pool and RunPools, each pool simulated on its own and the
//     results, timelines and summaries merged.
//   - intervals.go: the run's intervals: the spread of redraws of the
//     traffic, widened by the model's measured error in the run's regime
//     (ModelIntervals, which size and verify use too).
//   - summary_table.go: the summary as tables, the whole run then each pool.
//
// Where the package ends: everything about one deployment running its
// requests (the engine, the scheduler, the KV cache, the step-time and
// memory models) is package sim's; scenario decides what to run and
// assembles what the runs produced. It imports sim, workload, profiles and
// analysis, and nothing imports it but the commands and the packages
// built on a study (size, verify).
package scenario
