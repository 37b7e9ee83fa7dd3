package main

import (
	"fmt"
	"strconv"
	"strings"
)

// loadList is the value of --rate or --concurrency: one number, or in a
// load test a comma-separated list of them, a sweep (1,2,4,8).
type loadList struct {
	vals      []float64
	integer   bool // --concurrency: whole numbers
	sweepable bool // the command takes a list (loadtest)
}

func (l *loadList) Set(s string) error {
	var vals []float64
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if l.integer {
			n, err := strconv.Atoi(item)
			if err != nil {
				return fmt.Errorf("%q is not a whole number", item)
			}
			vals = append(vals, float64(n))
			continue
		}
		x, err := strconv.ParseFloat(item, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", item)
		}
		vals = append(vals, x)
	}
	if len(vals) > 1 && !l.sweepable {
		return fmt.Errorf("a list (%s) is a load-test sweep (thinkcap loadtest); give one value here", s)
	}
	l.vals = vals
	return nil
}

func (l *loadList) String() string {
	parts := make([]string, len(l.vals))
	for i, v := range l.vals {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (l *loadList) Type() string {
	if l.integer {
		return "ints"
	}
	return "floats"
}

// first is the list's first value, 0 when unset.
func (l *loadList) first() float64 {
	if len(l.vals) == 0 {
		return 0
	}
	return l.vals[0]
}
