package analysis

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of sorted, an ascending slice,
// interpolating linearly between the closest ranks: numpy's default
// (method="linear"), Hyndman–Fan type 7. For n values the quantile sits at
// the 0-based fractional rank h = (n-1)·p, so p=0 is the minimum, p=1 the
// maximum, and [1 2 3 4] at p=0.9 gives 3.7.
//
// gonum's stat.Quantile is not used: its LinInterp kind is Hyndman–Fan
// type 4 (rank n·p, [1 2 3 4] at p=0.9 gives 3.6) and its Empirical kind
// does not interpolate, so neither agrees with numpy or pandas, which users
// check our numbers against; it also panics on empty input.
//
// p outside [0, 1] is clamped. An empty slice or a NaN p gives NaN. Quantile
// does not check that sorted is sorted.
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	p = min(max(p, 0), 1)
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := h - float64(lo)
	a, b := sorted[lo], sorted[lo+1]
	if frac == 0 || a == b {
		// Exact ranks return the sample itself, also when it is infinite
		// (b-a would be Inf-Inf = NaN).
		return a
	}
	q := a + frac*(b-a)
	if math.IsInf(b-a, 0) {
		// Finite values more than MaxFloat64 apart: weigh them instead, which
		// cannot overflow.
		q = (1-frac)*a + frac*b
	}
	// Rounding can overshoot b by an ulp, which would let a lower p return
	// more than a higher one; clamping keeps Quantile monotone in p.
	return min(max(q, a), b)
}

// Describe returns the mean, p50, p90 and p99 of values; a Stat marked
// NoData when there are none. It sorts a copy, so values is left as it is. NaN and
// infinite values are dropped: they mean "not measured" and would make the
// summary impossible to encode as JSON.
func Describe(values []float64) Stat {
	finite := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, v)
		}
	}
	if len(finite) == 0 {
		return Stat{NoData: true}
	}
	slices.Sort(finite)
	return Stat{
		Mean: mean(finite),
		P50:  Quantile(finite, 0.50),
		P90:  Quantile(finite, 0.90),
		P99:  Quantile(finite, 0.99),
	}
}

// mean is the arithmetic mean of sorted, finite values, kept within
// [min, max]: sum/n can land an ulp outside (three times 0.1 averages to
// 0.10000000000000002), and a sum past MaxFloat64 would give Inf or NaN.
func mean(sorted []float64) float64 {
	m := stat.Mean(sorted, nil)
	if math.IsNaN(m) || math.IsInf(m, 0) {
		// The sum overflowed; averaging x/n term by term cannot.
		m = 0
		n := float64(len(sorted))
		for _, v := range sorted {
			m += v / n
		}
	}
	return min(max(m, sorted[0]), sorted[len(sorted)-1])
}
