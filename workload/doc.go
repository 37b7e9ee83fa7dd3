// Package workload holds the records every other package trades in, the
// request and the result (docs/formats.md), and what produces them:
// readers and writers, token-length distributions, arrival processes and
// synthetic generation from traffic profiles.
//
// Read first:
//   - request.go and result.go: [Request] and [Result], the stable record
//     schemas (fields may be added, never renamed).
//   - reader.go: [ReadFileOptions] and [ReadOptions] for whole request
//     logs (native JSONL, openai-usage, CSV, or any of them through a
//     [Mapping], gzip or not), sorted by arrival; scan.go: [Scanner], the
//     same one record at a time for logs too big to hold. fields.go holds
//     the validation every format shares; openai.go and mapping.go
//     ([ParseMapping]) say where each format finds the fields; jsonpath.go
//     and fastjson.go read JSON lines fast while encoding/json keeps the
//     last word.
//   - writer.go: [ResultWriter] and [WriteRequests]; results.go reads
//     results back with [ReadResults].
//   - dist.go: [ParseDist] and the spec syntax of token-length
//     distributions ("lognormal:p50=400,p99=8000,max=16384").
//   - arrival.go: [Arrival], [ParseArrival] and [Schedule], the pacing plan
//     shared by the simulator's virtual clock and the load generator's wall
//     clock; arrival_gamma.go (vllm bench serve's burstiness),
//     arrival_rescale.go ([Speedup], [RescaleToRate] of a logged replay)
//     and arrival_day.go ([DayShaped], a rate that follows the log's hours).
//   - synthetic.go: [Synthetic] and [ClassesFromTraffic], requests drawn from
//     a traffic profile, deterministic for a seed ([NewStream]).
//   - transform.go: [WhatIf], the composable what-ifs (thinking budgets with
//     forced closure, truncation or two phases; effort budgets; escalation)
//     and [Route] to a second pool.
//   - eval.go: [EvalRow], the accuracy-versus-budget rows `thinkcap curve`
//     reads.
package workload
