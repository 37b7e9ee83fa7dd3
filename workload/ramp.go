package workload

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// A Ramp raises the load from almost nothing to the full schedule over a
// duration (loadtest --ramp-up, as vllm bench serve's --ramp-up-strategy):
// linearly, or exponentially from a hundredth of it.
type Ramp struct {
	Shape    string // RampLinear or RampExponential
	Duration time.Duration
}

// The ramp shapes.
const (
	RampLinear      = "linear"
	RampExponential = "exponential"
	// rampStart is where an exponential ramp starts, as a fraction of the
	// full load.
	rampStart = 0.01
)

// ParseRamp reads shape:duration, e.g. linear:30s or exponential:2m.
func ParseRamp(s string) (Ramp, error) {
	shape, dur, ok := strings.Cut(s, ":")
	d, err := time.ParseDuration(dur)
	switch {
	case !ok || err != nil:
		return Ramp{}, fmt.Errorf("--ramp-up %q: want linear:DURATION or exponential:DURATION, e.g. linear:30s", s)
	case shape != RampLinear && shape != RampExponential:
		return Ramp{}, fmt.Errorf("--ramp-up %q: the shape is linear or exponential", s)
	case d <= 0:
		return Ramp{}, fmt.Errorf("--ramp-up %q: the duration must be positive", s)
	}
	return Ramp{Shape: shape, Duration: d}, nil
}

// fraction is the ramp's load at time t as a fraction of the full load.
func (r Ramp) fraction(t float64) float64 {
	D := r.Duration.Seconds()
	switch {
	case t >= D:
		return 1
	case r.Shape == RampExponential:
		return math.Pow(rampStart, 1-t/D)
	}
	return t / D
}

// rampedWork is ∫₀ᵘ fraction: how much of the full schedule's time has
// passed by wall time u.
func (r Ramp) rampedWork(u float64) float64 {
	D := r.Duration.Seconds()
	full := r.fullWork()
	if u >= D {
		return full + (u - D)
	}
	if r.Shape == RampExponential {
		k := math.Log(1 / rampStart)
		return D / k * (math.Pow(rampStart, 1-u/D) - rampStart)
	}
	return u * u / (2 * D)
}

// fullWork is the schedule time the whole ramp covers.
func (r Ramp) fullWork() float64 {
	D := r.Duration.Seconds()
	if r.Shape == RampExponential {
		return D * (1 - rampStart) / math.Log(1/rampStart)
	}
	return D / 2
}

// Stretch maps a schedule time t to the wall time at which a ramped run
// reaches it: t itself's rate is the full one, so during the ramp the
// schedule runs at fraction(u) of its pace and after it the run is
// Duration − fullWork behind.
func (r Ramp) Stretch(t float64) float64 {
	D := r.Duration.Seconds()
	if t >= r.fullWork() {
		return D + (t - r.fullWork())
	}
	if r.Shape == RampExponential {
		k := math.Log(1 / rampStart)
		return D * (1 - math.Log(rampStart+t*k/D)/math.Log(rampStart))
	}
	return math.Sqrt(2 * D * t)
}

// WorkerStart is when the k-th of c closed-loop workers (from 0) starts on
// the ramp: the first at once, the last at the end for a linear ramp, the
// concurrency growing as c^(t/D) for an exponential one.
func (r Ramp) WorkerStart(k, c int) time.Duration {
	if c <= 1 || k <= 0 {
		return 0
	}
	f := float64(k) / float64(c-1)
	if r.Shape == RampExponential {
		f = math.Log(float64(k+1)) / math.Log(float64(c))
	}
	return time.Duration(f * float64(r.Duration))
}

// ApplyRamp moves the requests' arrival times onto the ramp (open loop).
func ApplyRamp(reqs []Request, r Ramp) {
	for i := range reqs {
		reqs[i].ArrivalS = r.Stretch(reqs[i].ArrivalS)
	}
}
