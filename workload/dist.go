package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Dist is a distribution of token counts, written as a spec string such as
// "lognormal:p50=400,p99=8000" (see ParseDist).
type Dist interface {
	// Sample draws one token count: a non-negative integer.
	Sample(r *rand.Rand) int
	// Mean is the expected value of Sample, after clamping; it ignores the
	// rounding to integers, which moves it by well under one token.
	Mean() float64
	// String is the canonical spec: ParseDist(d.String()) gives the same
	// distribution and the same string.
	String() string
}

// Distribution kinds.
const (
	DistConstant    = "constant"
	DistUniform     = "uniform"
	DistLognormal   = "lognormal"
	DistExponential = "exponential"
	DistNormal      = "normal"
	DistGamma       = "gamma"
	DistEmpirical   = "empirical"
)

var distKinds = []string{DistConstant, DistUniform, DistLognormal, DistExponential, DistNormal, DistGamma, DistEmpirical}

// ParseDist parses a distribution spec:
//
//	N, constant:N               always N (an integer ≥ 0)
//	uniform:A..B                an integer uniform in [A, B]
//	lognormal:K=V,K=V           exactly two of p50 (or median), mean, sigma,
//	                            p90, p99; e.g. lognormal:p50=400,p99=8000
//	exponential:mean=X
//	normal:mean=X,sd=Y          truncated at 0 (negative draws are redrawn)
//	gamma:shape=K,scale=T       or any two of shape, scale, mean, cv except
//	                            shape with cv; e.g. gamma:mean=800,cv=1.5
//	empirical:p0=A,p50=B,p100=C a quantile table: percentiles from p0 to
//	                            p100, values non-decreasing, sampled by
//	                            linear interpolation of the inverse CDF
//
// Every kind takes optional min=A and max=B (integers): samples are clamped to
// [A, B]. Clamping to max is deliberate, not a truncation: it puts the tail's
// mass at the cap, as a max_tokens or thinking budget does. Samples are
// rounded to the nearest integer and never exceed MaxTokens. Kinds and keys
// are case-insensitive.
//
// Every kind also takes spike=V@P, any number of times: with probability P
// the sample is exactly V (an integer token count, not clamped), otherwise it
// comes from the rest of the spec. Spikes model what a smooth shape cannot:
// the requests cut at max_tokens or a thinking budget (a spike at the cap) and
// the requests with thinking off (a spike at 0). Their masses add up to less
// than 1; e.g. lognormal:p50=900,sigma=1,max=4096,spike=0@0.3,spike=4096@0.1.
//
// From mean with p90 or p99, two lognormals fit; ParseDist takes the one with
// the smaller sigma (the larger one has an implausibly low median).
func ParseDist(spec string) (Dist, error) {
	d, err := parseDist(spec)
	if err != nil {
		return nil, fmt.Errorf("distribution %q: %w", spec, err)
	}
	return d, nil
}

func parseDist(spec string) (Dist, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	if s == "" {
		return nil, fmt.Errorf("empty spec (valid kinds: %s)", strings.Join(distKinds, ", "))
	}
	kind, rest, hasParams := strings.Cut(s, ":")
	kind = strings.TrimSpace(kind)
	if !hasParams {
		if _, err := strconv.ParseFloat(kind, 64); err == nil {
			return parseConstant(kind, nil)
		}
	}
	if !slices.Contains(distKinds, kind) {
		return nil, fmt.Errorf("unknown kind %q (valid kinds: %s)", kind, strings.Join(distKinds, ", "))
	}
	rest, spikes, err := cutSpikes(rest)
	if err != nil {
		return nil, err
	}
	body, err := parseBody(kind, rest, hasParams)
	if err != nil || len(spikes) == 0 {
		return body, err
	}
	return &spikedDist{body: body, spikes: spikes, mass: spikeMass(spikes)}, nil
}

// parseBody parses the spec of one kind once its spikes are cut out.
func parseBody(kind, rest string, hasParams bool) (Dist, error) {
	if !hasParams || strings.TrimSpace(rest) == "" {
		return nil, fmt.Errorf("%s needs parameters, e.g. %s", kind, distExample(kind))
	}
	pos, params, err := splitParams(rest)
	if err != nil {
		return nil, err
	}
	switch kind {
	case DistConstant:
		return parseConstant(pos, params)
	case DistUniform:
		return parseUniform(pos, params)
	}
	if pos != "" {
		return nil, fmt.Errorf("%s takes key=value parameters, got %q; e.g. %s", kind, pos, distExample(kind))
	}
	switch kind {
	case DistLognormal:
		return parseLognormal(params)
	case DistExponential:
		return parseExponential(params)
	case DistGamma:
		return parseGamma(params)
	case DistEmpirical:
		return parseEmpirical(params)
	default:
		return parseNormal(params)
	}
}

