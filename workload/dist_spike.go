package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// spike is a point mass: with probability mass a sample is exactly value.
type spike struct {
	value int
	mass  float64
}

// spikedDist mixes point masses into a body distribution. Real token counts
// have them: requests cut at max_tokens or at a thinking budget pile up at
// the cap, and requests with thinking off have exactly 0 think tokens. A
// smooth body cannot produce either, and clamping (max=) ties the cap's mass
// to the body's tail; a spike gives the mass its own parameter.
type spikedDist struct {
	body   Dist
	spikes []spike // sorted by value, values distinct
	mass   float64 // the spikes' total mass, < 1
}

var _ Dist = (*spikedDist)(nil)

// Sample draws one uniform number to pick a spike or the body; the body then
// draws from r as it would alone.
func (s *spikedDist) Sample(r *rand.Rand) int {
	u := r.Float64()
	acc := 0.0
	for _, sp := range s.spikes {
		acc += sp.mass
		if u < acc {
			return sp.value
		}
	}
	return s.body.Sample(r)
}

// Mean is exact whenever the body's is: Σ mass·value + (1 − Σ mass)·body.
func (s *spikedDist) Mean() float64 {
	m := (1 - s.mass) * s.body.Mean()
	for _, sp := range s.spikes {
		m += sp.mass * float64(sp.value)
	}
	return max(m, 0)
}

// String is the body's spec followed by the spikes in value order.
func (s *spikedDist) String() string {
	var sb strings.Builder
	sb.WriteString(s.body.String())
	for _, sp := range s.spikes {
		sb.WriteString(",spike=" + strconv.Itoa(sp.value) + "@" + fmtNum(sp.mass))
	}
	return sb.String()
}

// cutSpikes removes the spike=V@P parameters from the parameter list of a
// spec (the part after "kind:") and returns the rest as written, with the
// spikes sorted by value. The rest keeps its empty parameters, so that
// splitParams still reports them.
func cutSpikes(rest string) (string, []spike, error) {
	parts := strings.Split(rest, ",")
	kept := parts[:0]
	var spikes []spike
	for _, part := range parts {
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) != "spike" {
			kept = append(kept, part)
			continue
		}
		sp, err := parseSpike(strings.TrimSpace(v))
		if err != nil {
			return "", nil, err
		}
		for _, prev := range spikes {
			if prev.value == sp.value {
				return "", nil, fmt.Errorf("spike at %d given twice", sp.value)
			}
		}
		spikes = append(spikes, sp)
	}
	if len(spikes) == 0 {
		return rest, nil, nil
	}
	slices.SortFunc(spikes, func(a, b spike) int { return a.value - b.value })
	if m := spikeMass(spikes); !(m < 1) {
		return "", nil, fmt.Errorf("spike masses add up to %s: want less than 1, leaving some mass to the body", fmtNum(m))
	}
	return strings.Join(kept, ","), spikes, nil
}

// parseSpike reads "V@P": an integer token count and a probability in (0, 1).
func parseSpike(s string) (spike, error) {
	vs, ps, ok := strings.Cut(s, "@")
	if !ok {
		return spike{}, fmt.Errorf("spike: want VALUE@MASS such as 4096@0.1, got %q", s)
	}
	x, err := parseNumber("spike value", strings.TrimSpace(vs))
	if err != nil {
		return spike{}, err
	}
	v, err := tokenCount("spike value", x)
	if err != nil {
		return spike{}, err
	}
	p, err := parseNumber("spike mass", strings.TrimSpace(ps))
	if err != nil {
		return spike{}, err
	}
	if !(p > 0 && p < 1) {
		return spike{}, fmt.Errorf("spike mass: want a probability in (0, 1), got %s", fmtNum(p))
	}
	return spike{value: v, mass: p}, nil
}

func spikeMass(spikes []spike) float64 {
	m := 0.0
	for _, sp := range spikes {
		m += sp.mass
	}
	return m
}
