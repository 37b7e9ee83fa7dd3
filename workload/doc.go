// Package workload holds the records every other package trades in, the
// request and the result (DESIGN.md, "Formats"), and what produces them:
// readers and writers, token-length distributions, arrival processes and
// synthetic generation from traffic profiles.
//
// Read first:
//   - request.go and result.go: [Request] and [Result], the stable record
//     schemas (fields may be added, never renamed).
//   - reader.go: [Read] and [ReadFile] for request logs in JSONL or CSV,
//     gzip or not; fields.go holds the validation both formats share.
//   - writer.go: [ResultWriter] and [WriteRequests]; results.go reads
//     results back with [ReadResults].
//   - dist.go: [ParseDist] and the spec syntax of token-length
//     distributions ("lognormal:p50=400,p99=8000,max=16384").
//   - arrival.go: [Arrival], [ParseArrival] and [Schedule], the pacing plan
//     shared by the simulator's virtual clock and the load generator's wall
//     clock.
//   - synthetic.go: [Synthetic] and [ClassesFromTraffic], requests drawn from
//     a traffic profile, deterministic for a seed ([NewStream]).
package workload
