package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// A Metric is one number `verify` compares between a prediction and a
// measurement: its name (ttft_p99, kv_usage_mean, ...), how to read it from
// a Summary, how it prints, and the absolute difference that is noise: a
// prediction passes when |predicted − measured| ≤ tolerance × |measured| +
// Slack.
type Metric struct {
	Name  string
	Label string // for tables: "TTFT p99"
	Unit  string // "ms", "%", "req/s", "tok/s", "" (a count)
	Slack float64
	// WallSlack marks a slack of wall-clock time (the API server's, the
	// network's), which an emulator running at a time scale stretches.
	WallSlack bool
	Value     func(*Summary) float64
}

// Absolute slack. Request latencies measured by a client include the API
// server's own time (HTTP, tokenisation, detokenisation) and the network,
// which an engine model does not see: tens of milliseconds that matter
// against a 30 ms TTFT and not against a 3 s one. Per-token latencies get
// a millisecond, occupancy one request, KV usage one point.
const (
	requestSlackS = 0.020
	tokenSlackS   = 0.001
)

// Metrics lists every metric verify reports, in table order.
func Metrics() []Metric {
	var ms []Metric
	add := func(name, label, unit string, slack float64, v func(*Summary) float64) {
		ms = append(ms, Metric{Name: name, Label: label, Unit: unit, Slack: slack, WallSlack: unit == "ms", Value: v})
	}
	add("throughput_requests", "requests/s", "req/s", 0, func(s *Summary) float64 { return s.Throughput.RequestsPerS })
	add("throughput_tokens", "output tok/s", "tok/s", 0, func(s *Summary) float64 { return s.Throughput.OutputTokensPerS })
	lat := []struct {
		name, label string
		slack       float64
		get         func(*Summary) Stat
	}{
		{"ttft", "TTFT", requestSlackS, func(s *Summary) Stat { return s.LatencyS.TTFT }},
		{"ttfa", "TTFA", requestSlackS, func(s *Summary) Stat { return s.LatencyS.TTFA }},
		{"tpot", "TPOT", tokenSlackS, func(s *Summary) Stat { return s.LatencyS.TPOT }},
		{"itl", "ITL", tokenSlackS, func(s *Summary) Stat { return s.LatencyS.ITL }},
		{"e2e", "E2E", requestSlackS, func(s *Summary) Stat { return s.LatencyS.E2E }},
	}
	for _, l := range lat {
		get := l.get
		add(l.name+"_mean", l.label+" mean", "ms", l.slack, func(s *Summary) float64 { st := get(s); return orNaN(st.Mean, st.NoData) })
		add(l.name+"_p50", l.label+" p50", "ms", l.slack, func(s *Summary) float64 { st := get(s); return orNaN(st.P50, st.NoData) })
		add(l.name+"_p90", l.label+" p90", "ms", l.slack, func(s *Summary) float64 { st := get(s); return orNaN(st.P90, st.NoData) })
		add(l.name+"_p99", l.label+" p99", "ms", l.slack, func(s *Summary) float64 { st := get(s); return orNaN(st.P99, st.NoData) })
	}
	add("kv_usage_mean", "KV usage mean", "%", 0.01, func(s *Summary) float64 { return orNaN(s.KVUsage.Mean, s.KVUsage.NoData) })
	add("kv_usage_peak", "KV usage peak", "%", 0.01, func(s *Summary) float64 { return orNaN(s.KVUsage.Peak, s.KVUsage.NoData) })
	add("running_peak", "running peak", "", 1, func(s *Summary) float64 { return orNaN(float64(s.Running.Peak), s.Running.NoData) })
	add("waiting_peak", "waiting peak", "", 1, func(s *Summary) float64 { return orNaN(float64(s.Waiting.Peak), s.Waiting.NoData) })
	add("preemptions", "preemptions", "", 2, func(s *Summary) float64 {
		if s.Preemptions == nil {
			return math.NaN()
		}
		return float64(*s.Preemptions)
	})
	return ms
}

