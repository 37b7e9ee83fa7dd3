// Package sim is thinkcap's deterministic discrete-event model of a vLLM
// V1 deployment and its cost model: per replica, the KV block pool with
// prefix caching, the continuous-batching scheduler with chunked prefill
// and preemption by recompute, speculative decoding, and a roofline
// step-time model; across replicas, a router and an autoscaler. Given a
// resolved Config and a list of requests, Run replays them and returns a
// Report; Live drives the same engine on the caller's clock.
//
// Read first:
//   - run.go: Run, the entry point, and the cluster's event loop (arrivals
//     and engine steps in time order, integer nanoseconds).
//   - scheduler.go: one call of vLLM's Scheduler.schedule(), phase A
//     (running requests, preemption) and phase B (waiting requests).
//   - engine.go: one replica's step cycle: schedule, price the step, apply
//     its outputs (tokens, think/answer boundary, finishes).
//   - kvcache.go and blockpool.go: allocate_slots, prefix hits and the free
//     queue, kept as counts and groups of blocks so memory grows with
//     requests, never with tokens.
//   - capacity.go, memory.go and weights.go: how many KV blocks vLLM would
//     have (its startup log).
//   - stepmodel.go and stepparams.go: what one engine step costs on the
//     GPU, and the coefficients a calibration fits.
//   - spec.go: --speculative-config and the acceptance model.
//   - config.go, defaults.go and deployment.go: a deployment as vLLM's
//     flags describe it, with vLLM's defaults filled in.
//
// Where the package ends: sim runs one deployment on the requests it is
// given. Loading traffic, applying what-ifs, splitting the requests
// between routed pools and the intervals from redrawn traffic belong to
// package scenario, which calls Run; sim never imports it.
//
// Every modelled behaviour cites its place in vLLM's source; where thinkcap
// simplifies, docs/model-limits.md says so. The package imports no
// networking: the emulator drives it on the wall clock from outside.
package sim
