package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

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
		"ttft_engine_mean": 0.25,
		"ttfa_p50":         0.15, "ttfa_p90": 0.20, "ttfa_p99": 0.25,
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
	if strings.TrimSpace(spec) == "" {
		return tol, nil
	}
	for _, item := range strings.Split(spec, ",") {
		if strings.TrimSpace(item) == "none" {
			tol = map[string]float64{}
			continue
		}
		name, v, err := parseTolerance(item)
		switch {
		case err != nil:
			return nil, err
		case math.IsNaN(v):
			delete(tol, name)
		default:
			tol[name] = v
		}
	}
	return tol, nil
}

// parseTolerance reads one metric=bound pair: the metric's name and the
// bound as a fraction, NaN for "off".
func parseTolerance(item string) (string, float64, error) {
	b, ok := cutBound(item, "=")
	if !ok || b.metric == "" || b.value == "" {
		return "", 0, fmt.Errorf("tolerance %q: want metric=bound, e.g. ttft_p50=20%%", b.text)
	}
	m, err := findMetric(b.metric, isCompared)
	if err != nil {
		return "", 0, fmt.Errorf("tolerance %q: %w", b.text, err)
	}
	if b.value == "off" {
		return m.Name, math.NaN(), nil
	}
	v, err := parseShare(b.value, true)
	if err != nil {
		return "", 0, fmt.Errorf("tolerance %q: bound %w", b.text, err)
	}
	return m.Name, v, nil
}

// A comparison's verdicts: every checked metric with data within its
// bound; one outside; nothing (or too little) measured to tell.
const (
	VerdictPass   = "pass"
	VerdictFail   = "fail"
	VerdictNoData = "no data"
)

// MetricComparison is one metric's predicted and measured values. A side
// with no data (a KV usage never scraped, a TTFA of a run without answers)
// is NaN here and null in JSON.
type MetricComparison struct {
	Name      string
	Predicted float64
	Measured  float64
	// Error is (predicted − measured) / measured; nil when measured is 0
	// or either side has no data.
	Error *float64
	// Tolerance is the relative bound checked; nil when the metric is not
	// checked.
	Tolerance *float64
	// Bound is the bound the check tested, in full; nil when not checked.
	Bound *Bound
	// Pass is nil when the metric is not checked or has no data.
	Pass *bool
	// Verdict is VerdictPass, VerdictFail or VerdictNoData for a checked
	// metric, "" for one that is not checked.
	Verdict string
	// Interval is the prediction's interval of the metric (nil without
	// one); InInterval whether the measured value lies inside it, which
	// passes a checked metric on that ground (PassedBy "interval") when
	// the tolerance alone would fail it.
	Interval   *Range
	InInterval *bool
	PassedBy   string
}

// Bound is the effective bound of one check, so that a reader can redo
// it: a prediction passes when |predicted − measured| ≤ Absolute =
// Relative × |measured| + Slack × TimeScale, all in the metric's base unit
// (seconds for latencies, a fraction for KV usage).
type Bound struct {
	Relative float64 `json:"relative"`
	// Slack is the metric's absolute slack before stretching.
	Slack float64 `json:"slack"`
	// TimeScale is the factor the slack was stretched by: an emulator's
	// time scale for wall-clock slack, 1 otherwise.
	TimeScale float64 `json:"time_scale"`
	// Absolute is the bound itself; NaN (null) when measured has no data.
	Absolute float64 `json:"absolute"`
}

// metricComparisonJSON is MetricComparison's JSON, with null for no data.
type metricComparisonJSON struct {
	Name      string     `json:"name"`
	Predicted *float64   `json:"predicted"`
	Measured  *float64   `json:"measured"`
	Error     *float64   `json:"error"`
	Tolerance *float64   `json:"tolerance"`
	Bound     *boundJSON `json:"bound,omitempty"`
	Pass      *bool      `json:"pass"`
	Verdict   string     `json:"verdict,omitempty"`
	Interval  *Range     `json:"interval,omitempty"`
	Inside    *bool      `json:"in_interval,omitempty"`
	PassedBy  string     `json:"passed_by,omitempty"`
}

type boundJSON struct {
	Relative  float64  `json:"relative"`
	Slack     float64  `json:"slack"`
	TimeScale float64  `json:"time_scale"`
	Absolute  *float64 `json:"absolute"`
}

