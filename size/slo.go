package size

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
)

// Metrics an SLO may bound: the latencies of the summary JSON.
var Metrics = []string{"ttft", "ttfa", "tpot", "e2e"}

// Stats an SLO may bound.
var Stats = []string{"mean", "p50", "p90", "p99"}

// SLO bounds one statistic of one latency: ttft_p99=2s is TTFT's 99th
// percentile at most 2 seconds. Latencies are computed as the summary
// computes them (completed requests only, a chain of calls as one request).
type SLO struct {
	Metric string  // ttft, ttfa, tpot or e2e
	Stat   string  // mean, p50, p90 or p99
	LimitS float64 // the bound in seconds
}

// Name is the SLO's key, e.g. ttft_p99.
func (s SLO) Name() string { return s.Metric + "_" + s.Stat }

// String is the SLO as ParseSLOs reads it, e.g. ttft_p99=2s.
func (s SLO) String() string {
	if s.LimitS < 1 {
		return s.Name() + "=" + strconv.FormatFloat(s.LimitS*1000, 'g', -1, 64) + "ms"
	}
	return s.Name() + "=" + strconv.FormatFloat(s.LimitS, 'g', -1, 64) + "s"
}

// quantile is the SLO's p in [0, 1], or -1 for the mean.
func (s SLO) quantile() float64 {
	switch s.Stat {
	case "p50":
		return 0.5
	case "p90":
		return 0.9
	case "p99":
		return 0.99
	}
	return -1
}

// Of is the SLO's statistic in a summary's latencies.
func (s SLO) Of(l analysis.Latencies) float64 {
	var st analysis.Stat
	switch s.Metric {
	case "ttft":
		st = l.TTFT
	case "ttfa":
		st = l.TTFA
	case "tpot":
		st = l.TPOT
	case "e2e":
		st = l.E2E
	}
	switch s.Stat {
	case "mean":
		return st.Mean
	case "p50":
		return st.P50
	case "p90":
		return st.P90
	}
	return st.P99
}

// ParseSLOs reads a comma-separated list of metric_stat=duration, e.g.
// ttft_p99=2s,ttfa_p99=30s,e2e_p99=120s,tpot_p99=60ms. Durations take s or
// ms. Every problem is reported.
func ParseSLOs(spec string) ([]SLO, error) {
	var slos []SLO
	var errs []error
	seen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		s, err := parseSLO(item)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[s.Name()] {
			errs = append(errs, fmt.Errorf("%s given twice", s.Name()))
			continue
		}
		seen[s.Name()] = true
		slos = append(slos, s)
	}
	if len(slos) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no SLO given (e.g. ttft_p99=2s,tpot_p99=60ms)"))
	}
	return slos, errors.Join(errs...)
}

func parseSLO(item string) (SLO, error) {
	key, value, ok := strings.Cut(item, "=")
	if !ok {
		return SLO{}, fmt.Errorf("%q: want metric_stat=duration, e.g. ttft_p99=2s", item)
	}
	metric, stat, _ := strings.Cut(strings.ToLower(strings.TrimSpace(key)), "_")
	if !slices.Contains(Metrics, metric) || !slices.Contains(Stats, stat) {
		return SLO{}, fmt.Errorf("%q: unknown SLO %q (metrics %s; stats %s)", item, key,
			strings.Join(Metrics, ", "), strings.Join(Stats, ", "))
	}
	limit, err := analysis.ParseLatencyLimit(strings.TrimSpace(value), false)
	if err != nil {
		return SLO{}, fmt.Errorf("%q: %w", item, err)
	}
	return SLO{Metric: metric, Stat: stat, LimitS: limit}, nil
}
