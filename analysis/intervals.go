package analysis

import (
	"encoding/json"
	"math"
	"slices"
)

// Intervals are a simulation's figures as ranges rather than points, at
// Confidence: the leaves of IntervalSet mirror the summary's latency_s,
// throughput, kv_usage and preemptions with [lo, hi] pairs, both sources
// of uncertainty together. Traffic is what chance alone made of them over
// Seeds draws of the traffic; Model is the step model's measured error on
// real vLLM runs that widened them, per figure.
type Intervals struct {
	Confidence float64 `json:"confidence"`
	Seeds      int     `json:"seeds"`
	IntervalSet
	// Traffic is nil for one seed.
	Traffic *IntervalSet `json:"traffic,omitempty"`
	// Model is, per figure (ttft, ttfa, tpot, itl, e2e, queue,
	// throughput, kv_usage), the corpus error applied; absent for a figure
	// no corpus measurement bears on.
	Model map[string]ModelBand `json:"model,omitempty"`
}

// ModelBand is the model error a figure's interval took: the corpus
// metric and regime whose residuals gave it, and the factor range its
// predicted value was multiplied by.
type ModelBand struct {
	Metric string `json:"metric"`         // tpot, ttft or throughput
	Regime string `json:"regime"`         // e.g. "concurrency 64-255, decode-heavy"
	Points int    `json:"points"`         // corpus points behind it
	Factor Range  `json:"factor"`         // e^q at the interval's two levels
	Note   string `json:"note,omitempty"` // how it applies, when not directly
}

// IntervalSet is one set of ranges mirroring the summary's figures.
type IntervalSet struct {
	LatencyS   map[string]StatInterval `json:"latency_s"`
	Throughput map[string]Range        `json:"throughput"`
	KVUsage    map[string]Range        `json:"kv_usage"`
	// Preemptions is absent when a run did not know them.
	Preemptions *Range `json:"preemptions,omitempty"`
}

// StatInterval is a latency's interval per statistic.
type StatInterval struct {
	Mean Range `json:"mean"`
	P50  Range `json:"p50"`
	P90  Range `json:"p90"`
	P99  Range `json:"p99"`
}

// Range is an interval [lo, hi]; null in JSON when there is no data (NaN).
type Range [2]float64

// MarshalJSON writes [lo, hi], or null without data.
func (r Range) MarshalJSON() ([]byte, error) {
	if math.IsNaN(r[0]) || math.IsNaN(r[1]) {
		return []byte("null"), nil
	}
	return json.Marshal([2]float64(r))
}

// UnmarshalJSON reads [lo, hi], or null as no data.
func (r *Range) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = Range{math.NaN(), math.NaN()}
		return nil
	}
	var v [2]float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Range(v)
	return nil
}

// PredictionInterval is the range that holds another draw of a quantity
// with probability at least confidence, from n draws of it: the k-th
// smallest and k-th largest with k = ⌊(n+1)(1−c)/2⌋ (at least 1), since a
// new draw falls between them with probability (n+1−2k)/(n+1). With 19
// draws at 90%, that is their minimum and maximum.
func PredictionInterval(values []float64, confidence float64) Range {
	v := slices.Clone(values)
	v = slices.DeleteFunc(v, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
	if len(v) == 0 {
		return Range{math.NaN(), math.NaN()}
	}
	slices.Sort(v)
	// The small addend keeps 100 × (1 − 0.9) / 2 at 5, not 4.999….
	k := max(int(math.Floor(float64(len(v)+1)*(1-confidence)/2+1e-9)), 1)
	k = min(k, (len(v)+1)/2)
	return Range{v[k-1], v[len(v)-k]}
}

// TrafficIntervals are the prediction intervals of the summaries'
// figures over runs of the same deployment on redrawn traffic.
func TrafficIntervals(runs []Summary, confidence float64) *IntervalSet {
	iv := &IntervalSet{LatencyS: map[string]StatInterval{}, Throughput: map[string]Range{}, KVUsage: map[string]Range{}}
	pick := func(f func(*Summary) float64) Range {
		vals := make([]float64, len(runs))
		for i := range runs {
			vals[i] = f(&runs[i])
		}
		return PredictionInterval(vals, confidence)
	}
	for name, get := range LatencyFigures {
		iv.LatencyS[name] = StatInterval{
			Mean: pick(func(s *Summary) float64 { st := get(s); return orNaN(st.Mean, st.NoData) }),
			P50:  pick(func(s *Summary) float64 { st := get(s); return orNaN(st.P50, st.NoData) }),
			P90:  pick(func(s *Summary) float64 { st := get(s); return orNaN(st.P90, st.NoData) }),
			P99:  pick(func(s *Summary) float64 { st := get(s); return orNaN(st.P99, st.NoData) }),
		}
	}
	for name, get := range ThroughputFigures {
		iv.Throughput[name] = pick(get)
	}
	iv.KVUsage["mean"] = pick(func(s *Summary) float64 { return orNaN(s.KVUsage.Mean, s.KVUsage.NoData) })
	iv.KVUsage["peak"] = pick(func(s *Summary) float64 { return orNaN(s.KVUsage.Peak, s.KVUsage.NoData) })
	known := true
	for i := range runs {
		known = known && runs[i].Preemptions != nil
	}
	if known && len(runs) > 0 {
		p := pick(func(s *Summary) float64 { return float64(*s.Preemptions) })
		iv.Preemptions = &p
	}
	return iv
}

// PointIntervals are the zero-width ranges of one summary's figures.
func PointIntervals(s Summary) *IntervalSet { return TrafficIntervals([]Summary{s}, 0.5) }

// LatencyFigures are the summary's latencies by their latency_s key.
var LatencyFigures = map[string]func(*Summary) Stat{
	"ttft": func(s *Summary) Stat { return s.LatencyS.TTFT }, "ttfa": func(s *Summary) Stat { return s.LatencyS.TTFA },
	"tpot": func(s *Summary) Stat { return s.LatencyS.TPOT }, "itl": func(s *Summary) Stat { return s.LatencyS.ITL },
	"e2e": func(s *Summary) Stat { return s.LatencyS.E2E }, "queue": func(s *Summary) Stat { return s.LatencyS.Queue },
}

// ThroughputFigures are the throughputs intervals are given for.
var ThroughputFigures = map[string]func(*Summary) float64{
	"requests_per_s":      func(s *Summary) float64 { return s.Throughput.RequestsPerS },
	"output_tokens_per_s": func(s *Summary) float64 { return s.Throughput.OutputTokensPerS },
}
