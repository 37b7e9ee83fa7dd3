package verify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thinkcap/thinkcap/profiles"
)

// A coefficient is one step-time coefficient as calibration sees it. The
// step time is a sum and maximum of terms each proportional to one
// parameter: the inverse of an efficiency (time ∝ 1/efficiency) or an
// overhead itself. In those parameters the step time is homogeneous of
// degree one, so a decode span is the sum over parameters of parameter ×
// its sensitivity: a linear model, given the batches the request decoded in
// (sim/stepmodel.go StepModel).
type coefficient struct {
	name string
	// inverse: the parameter is 1/value (an efficiency in (0, 1], its key
	// ending in _efficiency); otherwise it is the value (an overhead, >= 0).
	inverse bool
	field   func(*profiles.StepCoefficients) *float64
}

// coefficients are the fittable step-time coefficients: every one but
// fp8_kv_read_penalty, which multiplies kv_bandwidth_efficiency's term, so
// that only their product is identifiable.
var coefficients = fittable()

func fittable() []coefficient {
	var cs []coefficient
	for _, f := range profiles.StepFields {
		if f.Key != "fp8_kv_read_penalty" {
			cs = append(cs, coefficient{f.Key, strings.HasSuffix(f.Key, "_efficiency"), f.Value})
		}
	}
	return cs
}

// DefaultFit is the coefficients calibrate fits unless told otherwise.
// weight_bandwidth_efficiency is left out: a dense model reads the same
// weights every step, so its term is a constant per step that only the sum
// with step_overhead_ms can be fitted to; the overhead takes it.
var DefaultFit = []string{"kv_bandwidth_efficiency", "compute_efficiency", "step_overhead_ms"}

// params returns s as calibration parameters, in coefficients' order.
func params(s profiles.StepCoefficients) []float64 {
	out := make([]float64, len(coefficients))
	for k, c := range coefficients {
		v := *c.field(&s)
		if c.inverse {
			if v > 0 {
				v = 1 / v
			}
		}
		out[k] = v
	}
	return out
}

// withParams returns s with the parameters set.
func withParams(s profiles.StepCoefficients, p []float64) profiles.StepCoefficients {
	for k, c := range coefficients {
		v := p[k]
		if c.inverse && v > 0 {
			v = 1 / v
		}
		*c.field(&s) = v
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
			if c.name == n {
				free[k], found = true, true
			}
		}
		if !found {
			valid := make([]string, len(coefficients))
			for k, c := range coefficients {
				valid[k] = c.name
			}
			sort.Strings(valid)
			return nil, fmt.Errorf("unknown coefficient %q (valid: %s)", n, strings.Join(valid, ", "))
		}
	}
	return free, nil
}
