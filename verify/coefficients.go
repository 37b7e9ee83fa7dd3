package verify

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// coefficients are the fittable step-time coefficients (sim.StepParams).
var coefficients = sim.StepParams

// DefaultFit is the coefficients calibrate fits unless told otherwise.
// weight_bandwidth_efficiency is left out: a dense model reads the same
// weights every step, so its term is a constant per step that only the sum
// with the per-step constants can be fitted to. Of those,
// per_layer_overhead_us (the GPU's) is fitted rather than step_overhead_ms
// (the CPU's), which async scheduling, vLLM's default from 0.14, hides
// under the GPU's step.
var DefaultFit = []string{"kv_bandwidth_efficiency", "compute_efficiency", "per_layer_overhead_us"}

// params returns s as calibration parameters, in coefficients' order.
func params(s profiles.StepCoefficients) []float64 { return sim.ParamsOf(s) }

// withParams returns s with the parameters set.
func withParams(s profiles.StepCoefficients, p []float64) profiles.StepCoefficients {
	return sim.WithParams(s, p)
}

// fittedDigits is how many significant digits a fitted coefficient keeps:
// the fit stops once no parameter moves by more than converged (0.1%), so
// a fourth digit is the last one it determines; more would be noise
// written as if it were measured.
var fittedDigits = 1 + int(math.Ceil(-math.Log10(converged)))

// fittedCoefficients is before with the fitted coefficients set from the
// parameters p, rounded to fittedDigits significant digits, and every
// other coefficient exactly as it was (1/(1/v) need not be v). The file
// calibrate writes, its JSON and the held-out error then all use the same
// numbers, and the file shows no digit the fit did not determine.
func fittedCoefficients(before profiles.StepCoefficients, p []float64, fitted []string) profiles.StepCoefficients {
	s, all := before, withParams(before, p)
	for _, c := range coefficients {
		if !slices.Contains(fitted, c.Name) {
			continue
		}
		v := *c.Field(&all)
		if r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', fittedDigits, 64), 64); err == nil {
			v = r
		}
		*c.Field(&s) = v
	}
	return s
}

// parseFit reads --fit: coefficient names, comma-separated.
func parseFit(names []string) ([]bool, error) {
	free := make([]bool, len(coefficients))
	for _, n := range names {
		n = strings.TrimSpace(n)
		found := false
		for k, c := range coefficients {
			if c.Name == n {
				free[k], found = true, true
			}
		}
		if !found {
			valid := make([]string, len(coefficients))
			for k, c := range coefficients {
				valid[k] = c.Name
			}
			sort.Strings(valid)
			return nil, fmt.Errorf("unknown coefficient %q (valid: %s)", n, strings.Join(valid, ", "))
		}
	}
	return free, nil
}
