// Package loadgen drives a real vLLM (or any OpenAI-compatible) endpoint
// with a workload and measures what users see and what the server did:
// pacing (a pure function of the seed and the traffic), the streaming
// client with per-request measurement, the /metrics scraper, and
// incremental result writing. It knows nothing about the simulator.
package loadgen
