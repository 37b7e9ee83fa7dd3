package logstats

import (
	"math"

	"github.com/thinkcap/thinkcap/workload"
)

// bodyKS is the Kolmogorov–Smirnov distance between the sorted body and the
// samples of d. With a cap (capV ≠ capNone) the body holds only values below
// it, so d is compared conditioned on a sample below the cap, and tail is
// d's mass at or above the cap.
func bodyKS(sorted []float64, d workload.Dist, capV float64) (ks, tail float64) {
	cdf := func(x float64) float64 {
		p, _ := workload.CDF(d, x)
		return p
	}
	if capV != capNone {
		below := cdf(capV - 1) // samples are whole tokens, and capV is one
		tail = 1 - below
		if !(below > 0) {
			return 1, tail
		}
		full := cdf
		cdf = func(x float64) float64 { return min(full(x)/below, 1) }
	}
	return ksDistance(sorted, cdf), tail
}

// ksDistance is sup over x of |F_n(x) − G(x)|, F_n the empirical
// distribution of the sorted sample and G(x) = cdf(x) = P(Y ≤ x) for a Y
// taking whole-number values. Between two neighbouring distinct sample
// values a < b, F_n is flat and G rises monotonically from G(a) to
// G(b−) = P(Y < b) = G(⌈b⌉ − 1), so comparing F_n(v) with G(v) and F_n(v−)
// with G(v−) at each distinct value v finds the supremum exactly. A repeated
// argument (integer samples one apart: G(v) then G((v+1) − 1)) is computed
// once.
func ksDistance(sorted []float64, cdf func(float64) float64) float64 {
	n := float64(len(sorted))
	lastX, lastG := math.NaN(), 0.0
	g := func(x float64) float64 {
		if x != lastX {
			lastX, lastG = x, cdf(x)
		}
		return lastG
	}
	d := 0.0
	for i := 0; i < len(sorted); {
		v := sorted[i]
		j := i + 1
		for j < len(sorted) && sorted[j] == v {
			j++
		}
		below, at := float64(i)/n, float64(j)/n
		d = max(d, math.Abs(below-g(math.Ceil(v)-1)), math.Abs(at-g(v)))
		i = j
	}
	return d
}