// finite is v as a JSON number, nil (null) for NaN or an infinity, which
// JSON cannot hold.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// orNaNPtr is *p, NaN when p is nil.
func orNaNPtr(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes a side with no data as null.
func (mc MetricComparison) MarshalJSON() ([]byte, error) {
	j := metricComparisonJSON{Name: mc.Name, Predicted: finite(mc.Predicted), Measured: finite(mc.Measured),
		Error: mc.Error, Tolerance: mc.Tolerance, Pass: mc.Pass, Verdict: mc.Verdict,
		Interval: mc.Interval, Inside: mc.InInterval, PassedBy: mc.PassedBy}
	if b := mc.Bound; b != nil {
		j.Bound = &boundJSON{Relative: b.Relative, Slack: b.Slack, TimeScale: b.TimeScale, Absolute: finite(b.Absolute)}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads null as no data (NaN).
func (mc *MetricComparison) UnmarshalJSON(data []byte) error {
	var j metricComparisonJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*mc = MetricComparison{Name: j.Name, Predicted: orNaNPtr(j.Predicted), Measured: orNaNPtr(j.Measured),
		Error: j.Error, Tolerance: j.Tolerance, Pass: j.Pass, Verdict: j.Verdict,
		Interval: j.Interval, InInterval: j.Inside, PassedBy: j.PassedBy}
	if b := j.Bound; b != nil {
		mc.Bound = &Bound{Relative: b.Relative, Slack: b.Slack, TimeScale: b.TimeScale, Absolute: orNaNPtr(b.Absolute)}
	}
	return nil
}

// Comparison is a prediction against a measurement, metric by metric.
type Comparison struct {
	Metrics []MetricComparison `json:"metrics"`
	// Verdict is VerdictFail when a checked metric failed, VerdictNoData
	// when too few requests were measured (see RequireRequests) or no
	// checked metric had data on both sides, VerdictPass otherwise.
	Verdict string `json:"verdict"`
	// Pass is Verdict == VerdictPass.
	Pass bool `json:"pass"`
	// Failed names the checked metrics that failed; NoData those checked
	// that had no data on a side.
	Failed []string `json:"failed,omitempty"`
	NoData []string `json:"no_data,omitempty"`
	// Reason says why the verdict is VerdictNoData.
	Reason string `json:"reason,omitempty"`
}

// Checked counts the metrics with a tolerance.
func (c *Comparison) Checked() int {
	n := 0
	for _, m := range c.Metrics {
		if m.Tolerance != nil {
			n++
		}
	}
	return n
}

// RequireRequests makes the verdict VerdictNoData when fewer than min
// requests were compared: quantiles of a handful of requests, or none,
// verify nothing.
func (c *Comparison) RequireRequests(n, min int) {
	if n >= min {
		return
	}
	c.Verdict, c.Pass = VerdictNoData, false
	c.Reason = fmt.Sprintf("%d requests compared (need at least %d)", n, min)
}

// Compare checks predicted against measured with the given tolerances
// (fractions by metric name).
func Compare(predicted, measured *Summary, tol map[string]float64) Comparison {
	return CompareScaled(predicted, measured, tol, 1)
}

// CompareScaled is Compare for a measurement in an emulator's server time
// at the time scale: the latencies' wall-clock slack is stretched by it, as
// the emulator stretches its HTTP and parsing time (a scale at or below 1
// leaves the slack alone). A checked metric with no data on either side
// (NaN) neither passes nor fails; when every checked metric is so, the
// verdict is VerdictNoData.
func CompareScaled(predicted, measured *Summary, tol map[string]float64, timeScale float64) Comparison {
	c := Comparison{}
	withData := 0
	for _, m := range Metrics() {
		p, v := m.Value(predicted), m.Value(measured)
		mc := MetricComparison{Name: m.Name, Predicted: p, Measured: v}
		noData := math.IsNaN(p) || math.IsNaN(v)
		if iv := predicted.Intervals; iv != nil && m.Interval != nil && !noData {
			if r, ok := m.Interval(iv); ok && !math.IsNaN(r[0]) && !math.IsNaN(r[1]) {
				in := r[0] <= v && v <= r[1]
				mc.Interval, mc.InInterval = &r, &in
			}
		}
		if v != 0 && !noData {
			e := (p - v) / math.Abs(v)
			mc.Error = &e
		}
		if t, ok := tol[m.Name]; ok {
			t := t
			b := &Bound{Relative: t, Slack: m.Slack, TimeScale: 1}
			if m.WallSlack && timeScale > 1 {
				b.TimeScale = timeScale
			}
			b.Absolute = t*math.Abs(v) + m.Slack*b.TimeScale
			mc.Tolerance, mc.Bound = &t, b
			withinBound := math.Abs(p-v) <= b.Absolute
			if !withinBound && mc.InInterval != nil && *mc.InInterval {
				mc.PassedBy = "interval"
			}
			switch ok := withinBound || mc.PassedBy != ""; {
			case noData:
				mc.Verdict = VerdictNoData
				c.NoData = append(c.NoData, m.Name)
			case ok:
				mc.Verdict, mc.Pass = VerdictPass, &ok
				withData++
			default:
				mc.Verdict, mc.Pass = VerdictFail, &ok
				withData++
				c.Failed = append(c.Failed, m.Name)
			}
		}
		c.Metrics = append(c.Metrics, mc)
	}
	switch {
	case len(c.Failed) > 0:
		c.Verdict = VerdictFail
	case withData == 0 && len(c.NoData) > 0:
		c.Verdict = VerdictNoData
		c.Reason = "no checked metric was measured on both sides"
	default:
		c.Verdict = VerdictPass
	}
	c.Pass = c.Verdict == VerdictPass
	return c
}
