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
