package analysis

import (
	"fmt"
	"strings"
)

// SLO bounds one statistic of one latency: ttft_p99=2s is TTFT's 99th
// percentile at most 2 seconds. Latencies are computed as the summary
// computes them (completed requests only, a chain of calls as one request).
type SLO struct {
	Metric string  // a latency each result carries: ttft, ttfa, tpot or e2e
	Stat   string  // mean, p50, p90 or p99
	LimitS float64 // the bound in seconds
}

// Name is the SLO's metric, e.g. ttft_p99.
func (s SLO) Name() string { return s.Metric + "_" + s.Stat }

// String is the SLO as ParseSLOs reads it, e.g. ttft_p99=2s.
func (s SLO) String() string { return s.Name() + "=" + formatLatency(s.LimitS) }

// Latency is the latency the SLO bounds; nil for an SLO not made by
// ParseSLOs that names none.
func (s SLO) Latency() *Latency {
	l, _ := findLatency(s.Metric)
	return l
}

// Quantile is the SLO's p in [0, 1], or -1 for the mean.
func (s SLO) Quantile() float64 {
	for _, st := range statistics {
		if st.name == s.Stat {
			return st.quantile
		}
	}
	return -1
}

// Of is the SLO's statistic in a summary's latencies (0 where they have no
// data, as Describe leaves it).
func (s SLO) Of(l Latencies) float64 {
	m, err := findMetric(s.Name(), isSLOMetric)
	if err != nil {
		return 0
	}
	for _, st := range statistics {
		if st.name == m.Stat {
			return st.of(m.Latency.Of(&l))
		}
	}
	return 0
}

// ParseSLOs reads a comma-separated list of metric_stat=duration, e.g.
// ttft_p99=2s,ttfa_p99=30s,e2e_p99=120s,tpot_p99=60ms, the metric in any
// case. Durations are ParseLatency's. Every problem is reported.
func ParseSLOs(spec string) ([]SLO, error) {
	return parseEachOnce(spec, ",", "no SLO given (e.g. ttft_p99=2s,tpot_p99=60ms)", parseSLO)
}

func parseSLO(item string) (SLO, string, error) {
	b, ok := cutBound(item, "=")
	if !ok {
		return SLO{}, "", fmt.Errorf("%q: want metric_stat=duration, e.g. ttft_p99=2s", item)
	}
	m, err := findMetric(strings.ToLower(b.metric), isSLOMetric)
	if err != nil {
		return SLO{}, "", fmt.Errorf("%q: %w", item, err)
	}
	limit, err := positiveLatency(b.value, false)
	if err != nil {
		return SLO{}, "", fmt.Errorf("%q: %w", item, err)
	}
	return SLO{Metric: m.Latency.Name, Stat: m.Stat, LimitS: limit}, m.Name, nil
}

// SLONames lists the metrics an SLO may bound.
func SLONames() []string { return metricNames(isSLOMetric) }

// SLOResult is one SLO checked against a summary: the value the summary
// gives its metric and whether it is within the limit.
type SLOResult struct {
	SLO    string  `json:"slo"`    // as ParseSLOs reads it: ttft_p99=2s
	Metric string  `json:"metric"` // ttft_p99
	LimitS float64 `json:"limit_s"`
	// ValueS is the summary's value; null when it has no data for the
	// metric (a TTFA of a run without answers), which misses the SLO.
	ValueS *float64 `json:"value_s"`
	// IntervalS is the value's interval where the summary has intervals.
	IntervalS *Range `json:"interval_s,omitempty"`
	Met       bool   `json:"met"`
}

// CheckSLOs checks every SLO against s. The verdict rests on the point
// value: an interval says how sure it is, not what it is.
func CheckSLOs(s *Summary, slos []SLO) []SLOResult {
	out := make([]SLOResult, 0, len(slos))
	for _, slo := range slos {
		r := SLOResult{SLO: slo.String(), Metric: slo.Name(), LimitS: slo.LimitS}
		if m, err := findMetric(slo.Name(), isSLOMetric); err == nil {
			v := m.Value(s)
			r.ValueS, r.Met = finite(v), m.Better.Meets(v, slo.LimitS)
			if s.Intervals != nil && m.Interval != nil {
				if iv, ok := m.Interval(s.Intervals); ok {
					r.IntervalS = &iv
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// MissedSLOs is nil when every SLO was met, and otherwise an error naming
// those missed.
func MissedSLOs(rs []SLOResult) error {
	var missed []string
	for _, r := range rs {
		if !r.Met {
			missed = append(missed, r.SLO)
		}
	}
	if len(missed) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d SLOs missed: %s", len(missed), len(rs), strings.Join(missed, ", "))
}
