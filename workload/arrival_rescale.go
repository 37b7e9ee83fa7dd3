package workload

import (
	"fmt"
	"math"
)

// Time-rescaling of a logged workload: replay the log's own arrivals
// faster or slower (--speedup), or at a chosen mean rate (--rate with
// --workload). Both keep the log's shape (bursts, lulls, the day's
// rhythm) and change only its pace.
//
// A follow-up request (After set) keeps its ArrivalS: that is its delay
// after its predecessor completes, a property of the gateway, not of the
// traffic.

// Speedup divides the arrival of every request by factor, in place: 2
// replays the log twice as fast, 0.5 at half speed, +Inf all at once.
func Speedup(reqs []Request, factor float64) error {
	if math.IsNaN(factor) || factor <= 0 {
		return fmt.Errorf("speedup: must be a positive factor, got %g", factor)
	}
	latest := 0.0
	for i := range reqs {
		if reqs[i].After == "" {
			latest = max(latest, reqs[i].ArrivalS)
		}
	}
	if latest/factor > MaxArrivalS {
		return fmt.Errorf("speedup: %g slows the log beyond %g seconds", factor, float64(MaxArrivalS))
	}
	for i := range reqs {
		if reqs[i].After == "" {
			reqs[i].ArrivalS /= factor
		}
	}
	return nil
}

// LogRate is the mean arrival rate of a log in requests per second: the
// number of gaps between arrivals over the time from the first to the last,
// as a process at rate R spaces n requests over (n−1)/R seconds. Follow-up
// requests do not count.
func LogRate(reqs []Request) (float64, error) {
	n, first, last := arrivalSpan(reqs)
	if n < 2 {
		return 0, fmt.Errorf("rate of a log: need at least two requests, got %d", n)
	}
	if last <= first {
		return 0, fmt.Errorf("rate of a log: all %d requests arrive at %g s (a log of zero length has no rate)", n, first)
	}
	return float64(n-1) / (last - first), nil
}

// RescaleToRate scales the arrivals of reqs in place so that the log's mean
// rate (LogRate) becomes rate requests per second, and returns the speedup
// factor it applied. +Inf puts every arrival at 0.
func RescaleToRate(reqs []Request, rate float64) (float64, error) {
	if math.IsNaN(rate) || rate <= 0 {
		return 0, fmt.Errorf("rate: must be positive (requests per second), got %g", rate)
	}
	current, err := LogRate(reqs)
	if err != nil {
		return 0, fmt.Errorf("rate: cannot rescale the log: %w", err)
	}
	factor := rate / current
	if err := Speedup(reqs, factor); err != nil {
		return 0, fmt.Errorf("rate: %g req/s: %w", rate, err)
	}
	return factor, nil
}

// arrivalSpan counts the requests the arrival process sends (follow-ups,
// whose ArrivalS is a delay, left out) and the first and last of their
// arrivals.
func arrivalSpan(reqs []Request) (n int, first, last float64) {
	first, last = math.Inf(1), math.Inf(-1)
	for i := range reqs {
		if reqs[i].After != "" {
			continue
		}
		n++
		first = min(first, reqs[i].ArrivalS)
		last = max(last, reqs[i].ArrivalS)
	}
	return n, first, last
}
