// Package approx compares the floating-point results of tests, which differ
// from a hand computation in the last bits. Only tests import it.
package approx

import "math"

// Equal reports whether a and b agree to 1e-9 relative (or absolute near 0),
// treating two NaNs and two equal infinities as equal.
func Equal(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b))
}
