// Package emulator is a vLLM-compatible HTTP server whose timing comes from
// the simulator: `thinkcap serve`. Requests enter a sim.Live engine that
// advances on the wall clock (scaled by Config.TimeScale), so clients see a
// loaded vLLM server: requests queue, the KV cache fills, preemptions
// happen and TPOT grows with the batch.
//
// Read first: server.go (Server, the lifecycle), engine.go (the one
// goroutine that owns sim.Live and the clock mapping), then handlers.go,
// stream.go and metrics.go. The wire format comes from loadgen/vllmapi so
// that the load generator and the emulator cannot drift apart.
//
// Simplifications (see docs/model-limits.md): every replica is one
// vLLM server behind the router, all exposed as engine "0"; histogram
// observations are wall-clock seconds (simulated seconds divided by the
// time scale), the same clock clients measure; text is synthetic words,
// one word a token.
package emulator
