// Package verify closes the loop between prediction and measurement. It
// reads a load test's run directory (LoadRun), configures the simulator
// like the server that was measured (Configure: block count, block size,
// KV dtype and context length from the scraped vllm:cache_config_info,
// the measured speculative acceptance), replays exactly the requests the
// server received (Predict), and compares the two sides metric by metric
// (analysis.Compare). Calibrate fits the step-time coefficients to
// measured runs; WriteReport renders a self-contained HTML report.
//
// Read run.go, then predict.go, then calibrate.go.
package verify
