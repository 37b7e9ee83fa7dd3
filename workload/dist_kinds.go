package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Compile-time checks that every kind is a Dist.
var (
	_ Dist = Constant(0)
	_ Dist = (*uniformDist)(nil)
	_ Dist = (*lognormalDist)(nil)
	_ Dist = (*exponentialDist)(nil)
	_ Dist = (*normalDist)(nil)
	_ Dist = (*gammaDist)(nil)
	_ Dist = (*empiricalDist)(nil)
)

// Constant is a distribution that always gives the same count.
type Constant int

// Sample returns the constant.
func (c Constant) Sample(*rand.Rand) int { return int(c) }

// Mean returns the constant.
func (c Constant) Mean() float64 { return float64(c) }

// String returns "constant:N".
func (c Constant) String() string { return DistConstant + ":" + strconv.Itoa(int(c)) }

// parseConstant reads "N" with optional min/max, which are applied at once
// because clamping a constant gives a constant.
func parseConstant(pos string, params []param) (Dist, error) {
	if pos == "" {
		return nil, fmt.Errorf("constant needs a value, e.g. %s", distExample(DistConstant))
	}
	x, err := parseNumber("value", pos)
	if err != nil {
		return nil, err
	}
	n, err := tokenCount("value", x)
	if err != nil {
		return nil, err
	}
	_, b, err := takeParams(DistConstant, params)
	if err != nil {
		return nil, err
	}
	return Constant(b.round(float64(n))), nil
}

// uniformDist is an integer uniform on [a, b].
type uniformDist struct {
	a, b int
	bnd  bounds
}

func parseUniform(pos string, params []param) (Dist, error) {
	lo, hi, ok := strings.Cut(pos, "..")
	if !ok {
		return nil, fmt.Errorf("uniform needs a range A..B, e.g. %s", distExample(DistUniform))
	}
	var ends [2]int
	for i, s := range []string{lo, hi} {
		x, err := parseNumber("range", strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		if ends[i], err = tokenCount("range", x); err != nil {
			return nil, err
		}
	}
	if ends[0] > ends[1] {
		return nil, fmt.Errorf("range %d..%d is empty: want A <= B", ends[0], ends[1])
	}
	_, b, err := takeParams(DistUniform, params)
	if err != nil {
		return nil, err
	}
	return &uniformDist{a: ends[0], b: ends[1], bnd: b}, nil
}

func (u *uniformDist) Sample(r *rand.Rand) int {
	return u.bnd.round(float64(u.a + r.IntN(u.b-u.a+1)))
}

// Mean sums the clamped values in closed form: below lo they count as lo,
// above hi as hi, in between as themselves.
func (u *uniformDist) Mean() float64 {
	a, b := float64(u.a), float64(u.b)
	lo, hi := u.bnd.lo, u.bnd.hi
	nLo := max(0, min(b, lo-1)-a+1)
	nHi := max(0, b-max(a, hi+1)+1)
	sum := lo*nLo + hi*nHi
	if from, to := max(a, lo), min(b, hi); from <= to {
		sum += (from + to) / 2 * (to - from + 1)
	}
	return sum / (b - a + 1)
}

func (u *uniformDist) String() string {
	return fmt.Sprintf("%s:%d..%d%s", DistUniform, u.a, u.b, u.bnd.suffix())
}

// exponentialDist is an exponential with the given mean.
type exponentialDist struct {
	mean float64
	bnd  bounds
}

func parseExponential(params []param) (Dist, error) {
	vals, b, err := takeParams(DistExponential, params, "mean")
	if err != nil {
		return nil, err
	}
	m, ok := vals["mean"]
	if !ok {
		return nil, fmt.Errorf("exponential needs mean, e.g. %s", distExample(DistExponential))
	}
	if err := positive("mean", m, MaxTokens); err != nil {
		return nil, err
	}
	return &exponentialDist{mean: m, bnd: b}, nil
}

func (e *exponentialDist) Sample(r *rand.Rand) int { return e.bnd.round(r.ExpFloat64() * e.mean) }

func (e *exponentialDist) Mean() float64 { return clampedMean(e, e.bnd) }

func (e *exponentialDist) cdf(x float64) float64 { return 1 - math.Exp(-x/e.mean) }

// partial integrates x·e^(-x/m)/m from a to b: [-(x+m)·e^(-x/m)] from a to b.
func (e *exponentialDist) partial(a, b float64) float64 {
	m := e.mean
	return (a+m)*math.Exp(-a/m) - (b+m)*math.Exp(-b/m)
}

func (e *exponentialDist) String() string {
	return DistExponential + ":mean=" + fmtNum(e.mean) + e.bnd.suffix()
}

// normalDist is a normal truncated at 0: negative draws are redrawn, so the
// distribution is the normal's shape on [0, ∞), not a spike at 0.
type normalDist struct {
	mean, sd float64
	bnd      bounds
	z        float64 // P(X ≥ 0) of the untruncated normal
}

func parseNormal(params []param) (Dist, error) {
	vals, b, err := takeParams(DistNormal, params, "mean", "sd")
	if err != nil {
		return nil, err
	}
	m, okM := vals["mean"]
	sd, okS := vals["sd"]
	if !okM || !okS {
		return nil, fmt.Errorf("normal needs mean and sd, e.g. %s", distExample(DistNormal))
	}
	// mean ≥ 0 keeps at least half the mass above 0, so redrawing is cheap.
	if m < 0 || m > MaxTokens {
		return nil, fmt.Errorf("mean: want a number in [0, %d], got %s", MaxTokens, fmtNum(m))
	}
	if err := positive("sd", sd, MaxTokens); err != nil {
		return nil, err
	}
	return &normalDist{mean: m, sd: sd, bnd: b, z: 1 - stdNormalCDF(-m/sd)}, nil
}

func (n *normalDist) Sample(r *rand.Rand) int {
	// Each try succeeds with probability ≥ 1/2; 64 failures do not happen.
	for range 64 {
		if x := n.mean + n.sd*r.NormFloat64(); x >= 0 {
			return n.bnd.round(x)
		}
	}
	return n.bnd.round(0)
}

func (n *normalDist) Mean() float64 { return clampedMean(n, n.bnd) }

func (n *normalDist) cdf(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return (stdNormalCDF((x-n.mean)/n.sd) - (1 - n.z)) / n.z
}

// partial is E[X; a < X ≤ b] of the truncated normal, for 0 ≤ a ≤ b:
// (μ·(Φ(β)−Φ(α)) + σ·(φ(α)−φ(β))) / Z with α, β the standardised bounds.
func (n *normalDist) partial(a, b float64) float64 {
	al, be := (max(a, 0)-n.mean)/n.sd, (b-n.mean)/n.sd
	return (n.mean*(stdNormalCDF(be)-stdNormalCDF(al)) + n.sd*(stdNormalPDF(al)-stdNormalPDF(be))) / n.z
}

func (n *normalDist) String() string {
	return DistNormal + ":mean=" + fmtNum(n.mean) + ",sd=" + fmtNum(n.sd) + n.bnd.suffix()
}
