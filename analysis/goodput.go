package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/workload"
)

// GoodputMetrics are the per-request latencies a goodput SLO may bound.
var GoodputMetrics = []string{"ttft", "ttfa", "tpot", "e2e"}

// GoodputSLO bounds one latency of every request: a request counts towards
// goodput only when each of its latencies is within its bound (vLLM's
// `vllm bench serve --goodput`, DistServe's definition).
type GoodputSLO struct {
	Metric string  // ttft, ttfa, tpot or e2e
	LimitS float64 // seconds
}

// String is the SLO as ParseGoodput reads it, e.g. tpot=50ms.
func (g GoodputSLO) String() string {
	if g.LimitS < 1 {
		return g.Metric + "=" + strconv.FormatFloat(g.LimitS*1000, 'g', -1, 64) + "ms"
	}
	return g.Metric + "=" + strconv.FormatFloat(g.LimitS, 'g', -1, 64) + "s"
}

// ParseGoodput reads per-request SLOs: metric=duration with a unit
// (ttft=2s,tpot=50ms), or vLLM's own metric:milliseconds (ttft:2000
// tpot:50, e2el for e2e), separated by commas or spaces. Every problem is
// reported.
func ParseGoodput(spec string) ([]GoodputSLO, error) {
	var slos []GoodputSLO
	var errs []error
	seen := map[string]bool{}
	for _, item := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
		g, err := parseGoodputSLO(item)
		switch {
		case err != nil:
			errs = append(errs, err)
		case seen[g.Metric]:
			errs = append(errs, fmt.Errorf("%s given twice", g.Metric))
		default:
			seen[g.Metric] = true
			slos = append(slos, g)
		}
	}
	if len(slos) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no goodput SLO given (e.g. ttft=2s,tpot=50ms)"))
	}
	return slos, errors.Join(errs...)
}

func parseGoodputSLO(item string) (GoodputSLO, error) {
	key, value, vllmStyle := strings.Cut(item, ":")
	if !vllmStyle {
		var ok bool
		if key, value, ok = strings.Cut(item, "="); !ok {
			return GoodputSLO{}, fmt.Errorf("%q: want metric=duration (ttft=2s) or vLLM's metric:milliseconds (ttft:2000)", item)
		}
	}
	metric := strings.ToLower(strings.TrimSpace(key))
	if metric == "e2el" {
		metric = "e2e" // vLLM's name for it
	}
	if !slices.Contains(GoodputMetrics, metric) {
		return GoodputSLO{}, fmt.Errorf("%q: unknown metric %q (one of %s)", item, key, strings.Join(GoodputMetrics, ", "))
	}
	limit, err := ParseLatencyLimit(strings.TrimSpace(value), vllmStyle)
	if err != nil {
		return GoodputSLO{}, fmt.Errorf("%q: %w", item, err)
	}
	return GoodputSLO{Metric: metric, LimitS: limit}, nil
}

// ParseLatencyLimit reads a latency bound, 2s, 1.5s or 50ms, as seconds;
// a bare number is milliseconds where bareMillis (vLLM's --goodput
// key:value form) and an error otherwise, where 60 could be either unit.
func ParseLatencyLimit(v string, bareMillis bool) (float64, error) {
	num, scale := v, 1e-3
	switch {
	case strings.HasSuffix(v, "ms"):
		num = strings.TrimSuffix(v, "ms")
	case strings.HasSuffix(v, "s"):
		num, scale = strings.TrimSuffix(v, "s"), 1
	case !bareMillis:
		return 0, fmt.Errorf("duration %q needs a unit: s or ms", v)
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return 0, fmt.Errorf("duration %q must be a positive number of s or ms", v)
	}
	return x * scale, nil
}

// Goodput is how many user requests met every SLO: the completed ones
// whose latencies were all within their bounds, per second of the run and
// as a fraction of the requests sent.
type Goodput struct {
	// SLOs are the bounds, in seconds, by metric.
	SLOs         map[string]float64 `json:"slo_s"`
	Good         int                `json:"good"`
	Requests     int                `json:"requests"`
	Fraction     float64            `json:"fraction"`
	RequestsPerS float64            `json:"requests_per_s"`
}

// ComputeGoodput counts the user requests of results that met every SLO.
// A chain of calls (a follow-up names its predecessor in After) is one
// user request: its TTFT is the first call's, its TTFA and E2E the last
// call's (measured from the chain's start), and each call's TPOT must meet
// the bound; a failed call fails the chain, and a request that never
// answered misses a TTFA bound.
func ComputeGoodput(results []workload.Result, slos []GoodputSLO, durationS float64) *Goodput {
	g := &Goodput{SLOs: map[string]float64{}}
	limit := map[string]float64{}
	for _, s := range slos {
		g.SLOs[s.Metric], limit[s.Metric] = s.LimitS, s.LimitS
	}
	byID := make(map[string]int, len(results))
	for i := range results {
		if id := results[i].ID; id != "" {
			byID[id] = i
		}
	}
	within := func(metric string, v float64) bool {
		l, ok := limit[metric]
		return !ok || v <= l
	}
	for i := range results {
		end := &results[i]
		if end.StartsUserRequest() {
			g.Requests++
		}
		if end.Continued {
			continue // its chain is judged from its last call
		}
		good := end.OK() && within("e2e", end.E2ES) && (!hasKey(limit, "ttfa") || end.AnswerTokens > 0 && within("ttfa", end.TTFAS))
		for call, steps := end, 0; good; steps++ {
			good = call.OK() && (call.OutputTokens() <= 1 || within("tpot", call.TPOTS))
			if call.StartsUserRequest() {
				good = good && within("ttft", call.TTFTS)
				break
			}
			j, ok := byID[call.After]
			if !ok || steps > len(results) { // a broken or circular chain
				good = false
				break
			}
			call = &results[j]
		}
		if good {
			g.Good++
		}
	}
	if g.Requests > 0 {
		g.Fraction = float64(g.Good) / float64(g.Requests)
	}
	if durationS > 0 && !math.IsInf(durationS, 0) {
		g.RequestsPerS = float64(g.Good) / durationS
	}
	return g
}

func hasKey(m map[string]float64, k string) bool {
	_, ok := m[k]
	return ok
}
