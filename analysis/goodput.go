package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/thinkcap/thinkcap/workload"
)

// GoodputSLO bounds one latency of every request: a request counts towards
// goodput only when each of its latencies is within its bound (vLLM's
// `vllm bench serve --goodput`, DistServe's definition).
type GoodputSLO struct {
	Metric string  // a latency each result carries: ttft, ttfa, tpot or e2e
	LimitS float64 // seconds
}

// String is the SLO as ParseGoodput reads it, e.g. tpot=50ms.
func (g GoodputSLO) String() string { return g.Metric + "=" + formatLatency(g.LimitS) }

// ParseGoodput reads per-request SLOs: metric=duration with a unit
// (ttft=2s,tpot=50ms), or vLLM's own metric:milliseconds (ttft:2000
// tpot:50, e2el for e2e), separated by commas or spaces. Every problem is
// reported.
func ParseGoodput(spec string) ([]GoodputSLO, error) {
	return parseEachOnce(spec, ", ", "no goodput SLO given (e.g. ttft=2s,tpot=50ms)", parseGoodputSLO)
}

func parseGoodputSLO(item string) (GoodputSLO, string, error) {
	b, ok := cutBound(item, ":", "=")
	if !ok {
		return GoodputSLO{}, "", fmt.Errorf("%q: want metric=duration (ttft=2s) or vLLM's metric:milliseconds (ttft:2000)", item)
	}
	l, err := findLatency(strings.ToLower(b.metric))
	if err != nil {
		return GoodputSLO{}, "", fmt.Errorf("%q: %w", item, err)
	}
	limit, err := positiveLatency(b.value, b.op == ":")
	if err != nil {
		return GoodputSLO{}, "", fmt.Errorf("%q: %w", item, err)
	}
	return GoodputSLO{Metric: l.Name, LimitS: limit}, l.Name, nil
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
// user request, each latency read from the calls that carry it
// (Latency.From): TTFT the first call's, TTFA and E2E the last call's
// (measured from the chain's start), and each call's TPOT must meet the
// bound; a failed call fails the chain, and a request that never answered
// misses a TTFA bound.
func ComputeGoodput(results []workload.Result, slos []GoodputSLO, durationS float64) *Goodput {
	g := &Goodput{SLOs: map[string]float64{}}
	var bounds []latencyBound
	for _, s := range slos {
		g.SLOs[s.Metric] = s.LimitS
		if l, err := findLatency(s.Metric); err == nil {
			bounds = append(bounds, latencyBound{l, s.LimitS})
		}
	}
	byID := make(map[string]int, len(results))
	for i := range results {
		if id := results[i].ID; id != "" {
			byID[id] = i
		}
	}
	for i := range results {
		end := &results[i]
		if end.StartsUserRequest() {
			g.Requests++
		}
		if end.Continued {
			continue // its chain is judged from its last call
		}
		good := end.OK()
		for call, steps := end, 0; good; steps++ {
			good = call.OK() && meetsAll(call, bounds)
			if !good || call.StartsUserRequest() {
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

// latencyBound is a goodput SLO resolved to its latency.
type latencyBound struct {
	latency *Latency
	limitS  float64
}

// meetsAll reports whether call is within every bound on the latencies it
// carries; NaN never is.
func meetsAll(call *workload.Result, bounds []latencyBound) bool {
	for _, b := range bounds {
		if !b.latency.From.carries(call) {
			continue
		}
		if v, applies := b.latency.Request(call); applies && !(v <= b.limitS) {
			return false
		}
	}
	return true
}
