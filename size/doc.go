// Package size finds the cheapest vLLM deployment that serves a traffic
// within latency SLOs: `thinkcap size`.
//
// Read first:
//   - judge.go: the verdict of one simulation against the SLOs
//     (analysis.SLO, read by analysis.ParseSLOs: ttft_p99=2s,tpot_p99=60ms),
//     and the early stop: a run ends as soon as an SLO is certain to fail,
//     which is what makes a search of many candidates fast.
//   - candidate.go: [Space], the grid of GPUs × TP × KV dtype × speculative
//     configs × max_num_seqs × models, expanded into [Candidate]s.
//   - search.go: [Search]: per candidate the fewest replicas that pass
//     (doubling, then bisection) and the maximum rate one replica sustains
//     (bisection on a rescaled copy of the traffic), candidates in parallel.
//   - rank.go: the ranking (passing by cost, then failing) and the
//     comparison of FP8 KV and speculative variants with their baselines.
//   - table.go and plot.go: the ranked table and the capacity curves.
//
// Every run is deterministic for the seed and candidates never share state,
// so the result is the same bytes whatever the number of workers.
package size