func distExample(kind string) string {
	switch kind {
	case DistConstant:
		return "constant:400"
	case DistUniform:
		return "uniform:100..200"
	case DistLognormal:
		return "lognormal:p50=400,p99=8000"
	case DistExponential:
		return "exponential:mean=500"
	case DistGamma:
		return "gamma:shape=2,scale=400"
	case DistEmpirical:
		return "empirical:p0=10,p50=400,p90=2000,p100=8000"
	default:
		return "normal:mean=500,sd=100"
	}
}

// param is one key=value parameter of a spec.
type param struct {
	key   string
	value float64
}

// splitParams splits "A..B,k=v,k=v" into the optional leading positional
// part (without '=') and the keyed parameters, in order. Keys must not repeat
// and values must be finite numbers.
func splitParams(s string) (string, []param, error) {
	var pos string
	var params []param
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return "", nil, fmt.Errorf("empty parameter")
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			if i > 0 {
				return "", nil, fmt.Errorf("parameter %q is not key=value", part)
			}
			pos = part
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "median" { // the documented alias
			k = "p50"
		}
		for _, p := range params {
			if p.key == k {
				return "", nil, fmt.Errorf("parameter %s given twice", k)
			}
		}
		x, err := parseNumber(k, v)
		if err != nil {
			return "", nil, err
		}
		params = append(params, param{key: k, value: x})
	}
	return pos, params, nil
}

func parseNumber(key, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s: want a finite number, got %q", key, v)
	}
	return x, nil
}

// takeParams checks keys against the allowed ones (min and max are always
// allowed) and returns the values by key along with the clamp bounds.
func takeParams(kind string, params []param, allowed ...string) (map[string]float64, bounds, error) {
	vals := make(map[string]float64, len(params))
	b := bounds{lo: 0, hi: MaxTokens}
	for _, p := range params {
		switch {
		case p.key == "min" || p.key == "max":
			n, err := tokenCount(p.key, p.value)
			if err != nil {
				return nil, b, err
			}
			if p.key == "min" {
				b.lo, b.hasLo = float64(n), true
			} else {
				b.hi, b.hasHi = float64(n), true
			}
		case slices.Contains(allowed, p.key):
			vals[p.key] = p.value
		default:
			return nil, b, fmt.Errorf("unknown parameter %q for %s (valid: %s, min, max)", p.key, kind, strings.Join(allowed, ", "))
		}
	}
	if b.lo > b.hi {
		return nil, b, fmt.Errorf("min (%g) is above max (%g)", b.lo, b.hi)
	}
	return vals, b, nil
}

// tokenCount checks that x is an integer token count in [0, MaxTokens].
func tokenCount(name string, x float64) (int, error) {
	if x < 0 || x != math.Trunc(x) || x > MaxTokens {
		return 0, fmt.Errorf("%s: want an integer in [0, %d], got %s", name, MaxTokens, fmtNum(x))
	}
	return int(x), nil
}

// positive checks that x is in (0, limit].
func positive(name string, x, limit float64) error {
	if x <= 0 || x > limit {
		return fmt.Errorf("%s: want a number in (0, %s], got %s", name, fmtNum(limit), fmtNum(x))
	}
	return nil
}

// fmtNum formats a number the shortest way that parses back to it.
func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// bounds are a distribution's clamp: [lo, hi] always holds, lo = 0 and
// hi = MaxTokens unless min or max say otherwise.
type bounds struct {
	lo, hi       float64
	hasLo, hasHi bool
}

// round clamps a continuous draw and rounds it to a token count.
func (b bounds) round(x float64) int {
	if math.IsNaN(x) {
		x = 0
	}
	return int(math.Round(min(max(x, b.lo), b.hi)))
}

// suffix is the canonical ",min=..,max=.." part of a spec.
func (b bounds) suffix() string {
	var s string
	if b.hasLo {
		s += ",min=" + fmtNum(b.lo)
	}
	if b.hasHi {
		s += ",max=" + fmtNum(b.hi)
	}
	return s
}

// continuous is a distribution on [0, ∞) with closed forms for what the
// clamped mean needs.
type continuous interface {
	cdf(x float64) float64
	// partial is E[X; a < X ≤ b], the mean's share from (a, b].
	partial(a, b float64) float64
}

// clampedMean is E[clamp(X, lo, hi)]: the mass below lo counts as lo and the
// mass above hi as hi.
func clampedMean(c continuous, b bounds) float64 {
	m := b.lo*c.cdf(b.lo) + c.partial(b.lo, b.hi) + b.hi*(1-c.cdf(b.hi))
	return max(m, 0)
}

// stdNormalCDF is Φ.
func stdNormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// stdNormalPDF is φ.
func stdNormalPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
