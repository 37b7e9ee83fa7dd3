package logstats

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mathext"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/workload"
)

// EmpiricalPercentiles are the 21 percentiles of the quantile table Fit
// writes for the empirical candidate. Between two of them the table spreads
// the mass evenly, which is close in the middle of a smooth body, so the
// points crowd at the ends instead, where the CDF bends: below p5 (a
// lognormal body rises slowly from its shortest requests) and above p95,
// because capacity is planned on the tail and a table that jumped from p95
// to the maximum would spread the last 5% evenly up to the longest request.
var EmpiricalPercentiles = []float64{
	0, 1, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 85, 90, 95, 97.5, 99, 99.5, 99.9, 100,
}

// logMoments are the count, mean and variance (divided by n: the maximum
// likelihood estimate) of the logs of the positive values, and their plain
// mean, which the lognormal and gamma fits share.
type logMoments struct {
	n               int
	meanLog, varLog float64
	mean            float64
}

// positiveLogMoments computes logMoments in one pass (Welford's update).
func positiveLogMoments(sorted []float64) logMoments {
	var m logMoments
	var m2, sum float64
	for _, v := range sorted {
		if v <= 0 {
			continue
		}
		m.n++
		l := math.Log(v)
		d := l - m.meanLog
		m.meanLog += d / float64(m.n)
		m2 += d * (l - m.meanLog)
		sum += v
	}
	if m.n > 0 {
		m.varLog = m2 / float64(m.n)
		m.mean = sum / float64(m.n)
	}
	return m
}

// fitLognormal is the maximum likelihood lognormal: mu and sigma are the
// mean and standard deviation of the logs, or, below a cap, the maximum of
// the likelihood truncated there (see truncatedMLE). It is written as
// p50=e^mu and sigma, the form people read.
func fitLognormal(body []float64, capV float64) (Candidate, bool) {
	m := positiveLogMoments(body)
	if m.n < 2 || !(m.varLog > 0) {
		return Candidate{}, false
	}
	mu, sigma := m.meanLog, math.Sqrt(m.varLog)
	if c, ok := truncation(body, capV); ok {
		lc := math.Log(c)
		// The mean negative log-likelihood of logs y below ln c, in mu and
		// ln sigma: ln σ + (var + (mean − μ)²)/(2σ²) + ln Φ((ln c − μ)/σ).
		nll := func(x []float64) float64 {
			mu, sigma := x[0], math.Exp(x[1])
			z := (m.meanLog - mu) / sigma
			return x[1] + (m.varLog/(sigma*sigma)+z*z)/2 + logNormalCDF((lc-mu)/sigma)
		}
		if x, ok := truncatedMLE(nll, []float64{mu, math.Log(sigma)}); ok {
			mu, sigma = x[0], math.Exp(x[1])
		}
	}
	p50, sg := roundSig(math.Exp(mu)), roundSig(sigma)
	spec := "lognormal:p50=" + formatSig(p50) + ",sigma=" + formatSig(sg) + capSuffix(capV)
	return candidate(FamilyLognormal, spec, map[string]float64{"p50": p50, "sigma": sg, "mu": math.Log(p50)})
}

// fitGamma is the maximum likelihood gamma: the shape k solves
// ln k − ψ(k) = s with s = ln(mean) − mean(ln x) ≥ 0, found by bisection on
// ln k since the left side falls monotonically from +∞ to 0; the scale is
// mean/k. Below a cap, that is the start of the truncated fit.
func fitGamma(body []float64, capV float64) (Candidate, bool) {
	m := positiveLogMoments(body)
	if m.n < 2 {
		return Candidate{}, false
	}
	s := math.Log(m.mean) - m.meanLog
	if !(s > 0) {
		return Candidate{}, false
	}
	shape := gammaShapeMLE(s)
	scale := m.mean / shape
	if c, ok := truncation(body, capV); ok {
		// The mean negative log-likelihood below c, in ln k and ln θ:
		// −(k−1)·mean(ln x) + mean(x)/θ + k ln θ + ln Γ(k) + ln P(k, c/θ).
		nll := func(x []float64) float64 {
			k, theta := math.Exp(x[0]), math.Exp(x[1])
			if !(k > 0 && k < 1e7 && theta > 0 && !math.IsInf(theta, 0)) {
				return math.Inf(1)
			}
			lg, _ := math.Lgamma(k)
			p := mathext.GammaIncReg(k, c/theta)
			if !(p > 0) {
				return math.Inf(1)
			}
			return -(k-1)*m.meanLog + m.mean/theta + k*x[1] + lg + math.Log(p)
		}
		if x, ok := truncatedMLE(nll, []float64{math.Log(shape), math.Log(scale)}); ok {
			shape, scale = math.Exp(x[0]), math.Exp(x[1])
		}
	}
	k, theta := roundSig(shape), roundSig(scale)
	spec := "gamma:shape=" + formatSig(k) + ",scale=" + formatSig(theta) + capSuffix(capV)
	return candidate(FamilyGamma, spec, map[string]float64{"shape": k, "scale": theta})
}

