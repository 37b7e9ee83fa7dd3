package analysis

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// The threshold-only metrics: failed requests over all measured requests
// (rejected ones included), a fraction; and with --goodput, the fraction of
// user requests that met every per-request SLO and their rate.
const (
	MetricFailureRate     = "failure_rate"
	MetricGoodputFraction = "goodput_fraction"
	MetricGoodputRequests = "goodput_requests"
)

// thresholdOnly are the metrics a threshold may name beside Metrics().
var thresholdOnly = []struct {
	name, unit string
	value      func(*Summary) float64
}{
	{MetricFailureRate, "%", failureRate},
	{MetricGoodputFraction, "%", func(s *Summary) float64 {
		if s.Goodput == nil || s.Goodput.Requests == 0 {
			return math.NaN()
		}
		return s.Goodput.Fraction
	}},
	{MetricGoodputRequests, "req/s", func(s *Summary) float64 {
		if s.Goodput == nil || s.Goodput.Requests == 0 {
			return math.NaN()
		}
		return s.Goodput.RequestsPerS
	}},
}

// Threshold is one pass/fail criterion on a load test's summary, in the
// manner of k6's thresholds: "ttft_p99<2s", "tpot_p50<=50ms",
// "failure_rate<1%", "throughput_requests>3".
type Threshold struct {
	// Metric is a name of Metrics() or a threshold-only metric.
	Metric string `json:"metric"`
	// Op is one of <, <=, >, >=.
	Op string `json:"op"`
	// Value is in the metric's base unit: seconds for latencies, a
	// fraction for rates and KV usage, else the metric's own.
	Value float64 `json:"value"`
	// Text is the threshold as the user wrote it.
	Text string `json:"threshold"`
}

// thresholdOps, longest first so that "<=" is not read as "<".
var thresholdOps = []string{"<=", ">=", "<", ">"}

// ParseThresholds reads --threshold values: each one threshold or several
// separated by commas. A latency needs a unit (ms, s, or any Go duration:
// 1m30s); a fraction may be written as a percentage ("1%") or as a
// number; counts and rates are plain numbers.
func ParseThresholds(specs []string) ([]Threshold, error) {
	var out []Threshold
	for _, spec := range specs {
		for part := range strings.SplitSeq(spec, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			t, err := parseThreshold(part)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func parseThreshold(s string) (Threshold, error) {
	op, i := "", -1
	for _, o := range thresholdOps {
		if j := strings.Index(s, o); j >= 0 && (i < 0 || j < i || j == i && len(o) > len(op)) {
			op, i = o, j
		}
	}
	if i < 0 {
		return Threshold{}, fmt.Errorf("threshold %q: want METRIC<VALUE, e.g. ttft_p99<2s (operators <, <=, >, >=)", s)
	}
	name := strings.TrimSpace(s[:i])
	raw := strings.TrimSpace(s[i+len(op):])
	unit, ok := thresholdUnit(name)
	if !ok {
		return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q; valid metrics are %s", s, name, strings.Join(ThresholdMetrics(), ", "))
	}
	v, err := thresholdValue(raw, unit)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", s, err)
	}
	return Threshold{Metric: name, Op: op, Value: v, Text: name + op + raw}, nil
}

// thresholdValue reads a value for a metric of the given unit (Metric.Unit).
func thresholdValue(raw, unit string) (float64, error) {
	if raw == "" {
		return 0, fmt.Errorf("no value after the operator")
	}
	var v float64
	switch {
	case strings.HasSuffix(raw, "%"):
		if unit != "%" {
			return 0, fmt.Errorf("%q: a percentage fits only failure_rate, goodput_fraction and kv_usage_*", raw)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(raw, "%")), 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a percentage", raw)
		}
		v = f / 100
	case unit == "ms":
		d, err := time.ParseDuration(raw)
		if err != nil {
			return 0, fmt.Errorf("%q: a latency needs a unit, e.g. 2s or 500ms", raw)
		}
		v = d.Seconds()
	default:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", raw)
		}
		v = f
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q: want a finite value of at least 0", raw)
	}
	return v, nil
}

