package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/thinkcap/thinkcap/workload"
)

// The metric registry: every number a bound may name, in one table that
// the four syntaxes resolve through (size and simulate --slo, loadtest
// --threshold, loadtest --goodput, verify --tolerance). A metric added
// here is known to each syntax that takes its kind, and listed in each
// one's unknown-metric error.

// Direction is which way a metric gets better: a bound on a latency is a
// ceiling, one on a throughput a floor.
type Direction int8

const (
	LowerIsBetter Direction = iota
	HigherIsBetter
)

// Meets reports whether v is within limit in this direction; NaN (no
// data) never is.
func (d Direction) Meets(v, limit float64) bool {
	if d == HigherIsBetter {
		return v >= limit
	}
	return v <= limit
}

// ChainCall is which calls of a chain (a follow-up names its predecessor
// in workload.Request.After) carry a latency for their user request, as
// Summarize counts it: TTFT from the chain's first call, TTFA and E2E from
// its last (measured from the chain's start), TPOT from every call.
type ChainCall int8

const (
	FirstCall ChainCall = iota
	LastCall
	EveryCall
)

// carries reports whether r is a call that carries the latency.
func (c ChainCall) carries(r *workload.Result) bool {
	switch c {
	case FirstCall:
		return r.StartsUserRequest()
	case LastCall:
		return !r.Continued
	}
	return true
}

// Latency is one latency the summary describes by a Stat (ttft, tpot, ...).
type Latency struct {
	Name string
	// Aliases are other spellings a bound may use: vLLM's e2el.
	Aliases []string
	Label   string // for tables: "TTFT"
	// Slack is verify's absolute slack for it, in seconds (Metric.Slack).
	Slack float64
	Of    func(*Latencies) Stat
	// Request is one call's value, and whether the latency applies to it
	// at all (a one-token reply has no TPOT); nil for a latency no result
	// record carries (the engine's TTFT, ITL's gaps), which no per-request
	// bound may name. A request that never answered has an infinite TTFA:
	// it misses any bound, and the summary does not count it.
	Request func(*workload.Result) (float64, bool)
	From    ChainCall
}