// DefaultTolerances are verify's pass/fail bounds, as fractions. They are
// set for a load test of a few hundred requests or more against a model
// whose step time is calibrated: medians tighter than tails (a p99 rests on
// a few requests), time-to-first-token looser than decode (it adds the
// API server's own time, which the model does not see). ITL quantiles are
// reported but not checked: a client sees the gaps after the network has
// merged or split them, and TPOT and the mean ITL carry the decode speed.
// Metrics not listed are reported but not checked.
func DefaultTolerances() map[string]float64 {
	return map[string]float64{
		"throughput_requests": 0.05, "throughput_tokens": 0.05,
		"ttft_p50": 0.25, "ttft_p90": 0.30, "ttft_p99": 0.50,
		"ttfa_p50": 0.15, "ttfa_p90": 0.20, "ttfa_p99": 0.25,
		"tpot_mean": 0.10, "tpot_p50": 0.10, "tpot_p90": 0.15, "tpot_p99": 0.20,
		"itl_mean": 0.10,
		"e2e_p50":  0.15, "e2e_p90": 0.15, "e2e_p99": 0.20,
		"kv_usage_mean": 0.15, "kv_usage_peak": 0.15,
		"running_peak": 0.20, "preemptions": 0.25,
	}
}

// ParseTolerances reads --tolerance: comma-separated metric=bound pairs,
// the bound a percentage ("20%") or a fraction ("0.2"), or "off" to stop
// checking a metric; the pairs change DefaultTolerances. "none" alone
// starts from no checks at all. Unknown metrics are errors that list the
// valid names.
func ParseTolerances(spec string) (map[string]float64, error) {
	tol := DefaultTolerances()
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return tol, nil
	}
	valid := map[string]bool{}
	for _, m := range Metrics() {
		valid[m.Name] = true
	}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "none" {
			tol = map[string]float64{}
			continue
		}
		name, bound, ok := strings.Cut(item, "=")
		name, bound = strings.TrimSpace(name), strings.TrimSpace(bound)
		if !ok || name == "" || bound == "" {
			return nil, fmt.Errorf("tolerance %q: want metric=bound, e.g. ttft_p50=20%%", item)
		}
		if !valid[name] {
			names := make([]string, 0, len(valid))
			for n := range valid {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("tolerance %q: unknown metric %q (valid: %s)", item, name, strings.Join(names, ", "))
		}
		if bound == "off" {
			delete(tol, name)
			continue
		}
		scale := 1.0
		if b, ok := strings.CutSuffix(bound, "%"); ok {
			bound, scale = b, 0.01
		}
		v, err := strconv.ParseFloat(bound, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("tolerance %q: bound %q is not a non-negative number or percentage", item, bound)
		}
		tol[name] = v * scale
	}
	return tol, nil
}

// MetricComparison is one metric's predicted and measured values.
type MetricComparison struct {
	Name      string  `json:"name"`
	Predicted float64 `json:"predicted"`
	Measured  float64 `json:"measured"`
	// Error is (predicted − measured) / measured; null when measured is 0.
	Error *float64 `json:"error"`
	// Tolerance is the bound checked; null when the metric is not checked.
	Tolerance *float64 `json:"tolerance"`
	// Pass is null when the metric is not checked.
	Pass *bool `json:"pass"`
}

// Comparison is a prediction against a measurement, metric by metric.
type Comparison struct {
	Metrics []MetricComparison `json:"metrics"`
	// Pass is true when every checked metric passes.
	Pass bool `json:"pass"`
	// Failed names the checked metrics that failed.
	Failed []string `json:"failed,omitempty"`
}

// Checked counts the metrics with a tolerance.
func (c *Comparison) Checked() int {
	n := 0
	for _, m := range c.Metrics {
		if m.Pass != nil {
			n++
		}
	}
	return n
}

// Compare checks predicted against measured with the given tolerances
// (fractions by metric name).
func Compare(predicted, measured *Summary, tol map[string]float64) Comparison {
	return CompareScaled(predicted, measured, tol, 1)
}

// CompareScaled is Compare for a measurement in an emulator's server time
// at the time scale: the latencies' wall-clock slack is stretched by it, as
// the emulator stretches its HTTP and parsing time.
func CompareScaled(predicted, measured *Summary, tol map[string]float64, timeScale float64) Comparison {
	c := Comparison{Pass: true}
	for _, m := range Metrics() {
		p, v := m.Value(predicted), m.Value(measured)
		mc := MetricComparison{Name: m.Name, Predicted: p, Measured: v}
		if v != 0 {
			e := (p - v) / math.Abs(v)
			mc.Error = &e
		}
		if t, ok := tol[m.Name]; ok {
			t := t
			slack := m.Slack
			if m.WallSlack && timeScale > 1 {
				slack *= timeScale
			}
			ok := math.Abs(p-v) <= t*math.Abs(v)+slack
			mc.Tolerance, mc.Pass = &t, &ok
			if !ok {
				c.Pass = false
				c.Failed = append(c.Failed, m.Name)
			}
		}
		c.Metrics = append(c.Metrics, mc)
	}
	return c
}
