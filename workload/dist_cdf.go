package workload

import "math"

// CDF returns P(d.Sample(r) ≤ x): the distribution function of the samples
// themselves, which are whole token counts after clamping to [min, max] and
// rounding, so it is a step function that jumps at integers. It is exact
// (up to the special functions) for every kind ParseDist builds, spikes
// included, which lets a fit measure its Kolmogorov–Smirnov distance to a
// log against exactly what the spec will generate. ok is false for a Dist
// implemented outside this package.
func CDF(d Dist, x float64) (p float64, ok bool) {
	if math.IsNaN(x) {
		return math.NaN(), false
	}
	switch d := d.(type) {
	case Constant:
		if x >= float64(d) {
			return 1, true
		}
		return 0, true
	case *uniformDist:
		return d.sampleCDF(x), true
	case *spikedDist:
		body, ok := CDF(d.body, x)
		p = (1 - d.mass) * body
		for _, sp := range d.spikes {
			if float64(sp.value) <= x {
				p += sp.mass
			}
		}
		return min(p, 1), ok
	case *lognormalDist:
		return roundedCDF(d, d.bnd, x), true
	case *gammaDist:
		return roundedCDF(d, d.bnd, x), true
	case *empiricalDist:
		return roundedCDF(d, d.bnd, x), true
	case *exponentialDist:
		return roundedCDF(d, d.bnd, x), true
	case *normalDist:
		return roundedCDF(d, d.bnd, x), true
	}
	return 0, false
}

// roundedCDF is P(round(clamp(X, lo, hi)) ≤ x) for a continuous X. With
// v = ⌊x⌋ strictly between lo and hi, the sample is ≤ v exactly when
// X < v + ½ (math.Round sends a half up), the left limit of X's CDF there.
func roundedCDF(c continuous, b bounds, x float64) float64 {
	switch {
	case x < b.lo:
		return 0
	case x >= b.hi:
		return 1
	}
	edge := math.Floor(x) + 0.5
	return min(max(c.cdf(math.Nextafter(edge, math.Inf(-1))), 0), 1)
}

// sampleCDF counts the integers of [a, b] whose clamped value is ≤ x.
func (u *uniformDist) sampleCDF(x float64) float64 {
	switch {
	case x < u.bnd.lo:
		return 0
	case x >= u.bnd.hi:
		return 1
	}
	a, b := float64(u.a), float64(u.b)
	k := min(math.Floor(x), b) - a + 1 // values a..⌊x⌋, each ≤ x once clamped (lo ≤ x)
	return min(max(k/(b-a+1), 0), 1)
}
