package analysis

import (
	"errors"
	"math"
	"slices"
)

// KSResult is a two-sample Kolmogorov–Smirnov test: do two samples come
// from the same distribution?
type KSResult struct {
	// D is the statistic: the largest vertical distance between the two
	// empirical distribution functions, in [0, 1].
	D float64 `json:"statistic"`
	// PValue is the asymptotic p-value: the probability of a D at least this
	// large if both samples came from one continuous distribution. Small
	// values (below 0.01, say) mean the distributions differ.
	PValue float64 `json:"p_value"`
}

// KSTwoSample runs a two-sample Kolmogorov–Smirnov test on x and y, which
// need not be sorted and are left as they are. It fails on an empty sample
// or a NaN value.
//
// The p-value is asymptotic: P(K > √nₑ·D) for the Kolmogorov distribution K,
// with the effective sample size nₑ = n·m/(n+m) (as scipy's
// ks_2samp(method="asymp") computes it, without Stephens' small-sample
// correction). It is accurate when nₑ is at least a few dozen, which is what
// a drift check on a day of traffic has. Token counts are integers and tie;
// the test assumes continuous data, and with ties it is conservative (the
// p-value is too large), so an alarm it raises is real.
func KSTwoSample(x, y []float64) (KSResult, error) {
	if len(x) == 0 || len(y) == 0 {
		return KSResult{}, errors.New("ks test: empty sample")
	}
	if slices.ContainsFunc(x, math.IsNaN) || slices.ContainsFunc(y, math.IsNaN) {
		return KSResult{}, errors.New("ks test: NaN in sample")
	}
	xs, ys := slices.Clone(x), slices.Clone(y)
	slices.Sort(xs)
	slices.Sort(ys)
	return KSSorted(xs, ys), nil
}

// KSSorted is the test on sorted, non-empty samples.
func KSSorted[T int32 | float64](x, y []T) KSResult {
	d := ksStatistic(x, y)
	n, m := float64(len(x)), float64(len(y))
	ne := n * m / (n + m)
	return KSResult{D: d, PValue: KolmogorovSurvival(math.Sqrt(ne) * d)}
}

// ksStatistic walks both sorted samples in step, value by value, and
// returns the largest gap between their empirical distribution functions.
// All copies of a tied value are passed before the gap is measured, as the
// functions are right-continuous steps.
//
// gonum's stat.KolmogorovSmirnov computes the same statistic, but sums 1/n
// once per value, so its D drifts in the last digits (past 1 for disjoint
// samples of 100 and 1000 values), which `drift -o json` prints in full, and
// it wants float64 copies of the int32 counts drift holds; D here is the
// largest |i/n − j/m| with each fraction rounded once. TestKSStatisticMatchesGonum
// checks the two agree to rounding.
func ksStatistic[T int32 | float64](x, y []T) float64 {
	n, m := float64(len(x)), float64(len(y))
	var i, j int
	d := 0.0
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/n-float64(j)/m))
	}
	// Once one sample is used up its function is 1 and the other's only
	// rises towards 1: the gap can only shrink.
	return d
}

// KolmogorovSurvival is P(K > λ) for the Kolmogorov distribution, the limit
// of √n·D for n → ∞. It uses the two classical series, each where it
// converges in a handful of terms:
//
//	λ < 1.18:  P(K ≤ λ) = √(2π)/λ · Σ_{j≥1} exp(−(2j−1)²π²/(8λ²))
//	λ ≥ 1.18:  P(K > λ) = 2 · Σ_{j≥1} (−1)^(j−1) exp(−2j²λ²)
//
// The result is in [0, 1]; λ ≤ 0 gives 1.
func KolmogorovSurvival(lambda float64) float64 {
	switch {
	case math.IsNaN(lambda):
		return math.NaN()
	case lambda <= 0:
		return 1
	case lambda < 1.18:
		k := math.Pi * math.Pi / (8 * lambda * lambda)
		sum := 0.0
		for j := 1; j <= 20; j++ {
			odd := float64(2*j - 1)
			term := math.Exp(-odd * odd * k)
			sum += term
			if term < 1e-17*sum {
				break
			}
		}
		return clamp01(1 - math.Sqrt(2*math.Pi)/lambda*sum)
	default:
		sum := 0.0
		sign := 1.0
		for j := 1; j <= 100; j++ {
			jf := float64(j)
			term := math.Exp(-2 * jf * jf * lambda * lambda)
			sum += sign * term
			if term <= 1e-17*math.Abs(sum) {
				break
			}
			sign = -sign
		}
		return clamp01(2 * sum)
	}
}

// clamp01 keeps rounding from pushing a probability out of [0, 1].
func clamp01(p float64) float64 { return min(max(p, 0), 1) }
