package loadgen

import (
	"fmt"
	"strconv"
	"time"
)

// ParseWarmup reads a warm-up: a number of first requests ("100") or a
// duration from the start of the run ("30s").
func ParseWarmup(s string) (int, time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return n, 0, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return 0, d, nil
	}
	return 0, 0, fmt.Errorf("%q: want a number of requests (100) or a duration (30s)", s)
}
