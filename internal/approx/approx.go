// Package approx compares the floating-point results of tests, which differ
// from a hand computation in the last bits, and the precision of the
// numbers a fit writes. Only tests import it.
package approx

import (
	"math"
	"regexp"
	"strings"
)

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

// OverPrecise is the first number in text with more than the 4
// significant digits a fit determines ("0.005116" has 4), or "": the tests
// of the fit writers check that a written coefficient claims no more.
func OverPrecise(text string) string {
	for _, n := range overPreciseNumber.FindAllString(text, -1) {
		digits := strings.Trim(strings.ReplaceAll(n, ".", ""), "0")
		if len(digits) > 4 {
			return n
		}
	}
	return ""
}

var overPreciseNumber = regexp.MustCompile(`\d+(\.\d+)?`)
