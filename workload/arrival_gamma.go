package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// gammaArrival draws gamma-distributed gaps as vllm bench serve does with
// --burstiness: shape = burstiness, scale = 1/(rate·burstiness), so the mean
// gap is 1/rate whatever the burstiness, and the gaps' coefficient of
// variation is 1/sqrt(burstiness). Burstiness 1 is a Poisson process;
// below 1 requests come in bursts with lulls between, above 1 they come
// more evenly than Poisson (towards constant).
type gammaArrival struct {
	rate, burstiness float64
}

// NewGammaArrival returns the gamma process at rate requests per second
// (+Inf: every request at once) with the given burstiness (> 0).
func NewGammaArrival(rate, burstiness float64) (Arrival, error) {
	if math.IsNaN(rate) || rate <= 0 {
		return nil, fmt.Errorf("gamma arrival: rate must be positive (requests per second), got %g", rate)
	}
	if math.IsNaN(burstiness) || math.IsInf(burstiness, 0) || burstiness <= 0 {
		return nil, fmt.Errorf("gamma arrival: burstiness must be a positive number, got %g", burstiness)
	}
	return gammaArrival{rate: rate, burstiness: burstiness}, nil
}

// parseBurstiness reads gamma's parameters: "burstiness=B" or "cv=C"
// (burstiness = 1/C²); none means burstiness 1.
func parseBurstiness(params string) (float64, error) {
	if strings.TrimSpace(params) == "" {
		return 1, nil
	}
	var (
		burstiness float64
		seen       string
	)
	for kv := range strings.SplitSeq(params, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || (k != "burstiness" && k != "cv") {
			return 0, fmt.Errorf("gamma takes burstiness=B or cv=C, got %q", kv)
		}
		if seen != "" {
			return 0, fmt.Errorf("gamma takes one of burstiness and cv, got %s and %s", seen, k)
		}
		seen = k
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
			return 0, fmt.Errorf("gamma: %s must be a positive number, got %q", k, v)
		}
		burstiness = x
		if k == "cv" {
			burstiness = 1 / (x * x)
		}
	}
	if burstiness <= 0 || math.IsInf(burstiness, 0) {
		return 0, errors.New("gamma: cv out of range")
	}
	return burstiness, nil
}

func (g gammaArrival) Next(r *rand.Rand) float64 {
	if g.burstiness == 1 {
		// The same draws as poisson, so that burstiness 1 is Poisson to
		// the schedule, not only in law.
		return r.ExpFloat64() / g.rate
	}
	return sampleGamma(r, g.burstiness) / (g.rate * g.burstiness)
}

func (g gammaArrival) RatePerS() float64 { return g.rate }

// Burstiness is the gamma shape, vllm bench serve's --burstiness.
func (g gammaArrival) Burstiness() float64 { return g.burstiness }

func (g gammaArrival) String() string {
	return describeArrival(fmt.Sprintf("%s (burstiness %g)", ArrivalGamma, g.burstiness), g.rate)
}
