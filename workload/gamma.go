package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mathext"
)

// Bounds on a gamma's shape. Below 0.01 (cv 10) nearly every draw rounds to
// 0 and the rest are astronomically large; above 1e6 (cv 0.001) the gamma is
// a constant for any token count.
const (
	minGammaShape = 0.01
	maxGammaShape = 1e6
)

// gammaKeys are the parameters a gamma is given by, exactly two of them, in
// canonical order.
var gammaKeys = []string{"shape", "scale", "mean", "cv"}

// gammaDist is a gamma with the given shape k and scale θ (mean kθ, cv
// 1/√k). Its tail is lighter than a lognormal's with the same mean and cv,
// which fits length distributions that are skewed but bounded in practice.
// given keeps the user's parameters so that String gives them back.
type gammaDist struct {
	shape, scale float64
	given        []param
	bnd          bounds
}

func parseGamma(params []param) (Dist, error) {
	vals, b, err := takeParams(DistGamma, params, gammaKeys...)
	if err != nil {
		return nil, err
	}
	if len(vals) != 2 {
		return nil, fmt.Errorf("gamma needs exactly two of shape, scale, mean, cv, got %d; e.g. %s or gamma:mean=800,cv=1.5",
			len(vals), distExample(DistGamma))
	}
	for k, v := range vals {
		limit := float64(MaxTokens)
		switch k {
		case "shape":
			limit = maxGammaShape
		case "cv":
			limit = 1 / math.Sqrt(minGammaShape)
		}
		if err := positive(k, v, limit); err != nil {
			return nil, err
		}
	}
	_, hasShape := vals["shape"]
	_, hasCV := vals["cv"]
	if hasShape && hasCV {
		return nil, fmt.Errorf("shape and cv both set the shape (cv = 1/√shape): give one of them with scale or mean")
	}
	shape, ok := vals["shape"]
	switch {
	case ok:
	case hasCV:
		shape = 1 / (vals["cv"] * vals["cv"])
	default: // mean and scale
		shape = vals["mean"] / vals["scale"]
	}
	scale, ok := vals["scale"]
	if !ok {
		scale = vals["mean"] / shape
	}
	if !(shape >= minGammaShape && shape <= maxGammaShape) {
		return nil, fmt.Errorf("the parameters give shape %s, want [%s, %s]", fmtNum(shape), fmtNum(minGammaShape), fmtNum(maxGammaShape))
	}
	if m := shape * scale; !(m > 0 && m <= MaxTokens) {
		return nil, fmt.Errorf("the parameters give mean %s, want (0, %d]", fmtNum(m), MaxTokens)
	}
	d := &gammaDist{shape: shape, scale: scale, bnd: b}
	for _, k := range gammaKeys {
		if v, ok := vals[k]; ok {
			d.given = append(d.given, param{key: k, value: v})
		}
	}
	return d, nil
}

// Sample uses Marsaglia and Tsang's method ("A simple method for generating
// gamma variables", ACM TOMS 26(3), 2000), drawing only from r so that a seed
// gives the same samples everywhere. gonum's distuv.Gamma implements the same
// method but builds a new generator on every call.
func (g *gammaDist) Sample(r *rand.Rand) int {
	return g.bnd.round(g.scale * sampleGamma(r, g.shape))
}

// sampleGamma draws a standard gamma (scale 1) of shape a. For a < 1 it draws
// shape a+1 and multiplies by U^(1/a), Marsaglia and Tsang's boost.
func sampleGamma(r *rand.Rand, a float64) float64 {
	boost := 1.0
	if a < 1 {
		boost = math.Pow(r.Float64(), 1/a)
		a++
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return boost * d * v
		}
	}
}

func (g *gammaDist) Mean() float64 { return clampedMean(g, g.bnd) }

func (g *gammaDist) cdf(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return mathext.GammaIncReg(g.shape, x/g.scale)
}

// partial is E[X; a < X ≤ b] = kθ·(P(k+1, b/θ) − P(k+1, a/θ)), P the
// regularised lower incomplete gamma function: x times the gamma(k, θ)
// density is kθ times the gamma(k+1, θ) density.
func (g *gammaDist) partial(a, b float64) float64 {
	p := func(x float64) float64 {
		if x <= 0 {
			return 0
		}
		return mathext.GammaIncReg(g.shape+1, x/g.scale)
	}
	return g.shape * g.scale * (p(b) - p(a))
}

func (g *gammaDist) String() string {
	var sb strings.Builder
	sb.WriteString(DistGamma + ":")
	for i, p := range g.given {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(p.key + "=" + fmtNum(p.value))
	}
	sb.WriteString(g.bnd.suffix())
	return sb.String()
}
