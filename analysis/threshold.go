package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Threshold is one pass/fail criterion on a load test's summary, in the
// manner of k6's thresholds: "ttft_p99<2s", "tpot_p50<=50ms",
// "failure_rate<1%", "throughput_requests>3".
type Threshold struct {
	// Metric is a metric of the registry (metric.go), by its name.
	Metric string `json:"metric"`
	// Op is one of <, <=, >, >=.
	Op string `json:"op"`
	// Value is in the metric's base unit: seconds for latencies, a
	// fraction for rates and KV usage, else the metric's own.
	Value float64 `json:"value"`
	// Text is the threshold as the user wrote it.
	Text string `json:"threshold"`
}

// ParseThresholds reads --threshold values: each one threshold or several
// separated by commas. A latency needs a unit (ms, s, or any Go duration:
// 1m30s); a fraction may be written as a percentage ("1%") or as a
// number; counts and rates are plain numbers.
func ParseThresholds(specs []string) ([]Threshold, error) {
	var out []Threshold
	for _, spec := range specs {
		for _, item := range boundItems(spec, ",") {
			t, err := parseThreshold(item)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func parseThreshold(item string) (Threshold, error) {
	b, ok := cutBound(item, "<=", ">=", "<", ">")
	if !ok {
		return Threshold{}, fmt.Errorf("threshold %q: want METRIC<VALUE, e.g. ttft_p99<2s (operators <, <=, >, >=)", item)
	}
	m, err := findMetric(b.metric, anyMetric)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", item, err)
	}
	v, err := thresholdValue(b.value, m)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", item, err)
	}
	return Threshold{Metric: m.Name, Op: b.op, Value: v, Text: b.metric + b.op + b.value}, nil
}

// thresholdValue reads a value for metric m in its base unit.
func thresholdValue(raw string, m *Metric) (float64, error) {
	switch {
	case raw == "":
		return 0, fmt.Errorf("no value after the operator")
	case strings.HasSuffix(raw, "%") && m.Unit != "%":
		return 0, fmt.Errorf("%q: a percentage fits only %s", raw, strings.Join(metricNames(func(m *Metric) bool { return m.Unit == "%" }), ", "))
	case m.Unit == "ms":
		return ParseLatency(raw, false)
	}
	return parseShare(raw, true)
}

// ThresholdUnit is the unit of a threshold metric (Metric.Unit), and
// whether the name is one.
func ThresholdUnit(name string) (string, bool) {
	m, ok := LookupMetric(name)
	if !ok {
		return "", false
	}
	return m.Unit, true
}

// ThresholdMetrics lists the names a threshold may use.
func ThresholdMetrics() []string { return metricNames(anyMetric) }

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
	out := make([]ThresholdResult, 0, len(ts))
	for _, t := range ts {
		r := ThresholdResult{Threshold: t, Actual: math.NaN()}
		if m, ok := LookupMetric(t.Metric); ok {
			r.Actual = m.Value(s)
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