// Counted is a completed request's value as Summarize counts it, and
// whether it counts at all: r carries the latency, it applies, and it is
// finite.
func (l *Latency) Counted(r *workload.Result) (float64, bool) {
	if l == nil || l.Request == nil || !l.From.carries(r) {
		return 0, false
	}
	v, ok := l.Request(r)
	return v, ok && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// perRequest reports whether a per-request bound (goodput, an SLO) may
// name the latency.
func (l *Latency) perRequest() bool { return l.Request != nil }

func (l *Latency) answersTo(name string) bool {
	return l.Name == name || slices.Contains(l.Aliases, name)
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

// latencies are the latencies, in verify's table order.
var latencies = []Latency{
	{Name: "ttft", Label: "TTFT", Slack: requestSlackS, From: FirstCall,
		Of:      func(l *Latencies) Stat { return l.TTFT },
		Request: func(r *workload.Result) (float64, bool) { return r.TTFTS, true }},
	{Name: "ttft_engine", Label: "TTFT (engine)", Slack: requestSlackS,
		Of: func(l *Latencies) Stat { return l.TTFTEngine }},
	{Name: "ttfa", Label: "TTFA", Slack: requestSlackS, From: LastCall,
		Of: func(l *Latencies) Stat { return l.TTFA },
		Request: func(r *workload.Result) (float64, bool) {
			if r.AnswerTokens == 0 {
				return math.Inf(1), true
			}
			return r.TTFAS, true
		}},
	{Name: "tpot", Label: "TPOT", Slack: tokenSlackS, From: EveryCall,
		Of:      func(l *Latencies) Stat { return l.TPOT },
		Request: func(r *workload.Result) (float64, bool) { return r.TPOTS, r.OutputTokens() > 1 }},
	{Name: "itl", Label: "ITL", Slack: tokenSlackS,
		Of: func(l *Latencies) Stat { return l.ITL }},
	{Name: "e2e", Aliases: []string{"e2el"}, Label: "E2E", Slack: requestSlackS, From: LastCall,
		Of:      func(l *Latencies) Stat { return l.E2E },
		Request: func(r *workload.Result) (float64, bool) { return r.E2ES, true }},
}

// statistic is one of the four numbers of a Stat.
type statistic struct {
	name string
	// quantile is p in [0, 1], or -1 for the mean.
	quantile float64
	of       func(Stat) float64
	interval func(StatInterval) Range
}

var statistics = []statistic{
	{"mean", -1, func(s Stat) float64 { return s.Mean }, func(i StatInterval) Range { return i.Mean }},
	{"p50", 0.5, func(s Stat) float64 { return s.P50 }, func(i StatInterval) Range { return i.P50 }},
	{"p90", 0.9, func(s Stat) float64 { return s.P90 }, func(i StatInterval) Range { return i.P90 }},
	{"p99", 0.99, func(s Stat) float64 { return s.P99 }, func(i StatInterval) Range { return i.P99 }},
}

// Metric is one number of a Summary that a bound may name: its name
// (ttft_p99, kv_usage_mean, ...), how to read it, how it prints, which way
// it improves, and for verify the absolute difference that is noise: a
// prediction passes when |predicted − measured| ≤ tolerance × |measured| +
// Slack.
type Metric struct {
	Name string
	// Aliases are other spellings a bound may use (e2el_p99).
	Aliases []string
	Label   string // for tables: "TTFT p99"
	Unit    string // "ms" (held in seconds), "%" (held as a fraction), "req/s", "tok/s", "" (a count)
	Better  Direction
	Slack   float64
	// WallSlack marks a slack of wall-clock time (the API server's, the
	// network's), which an emulator running at a time scale stretches.
	WallSlack bool
	// Value is the metric in s; NaN when s has no data for it.
	Value func(*Summary) float64
	// Interval is the metric's leaf in a prediction's intervals; nil for a
	// metric intervals do not cover.
	Interval func(*Intervals) (Range, bool)
	// Compared marks the metrics verify compares and --tolerance may
	// name; the others (failure_rate, goodput_*) only a threshold.
	Compared bool
	// Latency and Stat name a latency's statistic (ttft_p99); nil and ""
	// for any other metric.
	Latency *Latency
	Stat    string
}

func (m *Metric) answersTo(name string) bool {
	return m.Name == name || slices.Contains(m.Aliases, name)
}

// The metrics verify does not compare: failed requests over all measured
// requests (rejected ones included), a fraction; and with --goodput, the
// fraction of user requests that met every per-request SLO and their rate.
const (
	MetricFailureRate     = "failure_rate"
	MetricGoodputFraction = "goodput_fraction"
	MetricGoodputRequests = "goodput_requests"
)

// registry is every metric: verify's, in its table order, then the others.
var registry = newRegistry()

func newRegistry() []Metric {
	var ms []Metric
	add := func(m Metric) *Metric {
		m.WallSlack = m.Unit == "ms"
		ms = append(ms, m)
		return &ms[len(ms)-1]
	}
	compared := func(name, label, unit string, better Direction, slack float64, v func(*Summary) float64) *Metric {
		return add(Metric{Name: name, Label: label, Unit: unit, Better: better, Slack: slack, Value: v, Compared: true})
	}
	compared("throughput_requests", "requests/s", "req/s", HigherIsBetter, 0, func(s *Summary) float64 { return s.Throughput.RequestsPerS }).
		Interval = func(iv *Intervals) (Range, bool) { r, ok := iv.Throughput["requests_per_s"]; return r, ok }
	compared("throughput_tokens", "output tok/s", "tok/s", HigherIsBetter, 0, func(s *Summary) float64 { return s.Throughput.OutputTokensPerS }).
		Interval = func(iv *Intervals) (Range, bool) { r, ok := iv.Throughput["output_tokens_per_s"]; return r, ok }
	for i := range latencies {
		l := &latencies[i]
		for _, st := range statistics {
			m := compared(l.Name+"_"+st.name, l.Label+" "+st.name, "ms", LowerIsBetter, l.Slack, func(s *Summary) float64 {
				v := l.Of(&s.LatencyS)
				return orNaN(st.of(v), v.NoData)
			})
			m.Latency, m.Stat = l, st.name
			for _, a := range l.Aliases {
				m.Aliases = append(m.Aliases, a+"_"+st.name)
			}
			m.Interval = func(iv *Intervals) (Range, bool) {
				si, ok := iv.LatencyS[l.Name]
				return st.interval(si), ok
			}
		}
	}
	compared("kv_usage_mean", "KV usage mean", "%", LowerIsBetter, 0.01, func(s *Summary) float64 { return orNaN(s.KVUsage.Mean, s.KVUsage.NoData) }).
		Interval = func(iv *Intervals) (Range, bool) { r, ok := iv.KVUsage["mean"]; return r, ok }
	compared("kv_usage_peak", "KV usage peak", "%", LowerIsBetter, 0.01, func(s *Summary) float64 { return orNaN(s.KVUsage.Peak, s.KVUsage.NoData) }).
		Interval = func(iv *Intervals) (Range, bool) { r, ok := iv.KVUsage["peak"]; return r, ok }
	compared("running_peak", "running peak", "", LowerIsBetter, 1, func(s *Summary) float64 { return orNaN(float64(s.Running.Peak), s.Running.NoData) })
	compared("waiting_peak", "waiting peak", "", LowerIsBetter, 1, func(s *Summary) float64 { return orNaN(float64(s.Waiting.Peak), s.Waiting.NoData) })
	compared("preemptions", "preemptions", "", LowerIsBetter, 2, func(s *Summary) float64 { return orNaNPtrInt(s.Preemptions) }).
		Interval = func(iv *Intervals) (Range, bool) {
		if iv.Preemptions == nil {
			return Range{}, false
		}
		return *iv.Preemptions, true
	}
	// vLLM's prefix-cache hits over queries, in tokens: shown where either
	// side knows it (a simulation of prefixes or sessions, a scraped
	// server), checked only when a tolerance is asked for.
	compared("prefix_cache_hit_rate", "prefix cache hit rate", "%", HigherIsBetter, 0.01, func(s *Summary) float64 { return orNaNPtr(s.PrefixCacheHitRate) })

	add(Metric{Name: MetricFailureRate, Label: "failure rate", Unit: "%", Better: LowerIsBetter, Value: failureRate})
	add(Metric{Name: MetricGoodputFraction, Label: "goodput fraction", Unit: "%", Better: HigherIsBetter, Value: func(s *Summary) float64 {
		if s.Goodput == nil || s.Goodput.Requests == 0 {
			return math.NaN()
		}
		return s.Goodput.Fraction
	}})
	add(Metric{Name: MetricGoodputRequests, Label: "goodput", Unit: "req/s", Better: HigherIsBetter, Value: func(s *Summary) float64 {
		if s.Goodput == nil || s.Goodput.Requests == 0 {
			return math.NaN()
		}
		return s.Goodput.RequestsPerS
	}})
	return ms
}

// Metrics lists every metric verify compares, in table order.
func Metrics() []Metric {
	return selectMetrics(isCompared)
}

// Kinds of metric the syntaxes take.
var (
	anyMetric  = func(*Metric) bool { return true }
	isCompared = func(m *Metric) bool { return m.Compared }
	// An SLO bounds a statistic of a latency each result carries, so that
	// `size` can judge it request by request as a run goes.
	isSLOMetric = func(m *Metric) bool { return m.Latency != nil && m.Latency.perRequest() }
)

func selectMetrics(fits func(*Metric) bool) []Metric {
	var out []Metric
	for i := range registry {
		if fits(&registry[i]) {
			out = append(out, registry[i])
		}
	}
	return out
}

func metricNames(fits func(*Metric) bool) []string {
	var names []string
	for i := range registry {
		if fits(&registry[i]) {
			names = append(names, registry[i].Name)
		}
	}
	return names
}

// LookupMetric finds a metric by its name or an alias.
func LookupMetric(name string) (*Metric, bool) {
	m, err := findMetric(name, anyMetric)
	return m, err == nil
}

// findMetric finds a metric of the kind fits by its name or an alias; an
// unknown name's error lists the names of that kind.
func findMetric(name string, fits func(*Metric) bool) (*Metric, error) {
	for i := range registry {
		if m := &registry[i]; fits(m) && m.answersTo(name) {
			return m, nil
		}
	}
	return nil, &UnknownMetricError{Name: name, Valid: metricNames(fits)}
}

// findLatency finds a latency a per-request bound may name.
func findLatency(name string) (*Latency, error) {
	var valid []string
	for i := range latencies {
		l := &latencies[i]
		if !l.perRequest() {
			continue
		}
		if l.answersTo(name) {
			return l, nil
		}
		valid = append(valid, l.Name)
	}
	return nil, &UnknownMetricError{Name: name, Valid: valid}
}

// UnknownMetricError is a bound naming a metric that its syntax does not
// take; it lists the names that it does.
type UnknownMetricError struct {
	Name  string
	Valid []string
}

func (e *UnknownMetricError) Error() string {
	return fmt.Sprintf("unknown metric %q (valid: %s)", e.Name, strings.Join(e.Valid, ", "))
}

// failureRate is the summary's failed requests over its total; NaN when
// the run measured no request.
func failureRate(s *Summary) float64 {
	if s.Requests.Total == 0 {
		return math.NaN()
	}
	return float64(s.Requests.Failed) / float64(s.Requests.Total)
}

// orNaNPtrInt is *p, NaN when p is nil.
func orNaNPtrInt(p *int64) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}
