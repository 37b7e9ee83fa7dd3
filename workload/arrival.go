package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Arrival is an open-loop arrival process: a sequence of gaps between
// requests, drawn from a random stream. It holds no clock, so the simulator
// (virtual time) and the load generator (wall clock) turn the same seed into
// the same schedule; see Schedule.
type Arrival interface {
	// Next returns the gap in seconds from one arrival to the next (≥ 0).
	Next(r *rand.Rand) float64
	// RatePerS is the mean arrival rate in requests per second.
	RatePerS() float64
	// String names the process and its rate, e.g. "poisson at 10 req/s".
	String() string
}

// Arrival process names.
const (
	// ArrivalConstant spaces requests evenly, 1/rate apart.
	ArrivalConstant = "constant"
	// ArrivalPoisson draws exponential gaps of mean 1/rate, the memoryless
	// process of many independent users (vllm bench serve's default).
	ArrivalPoisson = "poisson"
	// ArrivalGamma draws gamma gaps of mean 1/rate whose burstiness is set
	// as vllm bench serve's --burstiness: "gamma:burstiness=0.5" (or by the
	// gaps' coefficient of variation, "gamma:cv=1.4"). See arrival_gamma.go.
	ArrivalGamma = "gamma"
)

// ArrivalNames lists the valid arrival process names.
func ArrivalNames() []string { return []string{ArrivalConstant, ArrivalPoisson, ArrivalGamma} }

// Compile-time checks.
var (
	_ Arrival = constantArrival{}
	_ Arrival = poissonArrival{}
	_ Arrival = gammaArrival{}
)

// ParseArrival returns the named arrival process at rate requests per
// second (ParseArrivalProcess, then At).
func ParseArrival(name string, rate float64) (Arrival, error) {
	p, err := ParseArrivalProcess(name)
	if err != nil {
		return nil, err
	}
	return p.At(rate)
}

// ArrivalProcess is an arrival process parsed without its rate, which the
// traffic chooses later (a default, a closed loop's, a sweep point's): At
// gives the Arrival at a rate. The zero value is poisson.
type ArrivalProcess struct {
	Spec       string // as given, for messages; "" for the zero value
	kind       string
	burstiness float64
}

// ParseArrivalProcess parses an arrival process. Parameters follow the
// name after a colon, key=value separated by commas: gamma takes
// burstiness or cv ("gamma:burstiness=0.5"; plain "gamma" is burstiness 1,
// Poisson); constant and poisson take none.
func ParseArrivalProcess(name string) (ArrivalProcess, error) {
	kind, params, hasParams := strings.Cut(strings.ToLower(strings.TrimSpace(name)), ":")
	valid := strings.Join(ArrivalNames(), ", ")
	switch kind {
	case ArrivalConstant, ArrivalPoisson, ArrivalGamma:
	case "":
		return ArrivalProcess{}, fmt.Errorf("arrival process: empty name (valid: %s)", valid)
	default:
		return ArrivalProcess{}, fmt.Errorf("arrival process %q: unknown (valid: %s)", name, valid)
	}
	if hasParams && kind != ArrivalGamma {
		return ArrivalProcess{}, fmt.Errorf("arrival process %q: %s takes no parameters, got %q", name, kind, params)
	}
	p := ArrivalProcess{Spec: name, kind: kind}
	if kind == ArrivalGamma {
		b, err := parseBurstiness(params)
		if err != nil {
			return ArrivalProcess{}, fmt.Errorf("arrival process %q: %w", name, err)
		}
		if _, err := NewGammaArrival(1, b); err != nil {
			return ArrivalProcess{}, err
		}
		p.burstiness = b
	}
	return p, nil
}

// Kind is the process's name: constant, poisson or gamma.
func (p ArrivalProcess) Kind() string {
	if p.kind == "" {
		return ArrivalPoisson
	}
	return p.kind
}

// At is the process at rate requests per second. rate must be positive;
// +Inf sends every request at once, as vllm bench serve does with its
// default rate.
func (p ArrivalProcess) At(rate float64) (Arrival, error) {
	if math.IsNaN(rate) || rate <= 0 {
		return nil, fmt.Errorf("arrival process %q: rate must be positive (requests per second), got %g", p.Spec, rate)
	}
	switch p.Kind() {
	case ArrivalConstant:
		return constantArrival{rate: rate}, nil
	case ArrivalGamma:
		return NewGammaArrival(rate, p.burstiness)
	}
	return poissonArrival{rate: rate}, nil
}

// Schedule returns the arrival times of n requests in seconds from the start,
// non-decreasing. The first request arrives at 0, as in vegeta and k6, so a
// run does not begin idle. The times depend only on a and the state of r:
// this is the plan that both the simulator and the load generator follow.
func Schedule(a Arrival, n int, r *rand.Rand) []float64 {
	if n <= 0 {
		return nil
	}
	times := make([]float64, n)
	for i := 1; i < n; i++ {
		times[i] = times[i-1] + a.Next(r)
	}
	return times
}

// constantArrival spaces requests exactly 1/rate apart.
type constantArrival struct{ rate float64 }

func (c constantArrival) Next(*rand.Rand) float64 { return 1 / c.rate }
func (c constantArrival) RatePerS() float64       { return c.rate }
func (c constantArrival) String() string          { return describeArrival(ArrivalConstant, c.rate) }

// poissonArrival draws exponential gaps with mean 1/rate.
type poissonArrival struct{ rate float64 }

func (p poissonArrival) Next(r *rand.Rand) float64 { return r.ExpFloat64() / p.rate }
func (p poissonArrival) RatePerS() float64         { return p.rate }
func (p poissonArrival) String() string            { return describeArrival(ArrivalPoisson, p.rate) }

func describeArrival(name string, rate float64) string {
	if math.IsInf(rate, 1) {
		return name + " at an unlimited rate"
	}
	return fmt.Sprintf("%s at %g req/s", name, rate)
}
