// Package verify closes the loop between prediction and measurement. It
// reads a load test's run directory (LoadRun), configures the simulator
// like the server that was measured (Configure: block count, block size,
// KV dtype and context length from the scraped vllm:cache_config_info,
// the measured speculative acceptance), replays exactly the requests the
// server received (Predict), and compares the two sides metric by metric
// (analysis.Compare); WriteReport renders a self-contained HTML report.
//
// Calibrate fits the step-time coefficients to measured decode spans over
// batches rebuilt from the requests' timings (reconstruct.go, with the step
// clock of stepclock.go and the sensitivities of sensitivity.go).
//
// Read run.go, configure.go and predict.go, then calibrate.go and
// calibrate_fit.go.
package verify
