package fidelity

import (
	"maps"
	"slices"
	"strings"
)

// Exclusion is one rule that leaves corpus records, or one metric of the
// replayed points, out of the scoreboard, with how many it leaves out.
// Every record read and every metric of every replayed point is either
// scored or counted under exactly one rule, so a point can only leave
// the scoreboard by a rule a reader can judge.
type Exclusion struct {
	// Metric is "record" when the whole record is not replayed, else the
	// metric left out (tpot, ttft, throughput).
	Metric string `json:"metric"`
	Rule   string `json:"rule"`   // a stable key (the Rule* constants)
	Reason string `json:"reason"` // the rule and what it rests on
	Count  int    `json:"count"`
}

// MetricRecord is Exclusion.Metric for a record not replayed at all.
const MetricRecord = "record"

// The rules that leave a record unreplayed, with the prefix of the skip
// message config gives (deploy.go). None looks at a measured figure: each
// is something the simulator does not model.
const (
	RuleNoModel      = "no-model-profile"
	RuleNoGPU        = "no-gpu-profile"
	RuleQuantization = "quantization-not-modelled"
	RuleDataParallel = "data-parallel"
	RuleNoLoad       = "no-load"
	RuleConfig       = "config"
	RuleCapacity     = "capacity"

	skipNoModel      = "no model profile for "
	skipNoGPU        = "no GPU profile for "
	skipQuantization = "quantization "
	skipDataParallel = "data parallel"
	skipNoLoad       = "no load"
	skipConfig       = "config: "
	skipCapacity     = "the source ran it; thinkcap's "
)

// The rules that leave one metric of a replayed point unscored. The first
// two leave out a figure the source measured (Point.exclusion says when);
// the others a figure there is nothing to compare with.
const (
	// RuleBelowFloor rests on a physical floor: no GPU computes a
	// prefill faster than its FLOPs at the tensor cores' peak.
	RuleBelowFloor = "below-prefill-floor"
	// RuleTestRunCached rests on what the source's client ran: vLLM's
	// benchmark clients send input_requests[0] once as "an initial single
	// prompt test run" before the measured run
	// (vllm/benchmarks/serve.py, benchmarks/benchmark_serving.py).
	RuleTestRunCached = "test-run-cached"
	// RuleNotMeasured: the source gives no figure of the metric.
	RuleNotMeasured = "not-measured"
	// RuleUnsaturated: an open loop at a rate the server keeps up with
	// has the offered rate's output throughput whatever the model says.
	RuleUnsaturated = "open-loop-throughput"
	// RuleNoStatistic: the source gives only a statistic the replay does
	// not compare (a p90), or the replay has none of it.
	RuleNoStatistic = "no-comparable-statistic"
)

// ruleReasons say what each rule rests on, as the scoreboard prints it.
var ruleReasons = map[string]string{
	RuleNoModel:       "no profile for the model: an architecture thinkcap does not model (sparse or hybrid linear attention, MXFP8 weights) or a checkpoint name not resolved to its base",
	RuleNoGPU:         "no profile for the GPU",
	RuleQuantization:  "a weight format thinkcap does not model",
	RuleDataParallel:  "data parallel: one replay is one engine, the source's figures are over all of them",
	RuleNoLoad:        "neither a concurrency nor a request rate",
	RuleConfig:        "the deployment does not resolve to a simulator configuration",
	RuleCapacity:      "the source ran it, but thinkcap's memory model leaves its requests no KV cache",
	RuleBelowFloor:    "TTFT below the prefill's compute floor (2 × active parameters × prompt tokens at the tensor cores' peak; (N+1)/2 floors for a burst of N): not computed, the prompt came from the prefix cache",
	RuleTestRunCached: "one prompt, which the client had sent as its initial test run (vllm/benchmarks/serve.py), prefix caching on: served from the cache",
	RuleNotMeasured:   "the source gives no figure of the metric",
	RuleUnsaturated:   "output throughput of an open loop below saturation: the offered rate's, whatever the model says",
	RuleNoStatistic:   "the source gives only a statistic the replay does not compare",
}

// skipRule is the rule of a record's skip message (config's).
func skipRule(skip string) string {
	for _, r := range []struct{ prefix, rule string }{
		{skipNoModel, RuleNoModel}, {skipNoGPU, RuleNoGPU}, {skipQuantization, RuleQuantization},
		{skipDataParallel, RuleDataParallel}, {skipNoLoad, RuleNoLoad}, {skipConfig, RuleConfig},
		{skipCapacity, RuleCapacity},
	} {
		if strings.HasPrefix(skip, r.prefix) {
			return r.rule
		}
	}
	return RuleConfig
}

// unscored is the rule that leaves a metric of a replayed point out of the
// scoreboard, "" when it is scored.
func (p *Point) unscored(metric string) string {
	if _, ok := p.Pairs[metric]; ok {
		return ""
	}
	if rule, _ := p.exclusion(metric); rule != "" {
		return rule
	}
	m, r := &p.Record.Measured, p.Record
	switch metric {
	case MetricTPOT:
		if !given(m.TPOT) && !given(m.ITL) {
			return RuleNotMeasured
		}
	case MetricTTFT:
		if !given(m.TTFT) {
			return RuleNotMeasured
		}
	case MetricThroughput:
		if m.OutputThroughput <= 0 {
			return RuleNotMeasured
		}
		if !r.ClosedLoop() && r.RequestRate >= 0 {
			return RuleUnsaturated
		}
	}
	return RuleNoStatistic
}

// exclusionsOf counts every record not replayed and every metric of a
// replayed point not scored, by rule: records first, then per metric,
// each by count.
func exclusionsOf(points []*Point) []Exclusion {
	type key struct{ metric, rule string }
	n := map[key]int{}
	for _, p := range points {
		if p.Skip != "" {
			n[key{MetricRecord, skipRule(p.Skip)}]++
			continue
		}
		for _, m := range Metrics3 {
			if rule := p.unscored(m); rule != "" {
				n[key{m, rule}]++
			}
		}
	}
	order := append([]string{MetricRecord}, Metrics3...)
	keys := slices.SortedFunc(maps.Keys(n), func(a, b key) int {
		if d := slices.Index(order, a.metric) - slices.Index(order, b.metric); d != 0 {
			return d
		}
		if d := n[b] - n[a]; d != 0 {
			return d
		}
		return strings.Compare(a.rule, b.rule)
	})
	out := make([]Exclusion, len(keys))
	for i, k := range keys {
		out[i] = Exclusion{Metric: k.metric, Rule: k.rule, Reason: ruleReasons[k.rule], Count: n[k]}
	}
	return out
}
