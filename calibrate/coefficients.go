package calibrate

import (
	"slices"

	"github.com/thinkcap/thinkcap/profiles"
)

// DefaultFit is the coefficients calibrate fits to run directories unless
// told otherwise. weight_bandwidth_efficiency is left out: a dense model
// reads the same weights every step, so its term is a constant per step
// that only the sum with the per-step constants can be fitted to. Of
// those, per_layer_overhead_us (the GPU's) is fitted rather than
// step_overhead_ms (the CPU's), which async scheduling, vLLM's default
// from 0.14, hides under the GPU's step.
var DefaultFit = []string{"kv_bandwidth_efficiency", "compute_efficiency", "per_layer_overhead_us"}

// DefaultHold are the coefficients the corpus fit keeps at the profile's
// value unless told otherwise, both calibrated on concurrency-1 decode
// (gpus.yaml):
//
//   - kv_bandwidth_efficiency: KV reads dominate a step only in long
//     contexts at low concurrency, which the profiles' values come from
//     (256 to 125,000 tokens); the corpus's load points mix them with every
//     other term and the fit cannot tell them apart (freed, it trades a
//     little TPOT error for half the efficiency, which doubles the
//     long-context decode slope).
//   - step_overhead_ms: the engine's CPU time per step is the host's and
//     vLLM's, hidden under the GPU's step by async scheduling (0.14 on) and
//     added to it before, where it sums with the GPU's kernel floors; the
//     corpus cannot separate the two, and a fit that lets it grow makes a
//     small model's decode CPU-bound, which vLLM's concurrency-1 figures
//     show it is not.
//   - eager_launch_us: the host's launch per kernel, paid only by steps no
//     CUDA graph holds; no corpus point runs eager, and its other steps
//     of that kind, prefills of thousands of tokens, cannot tell it from
//     the per-layer floor. It stays vLLM's own measurement.
var DefaultHold = []string{"kv_bandwidth_efficiency", "step_overhead_ms", "eager_launch_us"}

// fittedCoefficients is before with the fitted coefficients set from the
// parameters p, rounded to Digits significant digits, and every other
// coefficient exactly as it was (1/(1/v) need not be v). The file
// calibrate writes, its JSON and the held-out error then all use the same
// numbers, and the file shows no digit the fit did not determine.
func fittedCoefficients(before profiles.StepCoefficients, p []float64, fitted []string) profiles.StepCoefficients {
	all := WithParams(before, p)
	for _, c := range Params {
		if slices.Contains(fitted, c.Key) {
			*c.Value(&before) = *c.Value(&all)
		}
	}
	return rounded(before, func(key string) bool { return slices.Contains(fitted, key) })
}
