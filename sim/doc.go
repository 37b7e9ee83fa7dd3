// Package sim is thinkcap's deterministic discrete-event model of a vLLM
// V1 cluster: per replica, the KV block pool with prefix caching, the
// continuous-batching scheduler with chunked prefill and preemption by
// recompute, speculative decoding, and a roofline step-time model; across
// replicas, a router.
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
//   - capacity.go: how many KV blocks vLLM would have (its startup log).
//   - stepmodel.go: what one engine step costs on the GPU.
//   - spec.go: --speculative-config and the acceptance model.
//
// Every modelled behaviour cites its place in vLLM's source; where thinkcap
// simplifies, the README's "model limits" says so. The package imports no
// networking: the emulator drives it on the wall clock from outside.
package sim
