package analysis

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The one reader of bounds on metrics, which the four syntaxes share:
// ttft_p99=2s (an SLO), ttft_p99<2s (a threshold), ttft:2000 (vLLM's
// goodput), ttft_p50=20% (a tolerance). Each item is a metric, an
// operator and a value; the metric resolves through the registry
// (metric.go), the value through ParseLatency or parseShare.

// bound is one item of a list of bounds as the user wrote it.
type bound struct {
	text   string // the item, trimmed
	metric string // before the operator, trimmed
	op     string
	value  string // after the operator, trimmed
}

// cutBound splits item at the first of ops that it holds (the longer where
// two start at the same place, so that <= is not read as <); false when it
// holds none.
func cutBound(item string, ops ...string) (bound, bool) {
	item = strings.TrimSpace(item)
	op, at := "", -1
	for _, o := range ops {
		if j := strings.Index(item, o); j >= 0 && (at < 0 || j < at || j == at && len(o) > len(op)) {
			op, at = o, j
		}
	}
	if at < 0 {
		return bound{text: item}, false
	}
	return bound{text: item, metric: strings.TrimSpace(item[:at]), op: op, value: strings.TrimSpace(item[at+len(op):])}, true
}

// boundItems splits spec at any rune of seps, trims each item and drops the
// empty ones.
func boundItems(spec, seps string) []string {
	var items []string
	for _, item := range strings.FieldsFunc(spec, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// parseEachOnce reads every item of spec (split at any rune of seps) with
// parse, which also names the item's metric. Every problem is reported; a
// metric given twice is one, and so is a spec with no item (example shows
// one).
func parseEachOnce[T any](spec, seps, example string, parse func(string) (T, string, error)) ([]T, error) {
	var out []T
	var errs []error
	seen := map[string]bool{}
	for _, item := range boundItems(spec, seps) {
		v, name, err := parse(item)
		switch {
		case err != nil:
			errs = append(errs, err)
		case seen[name]:
			errs = append(errs, fmt.Errorf("%s given twice", name))
		default:
			seen[name] = true
			out = append(out, v)
		}
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New(example))
	}
	return out, errors.Join(errs...)
}

// ParseLatency reads a latency as seconds: a number with s or ms (2s,
// 1.5s, 50ms, 1e3ms) or any Go duration (1m30s, 250us). A bare number is
// milliseconds where bareMillis (vLLM's --goodput ttft:2000) and an error
// otherwise, where 60 could be either unit. A negative, infinite or NaN
// latency is an error; zero is not (a threshold may say <0s), so a bound
// that must be positive checks that itself.
func ParseLatency(v string, bareMillis bool) (float64, error) {
	x, err := latencySeconds(v, bareMillis)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0, fmt.Errorf("%q: want a finite latency of at least 0", v)
	}
	return x, nil
}

func latencySeconds(v string, bareMillis bool) (float64, error) {
	num, scale := v, 1e-3
	if n, ok := strings.CutSuffix(v, "ms"); ok {
		num = n
	} else if n, ok := strings.CutSuffix(v, "s"); ok {
		num, scale = n, 1
	} else if !bareMillis {
		num = ""
	}
	if num != "" {
		// A number too large for a float64 reads as an infinity, which
		// ParseLatency then refuses as such.
		if x, err := strconv.ParseFloat(num, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return x * scale, nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), nil
	}
	return 0, fmt.Errorf("%q: a latency needs a unit, e.g. 2s or 500ms", v)
}

// positiveLatency is ParseLatency for a bound that must be more than 0.
func positiveLatency(v string, bareMillis bool) (float64, error) {
	x, err := ParseLatency(v, bareMillis)
	if err == nil && x == 0 {
		err = fmt.Errorf("%q: want a latency of more than 0", v)
	}
	return x, err
}

// formatLatency prints a latency bound in seconds as ParseLatency reads
// it: in ms below a second, in s from there.
func formatLatency(s float64) string {
	if s < 1 {
		return strconv.FormatFloat(s*1000, 'g', -1, 64) + "ms"
	}
	return strconv.FormatFloat(s, 'g', -1, 64) + "s"
}

// parseShare reads a finite number of at least 0, or where percentOK a
// percentage of one as a fraction (20% is 0.2).
func parseShare(raw string, percentOK bool) (float64, error) {
	num, scale := raw, 1.0
	if n, ok := strings.CutSuffix(raw, "%"); ok && percentOK {
		num, scale = strings.TrimSpace(n), 100
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0, fmt.Errorf("%q is not a finite number of at least 0", num)
	}
	return x / scale, nil
}
