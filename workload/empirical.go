package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// empiricalDist is a quantile table: the value at each of a set of
// percentiles from 0 to 100, with the inverse CDF interpolated linearly in
// between (so the mass between two neighbouring percentiles is spread
// uniformly between their values, and two equal values make a point mass).
// It is what `thinkcap fit` writes when no smooth family matches a logged
// distribution: it follows any shape, at the price of a tail that ends at the
// table's last value.
type empiricalDist struct {
	pcts []float64 // percentiles in [0, 100], strictly increasing, from 0 to 100
	vals []float64 // values, non-decreasing
	bnd  bounds
}

func parseEmpirical(params []param) (Dist, error) {
	type point struct{ pct, val float64 }
	var pts []point
	var rest []param
	for _, p := range params {
		if p.key == "min" || p.key == "max" {
			rest = append(rest, p)
			continue
		}
		pct, ok := percentileKey(p.key)
		if !ok {
			return nil, fmt.Errorf("unknown parameter %q for empirical (valid: pN for a percentile N in [0, 100], min, max)", p.key)
		}
		if p.value < 0 || p.value > MaxTokens {
			return nil, fmt.Errorf("%s: want a number in [0, %d], got %s", p.key, MaxTokens, fmtNum(p.value))
		}
		pts = append(pts, point{pct, p.value + 0}) // + 0 turns -0 into 0
	}
	_, b, err := takeParams(DistEmpirical, rest)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(pts, func(a, b point) int {
		switch {
		case a.pct < b.pct:
			return -1
		case a.pct > b.pct:
			return 1
		}
		return 0
	})
	if len(pts) < 2 || pts[0].pct != 0 || pts[len(pts)-1].pct != 100 {
		return nil, fmt.Errorf("empirical needs p0 and p100 and any percentiles in between, e.g. %s", distExample(DistEmpirical))
	}
	d := &empiricalDist{bnd: b}
	for i, p := range pts {
		if i > 0 {
			prev := pts[i-1]
			if p.pct == prev.pct {
				return nil, fmt.Errorf("percentile %s given twice", fmtNum(p.pct))
			}
			if p.val < prev.val {
				return nil, fmt.Errorf("p%s (%s) is below p%s (%s): values must not decrease",
					fmtNum(p.pct), fmtNum(p.val), fmtNum(prev.pct), fmtNum(prev.val))
			}
		}
		d.pcts = append(d.pcts, p.pct)
		d.vals = append(d.vals, p.val)
	}
	return d, nil
}

// percentileKey reads "pN" with N a number in [0, 100].
func percentileKey(k string) (float64, bool) {
	n, ok := strings.CutPrefix(k, "p")
	if !ok {
		return 0, false
	}
	pct, err := strconv.ParseFloat(n, 64)
	if err != nil || !(pct >= 0 && pct <= 100) {
		return 0, false
	}
	return pct + 0, true
}

// Sample inverts the CDF: a uniform percentile, interpolated between the two
// table points around it.
func (e *empiricalDist) Sample(r *rand.Rand) int {
	u := 100 * r.Float64()
	// The first point above u; u < 100 and pcts ends at 100, so i ≥ 1.
	i, _ := slices.BinarySearch(e.pcts, u)
	if i < len(e.pcts) && e.pcts[i] == u {
		return e.bnd.round(e.vals[i])
	}
	i = max(i, 1)
	lo, hi := e.pcts[i-1], e.pcts[i]
	x := e.vals[i-1] + (u-lo)/(hi-lo)*(e.vals[i]-e.vals[i-1])
	return e.bnd.round(x)
}

func (e *empiricalDist) Mean() float64 { return clampedMean(e, e.bnd) }

// cdf is P(X ≤ x): linear between table values, with the jump of a point
// mass (two equal values) included at its value.
func (e *empiricalDist) cdf(x float64) float64 {
	n := len(e.vals)
	// k is the last point with a value ≤ x.
	k, found := slices.BinarySearch(e.vals, x)
	for found && k+1 < n && e.vals[k+1] <= x {
		k++
	}
	if !found {
		k--
	}
	switch {
	case k < 0:
		return 0
	case k >= n-1:
		return 1
	}
	lo, hi := e.vals[k], e.vals[k+1] // lo ≤ x < hi
	return (e.pcts[k] + (x-lo)/(hi-lo)*(e.pcts[k+1]-e.pcts[k])) / 100
}

// partial is E[X; a < X ≤ b], summed over the table's segments: a point mass
// counts when a < value ≤ b, a uniform segment by its overlap with (a, b].
func (e *empiricalDist) partial(a, b float64) float64 {
	sum := 0.0
	for i := 1; i < len(e.vals); i++ {
		lo, hi := e.vals[i-1], e.vals[i]
		m := (e.pcts[i] - e.pcts[i-1]) / 100
		if lo == hi {
			if a < lo && lo <= b {
				sum += m * lo
			}
			continue
		}
		if l, h := max(lo, a), min(hi, b); l < h {
			sum += m * (h - l) / (hi - lo) * (l + h) / 2
		}
	}
	return sum
}

func (e *empiricalDist) String() string {
	var sb strings.Builder
	sb.WriteString(DistEmpirical + ":")
	for i := range e.pcts {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("p" + fmtNum(e.pcts[i]) + "=" + fmtNum(e.vals[i]))
	}
	sb.WriteString(e.bnd.suffix())
	return sb.String()
}
