package logstats

import (
	"cmp"
	"slices"
)

// KneeSensitivity is Kneedle's S: how far, in units of the mean spacing of
// the scaled x values, the difference curve must fall after a local maximum
// for that maximum to count as a knee. The paper finds S = 1 best offline.
const KneeSensitivity = 1.0

// Knee finds the knee of a curve y(x) by Kneedle (Satopää, Albrecht, Irwin
// and Raghavan, "Finding a 'Kneedle' in a Haystack: Detecting Knee Points in
// System Behavior", ICDCS workshops 2011), for a curve that rises and then
// flattens: accuracy against the tokens spent to reach it. It returns the
// index of the knee point in x and y, or -1 when there are no points.
//
// The method, as in the paper (without its smoothing step: an eval curve
// has a handful of points, each already the mean of many items):
//
//  1. Sort the points by x and scale both axes to [0, 1] by their ranges.
//  2. For a concave increasing curve the scaled points lie above the
//     diagonal; the difference curve d = y − x measures how far.
//  3. Each local maximum of d is a candidate knee. It is confirmed when d
//     then falls below d_max − S/(n−1) (S = KneeSensitivity; 1/(n−1) is the
//     mean spacing of the scaled x) before d reaches another local maximum.
//     A candidate must lie above the diagonal (d > 0).
//  4. The knee is the confirmed candidate with the largest d: the point
//     after which each further step costs more (in x) than it buys (in y).
//
// Tails and degenerate curves:
//   - A flat or declining tail (overthinking: the model talks itself out of
//     a right answer) only lowers d, since x keeps growing while y does
//     not, and so confirms the knee before it; the knee never lies past
//     the peak of y, and a curve that peaks at its first point has its
//     knee there (d = 1 − 0).
//   - When no candidate is confirmed, there are no diminishing returns in
//     the measured range: y grows linearly or faster, or its bumps are
//     noise smaller than the threshold of step 3. Knee then returns the
//     point of highest y, the cheapest of ties, because within the
//     measured range more x keeps paying.
//   - When all y are equal, spending more buys nothing: the cheapest point.
//   - When all x are equal, the point of highest y.
//
// Ties go to the smaller x. x and y must have the same length and hold no
// NaN; they are not modified.
func Knee(x, y []float64) int {
	k, _ := FindKnee(x, y)
	return k
}

// FindKnee is Knee, and says whether the point is a knee Kneedle confirmed
// (step 3) rather than a fallback for a curve without one: all y equal,
// all x equal, or no diminishing returns in the measured range.
func FindKnee(x, y []float64) (i int, confirmed bool) {
	n := len(x)
	if n == 0 || len(y) != n {
		return -1, false
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	xMin, xMax := x[order[0]], x[order[n-1]]
	yMin, yMax := slices.Min(y), slices.Max(y)
	switch {
	case yMax == yMin:
		return order[0], false
	case xMax == xMin:
		return highest(order, y), false
	}
	d := make([]float64, n) // the difference curve, in x order
	for k, i := range order {
		d[k] = (y[i]-yMin)/(yMax-yMin) - (x[i]-xMin)/(xMax-xMin)
	}
	if k := confirmedKnee(d, KneeSensitivity/float64(n-1)); k >= 0 {
		return order[k], true
	}
	return highest(order, y), false
}

// confirmedKnee is steps 3 and 4 of Knee on the difference curve d: the
// index of the highest local maximum that d falls more than drop below
// before its next local maximum, or -1.
func confirmedKnee(d []float64, drop float64) int {
	// A hair above zero, so that rounding on a straight line does not make
	// a knee.
	const aboveDiagonal = 1e-12
	best := -1
	candidate := -1
	for k := range d {
		if isLocalMax(d, k) {
			candidate = -1
			if d[k] > aboveDiagonal {
				candidate = k
			}
			continue
		}
		if candidate >= 0 && d[k] < d[candidate]-drop {
			if best < 0 || d[candidate] > d[best] {
				best = candidate
			}
			candidate = -1
		}
	}
	return best
}

// isLocalMax reports whether d[k] is more than the previous value and at
// least the next: a plateau counts once, at its first (cheapest) point. The
// ends count, having one neighbour.
func isLocalMax(d []float64, k int) bool {
	return (k == 0 || d[k] > d[k-1]) && (k == len(d)-1 || d[k] >= d[k+1])
}

// highest is the first index in order with the largest y.
func highest(order []int, y []float64) int {
	best := order[0]
	for _, i := range order {
		if y[i] > y[best] {
			best = i
		}
	}
	return best
}
