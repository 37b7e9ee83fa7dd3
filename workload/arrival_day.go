package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// DayProfile is a request rate that follows the hours of the day, as
// production traffic does: Weights[h] is the relative rate during hour h
// (UTC when the log had timestamps), with mean 1 over the 24 hours, and
// StartHour is the hour of day at time 0. A rate of R req/s shaped by it
// is R·Weights[h] during hour h, and R over a whole day.
type DayProfile struct {
	Weights   [24]float64
	StartHour float64
}

// HourlyProfile estimates the day profile of a log: the rate in each hour
// of the day is the number of requests that arrived in it divided by the
// time the log spent in it (so a log of a day and a half counts the hours
// it saw twice twice). The hour of day comes from the absolute timestamps
// when the log had them (st.Timestamps and st.StartUnix, in UTC), else
// hour = floor(arrival_s/3600) mod 24. Hours the log never saw get the
// log's mean rate. Follow-up requests (After set) do not count.
func HourlyProfile(reqs []Request, st ReadStats) (DayProfile, error) {
	var p DayProfile
	if st.Timestamps {
		p.StartHour = positiveMod(st.StartUnix/3600, 24)
	}
	n, first, last := arrivalSpan(reqs)
	switch {
	case n == 0:
		return p, errors.New("day-shaped arrivals: the log has no requests")
	case !(last > first):
		return p, fmt.Errorf("day-shaped arrivals: all %d requests of the log arrive at %g s (a log of zero length has no daily profile)", n, first)
	}

	// Exposure: seconds of [first, last] in each hour of the day.
	var exposure, count [24]float64
	for t := first; t < last; {
		abs := p.StartHour*3600 + t // seconds since a midnight
		h := int(positiveMod(math.Floor(abs/3600), 24))
		next := min(last, t+(math.Floor(abs/3600)+1)*3600-abs)
		if next <= t { // rounding at an hour boundary
			next = math.Nextafter(t, math.Inf(1))
		}
		exposure[h] += next - t
		t = next
	}
	for i := range reqs {
		if reqs[i].After == "" {
			count[p.hourAt(reqs[i].ArrivalS)]++
		}
	}
	mean := float64(n) / (last - first)
	sum := 0.0
	for h := range 24 {
		// An hour seen for less than a second says nothing: a record
		// that lands on the very end of the log.
		if exposure[h] >= 1 {
			p.Weights[h] = count[h] / exposure[h]
		} else {
			p.Weights[h] = mean
		}
		sum += p.Weights[h]
	}
	if !(sum > 0) {
		return p, errors.New("day-shaped arrivals: the log's hourly rates are all zero")
	}
	for h := range p.Weights {
		p.Weights[h] *= 24 / sum
	}
	return p, nil
}

// hourAt is the hour of day at t seconds from the start.
func (p DayProfile) hourAt(t float64) int {
	h := int(positiveMod(math.Floor(p.StartHour+t/3600), 24))
	return min(max(h, 0), 23)
}

// RateAt is the rate at t seconds from the start for a mean rate of
// meanRate requests per second: a pure function of time, for a virtual
// or a wall clock alike.
func (p DayProfile) RateAt(t, meanRate float64) float64 {
	return meanRate * p.Weights[p.hourAt(t)]
}

// Schedule returns n arrival times from a non-homogeneous Poisson process
// whose rate is RateAt, by thinning (Lewis and Shedler): candidates come at
// the peak rate and each is kept with probability rate/peak. The first
// request arrives at 0, as in Schedule. The times depend only on p,
// meanRate and the state of r.
func (p DayProfile) Schedule(n int, meanRate float64, r *rand.Rand) ([]float64, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("day-shaped arrivals: requests must be at least 1, got %d", n)
	case math.IsNaN(meanRate) || meanRate <= 0:
		return nil, fmt.Errorf("day-shaped arrivals: rate must be positive (requests per second), got %g", meanRate)
	}
	peak := 0.0
	for _, w := range p.Weights {
		if math.IsNaN(w) || w < 0 || math.IsInf(w, 0) {
			return nil, fmt.Errorf("day-shaped arrivals: hourly weight %g is not a non-negative number", w)
		}
		peak = max(peak, w)
	}
	if peak == 0 {
		return nil, errors.New("day-shaped arrivals: the profile's hourly weights are all zero")
	}
	times := make([]float64, n)
	if math.IsInf(meanRate, 1) {
		return times, nil // every request at once
	}
	peakRate := meanRate * peak
	t := 0.0
	for i := 1; i < n; {
		t += r.ExpFloat64() / peakRate
		if t > MaxArrivalS {
			return nil, fmt.Errorf("day-shaped arrivals: %d requests at %g req/s last beyond %g seconds", n, meanRate, float64(MaxArrivalS))
		}
		if r.Float64()*peakRate < p.RateAt(t, meanRate) {
			times[i] = t
			i++
		}
	}
	return times, nil
}

// DayShaped returns n arrival times at a mean rate of rate requests per
// second, shaped over the day as the log reqs was (see HourlyProfile and
// DayProfile.Schedule), deterministic for a seed: time 0 falls at the
// hour of day the log began.
func DayShaped(reqs []Request, st ReadStats, n int, rate float64, seed uint64) ([]float64, error) {
	p, err := HourlyProfile(reqs, st)
	if err != nil {
		return nil, err
	}
	return p.Schedule(n, rate, NewStream(seed, "arrival"))
}

// positiveMod is x mod m in [0, m).
func positiveMod(x, m float64) float64 {
	r := math.Mod(x, m)
	if r < 0 {
		r += m
	}
	if r >= m { // -tiny + m rounds to m
		r = 0
	}
	return r
}