// thresholdUnit is the unit of a threshold metric (Metric.Unit), and
// whether the name is one.
func thresholdUnit(name string) (string, bool) {
	for _, m := range thresholdOnly {
		if m.name == name {
			return m.unit, true
		}
	}
	for _, m := range Metrics() {
		if m.Name == name {
			return m.Unit, true
		}
	}
	return "", false
}

// ThresholdMetrics lists the names a threshold may use.
func ThresholdMetrics() []string {
	var names []string
	for _, m := range thresholdOnly {
		names = append(names, m.name)
	}
	for _, m := range Metrics() {
		names = append(names, m.Name)
	}
	return names
}

// MaxFailureRate is --max-failure-rate as a threshold.
func MaxFailureRate(rate float64) (Threshold, error) {
	if !(rate >= 0 && rate <= 1) {
		return Threshold{}, fmt.Errorf("--max-failure-rate %g: want a fraction in [0, 1]", rate)
	}
	return Threshold{Metric: MetricFailureRate, Op: "<=", Value: rate, Text: MetricFailureRate + "<=" + strconv.FormatFloat(rate, 'g', -1, 64)}, nil
}

// ThresholdResult is one threshold checked against a summary.
type ThresholdResult struct {
	Threshold
	// Actual is the measured value in the metric's base unit; NaN when the
	// run measured nothing for it (then the threshold fails: a bound no
	// measurement shows met is not met).
	Actual float64 `json:"-"`
	Pass   bool    `json:"pass"`
}

// CheckThresholds checks every threshold against s.
func CheckThresholds(s *Summary, ts []Threshold) []ThresholdResult {
	values := map[string]func(*Summary) float64{}
	for _, m := range thresholdOnly {
		values[m.name] = m.value
	}
	for _, m := range Metrics() {
		values[m.Name] = m.Value
	}
	out := make([]ThresholdResult, 0, len(ts))
	for _, t := range ts {
		r := ThresholdResult{Threshold: t, Actual: math.NaN()}
		if get, ok := values[t.Metric]; ok {
			r.Actual = get(s)
		}
		r.Pass = !math.IsNaN(r.Actual) && compare(r.Actual, t.Op, t.Value)
		out = append(out, r)
	}
	return out
}

// ThresholdsFailed counts the thresholds that did not pass.
func ThresholdsFailed(rs []ThresholdResult) int {
	n := 0
	for _, r := range rs {
		if !r.Pass {
			n++
		}
	}
	return n
}

func compare(v float64, op string, bound float64) bool {
	switch op {
	case "<":
		return v < bound
	case "<=":
		return v <= bound
	case ">":
		return v > bound
	case ">=":
		return v >= bound
	}
	return false
}

// failureRate is the summary's failed requests over its total; NaN when
// the run measured no request.
func failureRate(s *Summary) float64 {
	if s.Requests.Total == 0 {
		return math.NaN()
	}
	return float64(s.Requests.Failed) / float64(s.Requests.Total)
}

// WriteThresholds prints the thresholds as a pass/fail table: each as
// written, the measured value in the metric's display unit, and the result.
func WriteThresholds(w io.Writer, rs []ThresholdResult) error {
	if len(rs) == 0 {
		return nil
	}
	t := newLabeledTable(w, 1, "threshold", "measured", "result")
	for _, r := range rs {
		unit, _ := thresholdUnit(r.Metric)
		result := "pass"
		switch {
		case math.IsNaN(r.Actual):
			result = "fail (no data)"
		case !r.Pass:
			result = "fail"
		}
		if err := t.Append([]string{r.Text, formatThresholdValue(r.Actual, unit), result}); err != nil {
			return fmt.Errorf("write thresholds: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("write thresholds: %w", err)
	}
	return nil
}

// formatThresholdValue prints a value in its metric's display unit.
func formatThresholdValue(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return noValue
	case unit == "ms":
		return formatMS(v) + " ms"
	case unit == "%":
		return formatFixed(100*v, 2) + "%"
	case unit != "":
		return formatCompact(v) + " " + unit
	}
	return formatCompact(v)
}