// gammaShapeMLE solves ln k − ψ(k) = s for k.
func gammaShapeMLE(s float64) float64 {
	f := func(k float64) float64 { return math.Log(k) - mathext.Digamma(k) - s }
	// Minka's closed-form start, within a few per cent of the root.
	k0 := (3 - s + math.Sqrt((s-3)*(s-3)+24*s)) / (12 * s)
	lo, hi := k0/2, k0*2
	for i := 0; f(lo) < 0 && i < 100; i++ {
		lo /= 2
	}
	for i := 0; f(hi) > 0 && i < 100; i++ {
		hi *= 2
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
		if hi/lo-1 < 1e-12 {
			break
		}
	}
	return math.Sqrt(lo * hi)
}

// truncation is the point a capped body was cut at: a value rounds below
// the cap when it is below cap − ½, so that is the truncation point of
// whole-token samples; a body of other values holds everything below cap.
func truncation(body []float64, capV float64) (float64, bool) {
	if capV == capNone {
		return 0, false
	}
	if c := capV - 0.5; body[len(body)-1] <= c && c > 0 {
		return c, true
	}
	return capV, true
}

// truncatedMLE minimises a body's negative log-likelihood under truncation
// at a cap, from the untruncated estimate. Ignoring the truncation would fit
// the body's shape below the cap to a distribution that has all its mass
// there: too short a tail, too small a sigma, and a cap spike that the
// clamped tail would then double-count. The likelihood needs only the
// body's moments, so each evaluation is O(1). Nelder–Mead needs no
// gradient; should it end on a non-finite value, the untruncated estimate
// stands.
func truncatedMLE(nll func([]float64) float64, start []float64) ([]float64, bool) {
	x, f := nelderMead(nll, start, 0.1, 1e-14, 2000)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return x, true
}

// logNormalCDF is ln Φ(z), finite far into the left tail where Φ(z)
// underflows: there ln Φ(z) ≈ −z²/2 − ln(−z·√(2π)).
func logNormalCDF(z float64) float64 {
	if z > -30 {
		return math.Log(0.5 * math.Erfc(-z/math.Sqrt2))
	}
	return -z*z/2 - math.Log(-z*math.Sqrt(2*math.Pi))
}

// fitEmpirical is the body's quantile table at EmpiricalPercentiles
// (Quantile's definition, numpy's default).
func fitEmpirical(body []float64, _ float64) (Candidate, bool) {
	var sb strings.Builder
	sb.WriteString("empirical:")
	params := make(map[string]float64, len(EmpiricalPercentiles))
	for i, p := range EmpiricalPercentiles {
		v := roundSig(analysis.Quantile(body, p/100))
		key := "p" + strconv.FormatFloat(p, 'f', -1, 64)
		params[key] = v
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(key + "=" + formatSig(v))
	}
	return candidate(FamilyEmpirical, sb.String(), params)
}

// candidate parses spec; a spec the workload package rejects (a sigma or
// shape out of its range) is no candidate.
func candidate(family, spec string, params map[string]float64) (Candidate, bool) {
	d, err := workload.ParseDist(spec)
	if err != nil {
		return Candidate{}, false
	}
	return Candidate{Family: family, Spec: d.String(), Params: params, dist: d}, true
}

// capSuffix clamps a smooth body at the cap, so that its tail cannot pass
// the cap the log was cut at.
func capSuffix(capV float64) string {
	if capV == capNone {
		return ""
	}
	return ",max=" + strconv.FormatFloat(capV, 'f', -1, 64)
}
