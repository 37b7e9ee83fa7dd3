// Package loadgen drives a real vLLM (or any OpenAI-compatible) endpoint
// with a workload and measures what users see and what the server did. It
// knows nothing about the simulator; the wire format lives in vllmapi,
// shared with the emulator.
//
// Read first:
//   - runner.go: [Run], open loop on a schedule that is a pure function of
//     the traffic (each request at start + arrival_s), closed loop
//     ([RunConfig].Concurrency), follow-up chains (two-phase budgets), and
//     the schedule lag.
//   - client.go and measure.go: [Client].Do sends one streaming request and
//     returns its [Measurement] (timestamps taken before JSON decoding,
//     think/answer split, usage or counted tokens, every failure a status);
//     sse.go reads the stream without line limits.
//   - lengths.go: [LengthControl], how a request record becomes a request
//     that makes the server generate what the record says.
//   - scrape.go, scrape_parse.go and telemetry.go: the /metrics [Scraper],
//     [ParseMetrics] and the counters' deltas over the window ([Summarize]).
//   - metadata.go: the run's metadata.json; gaps.go: the run-wide ITL
//     histogram.
package loadgen
