package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Standard normal quantiles of the 90th and 99th percentiles.
const (
	z90 = 1.2815515655446004
	z99 = 2.3263478740408408
)

// maxSigma bounds a lognormal's sigma. At 10 the p99 is e^23 times the median,
// far past any token count; the bound keeps exp(mu + sigma²/2) finite.
const maxSigma = 10

// lognormalKeys are the parameters a lognormal is given by, exactly two of
// them, in canonical order.
var lognormalKeys = []string{"p50", "mean", "sigma", "p90", "p99"}

// lognormalDist is exp(N(mu, sigma²)), the usual shape of output lengths:
// most requests short, a long tail. given keeps the user's parameters so
// that String gives back the spec as written.
type lognormalDist struct {
	mu, sigma float64
	given     []param
	bnd       bounds
}

func parseLognormal(params []param) (Dist, error) {
	vals, b, err := takeParams(DistLognormal, params, lognormalKeys...)
	if err != nil {
		return nil, err
	}
	if len(vals) != 2 {
		return nil, fmt.Errorf("lognormal needs exactly two of p50 (median), mean, sigma, p90, p99, got %d; e.g. %s",
			len(vals), distExample(DistLognormal))
	}
	for k, v := range vals {
		limit := float64(MaxTokens)
		if k == "sigma" {
			limit = maxSigma
		}
		if err := positive(k, v, limit); err != nil {
			return nil, err
		}
	}
	mu, sigma, err := solveLognormal(vals)
	if err != nil {
		return nil, err
	}
	if !(sigma > 0 && sigma <= maxSigma) || math.IsNaN(mu) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("the parameters give sigma %s, want (0, %d]", fmtNum(sigma), maxSigma)
	}
	d := &lognormalDist{mu: mu, sigma: sigma, bnd: b}
	for _, k := range lognormalKeys {
		if v, ok := vals[k]; ok {
			d.given = append(d.given, param{key: k, value: v})
		}
	}
	return d, nil
}

// solveLognormal finds mu and sigma from two given parameters, each positive.
// With q the quantile at z: ln q = mu + z·sigma; ln mean = mu + sigma²/2.
func solveLognormal(v map[string]float64) (mu, sigma float64, err error) {
	quantiles := map[string]float64{"p50": 0, "p90": z90, "p99": z99}
	var qs []string // the quantile keys given, in canonical order
	for _, k := range lognormalKeys {
		if _, ok := v[k]; ok && k != "mean" && k != "sigma" {
			qs = append(qs, k)
		}
	}
	s, hasSigma := v["sigma"]
	m, hasMean := v["mean"]
	switch {
	case hasSigma && hasMean:
		return math.Log(m) - s*s/2, s, nil
	case hasSigma: // and one quantile
		return math.Log(v[qs[0]]) - quantiles[qs[0]]*s, s, nil
	case len(qs) == 2:
		k1, k2 := qs[0], qs[1]
		if v[k2] <= v[k1] {
			return 0, 0, fmt.Errorf("%s (%s) must be above %s (%s)", k2, fmtNum(v[k2]), k1, fmtNum(v[k1]))
		}
		s = (math.Log(v[k2]) - math.Log(v[k1])) / (quantiles[k2] - quantiles[k1])
		return math.Log(v[k1]) - quantiles[k1]*s, s, nil
	}
	// mean and one quantile q at z: sigma²/2 − z·sigma + ln(q/mean) = 0.
	k := qs[0]
	z, q := quantiles[k], v[k]
	if z == 0 { // the median: sigma² = 2·ln(mean/p50)
		if m <= q {
			return 0, 0, fmt.Errorf("mean (%s) must be above p50 (%s): a lognormal's mean exceeds its median", fmtNum(m), fmtNum(q))
		}
		s = math.Sqrt(2 * math.Log(m/q))
		return math.Log(q), s, nil
	}
	disc := z*z - 2*math.Log(q/m)
	if disc < 0 {
		return 0, 0, fmt.Errorf("no lognormal has mean %s and %s %s: %s is too far above the mean", fmtNum(m), k, fmtNum(q), k)
	}
	// The smaller positive root: the larger one puts the median implausibly
	// low (mean 900 with p99 8000 would give a median of 3 tokens).
	s = z - math.Sqrt(disc)
	if s <= 0 {
		s = z + math.Sqrt(disc)
	}
	return math.Log(m) - s*s/2, s, nil
}

func (l *lognormalDist) Sample(r *rand.Rand) int {
	return l.bnd.round(math.Exp(l.mu + l.sigma*r.NormFloat64()))
}

func (l *lognormalDist) Mean() float64 { return clampedMean(l, l.bnd) }

func (l *lognormalDist) cdf(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return stdNormalCDF((math.Log(x) - l.mu) / l.sigma)
}

// partial is E[X; a < X ≤ b] = e^(mu+sigma²/2)·(Φ(d(b)) − Φ(d(a))) with
// d(x) = (ln x − mu − sigma²)/sigma.
func (l *lognormalDist) partial(a, b float64) float64 {
	s2 := l.sigma * l.sigma
	d := func(x float64) float64 {
		if x <= 0 {
			return math.Inf(-1)
		}
		return (math.Log(x) - l.mu - s2) / l.sigma
	}
	return math.Exp(l.mu+s2/2) * (stdNormalCDF(d(b)) - stdNormalCDF(d(a)))
}

func (l *lognormalDist) String() string {
	var sb strings.Builder
	sb.WriteString(DistLognormal + ":")
	for i, p := range l.given {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(p.key + "=" + fmtNum(p.value))
	}
	sb.WriteString(l.bnd.suffix())
	return sb.String()
}
