package loadtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// This file is --save-result: the run written as `vllm bench serve
// --save-result` writes its result JSON (vllm/benchmarks/serve.py), so that
// the dashboards and scripts people keep for vLLM's client read a
// thinkcap load test unchanged. Keys, order and units are vLLM's
// (loadtest/testdata/vllm-bench-serve-result.PROVENANCE.md lists them):
// the header, the --metadata keys, the traffic, the counts and throughputs,
// then mean, median, std and the chosen percentiles of TTFT, TPOT, ITL and
// E2E latency in milliseconds. Latencies are measured from when each
// request was sent, as vLLM's client measures them.
//
// Simplified: max_output_tokens_per_s spreads each request's tokens evenly
// between its first and last token (vLLM counts each token's arrival; a
// load test keeps no per-token times); ITL's median, std and percentiles
// come from the run's gap histogram (to 1/64 of the value; its mean is
// exact); the per-request arrays of --save-detailed are not written
// (prompt and generated text are not kept).

// DefaultResultPercentiles is vLLM's --metric-percentiles default.
var DefaultResultPercentiles = []float64{99}

// resultMetrics are the latencies written, in vLLM's order (its default
// --percentile-metrics ttft,tpot,itl, plus e2el).
var resultMetrics = []string{"ttft", "tpot", "itl", "e2el"}

// ParseMetadata reads --metadata KEY=VALUE items as vLLM does: split at the
// first "=", both sides trimmed, the value a string.
func ParseMetadata(items []string) ([][2]string, error) {
	var out [][2]string
	for _, item := range items {
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, inputerr.Fieldf("Metadata", "%q: want KEY=VALUE", item)
		}
		out = append(out, [2]string{k, strings.TrimSpace(v)})
	}
	return out, nil
}

// orderedJSON is a JSON object written in the order its keys were set; a
// key set again keeps its first place and takes the new value (vLLM's
// dict update, where the benchmark's results overwrite --metadata).
type orderedJSON struct {
	keys []string
	vals map[string]any
}

func (o *orderedJSON) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// marshal is v as JSON without HTML escaping (Python's json does none).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// MarshalJSON writes the object as Python's json.dump does by default: ", "
// between items and ": " after keys, on one line.
func (o *orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		kb, _ := marshal(k)
		vb, err := marshal(o.vals[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		b.Write(kb)
		b.WriteString(": ")
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// vllmResult builds the result object of a finished run.
func vllmResult(o *Options, out *loadgen.Outcome, gaps *loadgen.GapHistogram, s *analysis.Summary, now time.Time) (*orderedJSON, error) {
	meta := o.Metadata
	backend := "openai-chat"
	if o.Endpoint == "completions" {
		backend = "openai"
	}
	r := &orderedJSON{}
	r.set("date", now.Format("20060102-150405"))
	r.set("endpoint_type", backend)
	r.set("backend", backend)
	r.set("label", nil)
	r.set("model_id", o.Model)
	r.set("tokenizer_id", o.Model)
	r.set("num_prompts", len(o.Requests))
	for _, kv := range meta {
		r.set(kv[0], kv[1])
	}
	rate, burstiness := offeredRate(o.Requests)
	switch {
	case o.Concurrency > 0 || math.IsInf(rate, 1):
		r.set("request_rate", "inf")
	default:
		r.set("request_rate", rate)
	}
	r.set("burstiness", burstiness)
	switch {
	case o.Concurrency > 0:
		r.set("max_concurrency", o.Concurrency)
	case o.MaxInFlight > 0:
		r.set("max_concurrency", o.MaxInFlight)
	default:
		r.set("max_concurrency", nil)
	}

	duration := out.End.Sub(out.Start).Seconds()
	var completed, failed int
	var inTok, outTok int64
	var ttft, tpot, e2e []float64
	for i := range out.FromSent {
		res := &out.FromSent[i]
		if !res.OK() {
			failed++
			continue
		}
		completed++
		inTok += int64(res.PromptTokens)
		n := res.OutputTokens()
		outTok += int64(n)
		ttft = append(ttft, res.TTFTS)
		e2e = append(e2e, res.E2ES)
		if n > 1 {
			tpot = append(tpot, res.TPOTS)
		} else {
			tpot = append(tpot, 0) // vLLM's tpot for a single token
		}
	}
	per := func(x float64) float64 {
		if duration > 0 {
			return x / duration
		}
		return 0
	}
	r.set("duration", duration)
	r.set("completed", completed)
	r.set("failed", failed)
	r.set("total_input_tokens", inTok)
	r.set("total_output_tokens", outTok)
	r.set("request_throughput", per(float64(completed)))
	if s.Goodput != nil {
		r.set("request_goodput", s.Goodput.RequestsPerS)
	} else {
		r.set("request_goodput", nil)
	}
	r.set("output_throughput", per(float64(outTok)))
	r.set("total_token_throughput", per(float64(inTok+outTok)))
	peakTokens, peakConcurrent := peaks(out.FromSent)
	r.set("max_output_tokens_per_s", peakTokens)
	r.set("max_concurrent_requests", peakConcurrent)
	r.set("rtfx", 0.0)

	ps := o.Percentiles
	if len(ps) == 0 {
		ps = DefaultResultPercentiles
	}
	for _, m := range resultMetrics {
		var mean, median, std float64
		var quantile func(p float64) float64
		if m == "itl" {
			mean, median, std, quantile = gaps.Mean(), gaps.Quantile(0.5), gaps.Std(), gaps.Quantile
		} else {
			v := map[string][]float64{"ttft": ttft, "tpot": tpot, "e2el": e2e}[m]
			slices.Sort(v)
			mean, median, std = meanStd(v)
			quantile = func(p float64) float64 {
				if len(v) == 0 {
					return 0
				}
				return analysis.Quantile(v, p)
			}
		}
		r.set("mean_"+m+"_ms", 1000*mean)
		r.set("median_"+m+"_ms", 1000*median)
		r.set("std_"+m+"_ms", 1000*std)
		for _, p := range ps {
			r.set("p"+strconv.FormatFloat(p, 'f', -1, 64)+"_"+m+"_ms", 1000*quantile(p/100))
		}
	}
	return r, nil
}

// meanStd is the mean, median and population standard deviation of
// sorted values (zeros when empty, as vLLM writes an empty run).
func meanStd(sorted []float64) (mean, median, std float64) {
	if len(sorted) == 0 {
		return 0, 0, 0
	}
	for _, x := range sorted {
		mean += x / float64(len(sorted))
	}
	var ss float64
	for _, x := range sorted {
		ss += (x - mean) * (x - mean)
	}
	return mean, analysis.Quantile(sorted, 0.5), math.Sqrt(ss / float64(len(sorted)))
}

// offeredRate is the schedule's mean request rate and its burstiness as
// vLLM's gamma arrivals define it (1/CV² of the gaps: 1 for Poisson); the
// rate is +Inf when every request is due at once, the burstiness nil when
// the gaps do not vary (vLLM has no constant-rate mode).
func offeredRate(reqs []workload.Request) (float64, any) {
	var gaps []float64
	for i := 1; i < len(reqs); i++ {
		if reqs[i].After == "" && reqs[i-1].After == "" {
			gaps = append(gaps, reqs[i].ArrivalS-reqs[i-1].ArrivalS)
		}
	}
	if len(gaps) == 0 {
		return math.Inf(1), nil
	}
	var mean, ss float64
	for _, g := range gaps {
		mean += g / float64(len(gaps))
	}
	if !(mean > 0) {
		return math.Inf(1), nil
	}
	for _, g := range gaps {
		ss += (g - mean) * (g - mean)
	}
	cv2 := ss / float64(len(gaps)) / (mean * mean)
	if cv2 < 1e-9 {
		return 1 / mean, nil
	}
	return 1 / mean, 1 / cv2
}

// buckets are a run's completed requests in one-second buckets from the
// first send: output tokens (each request's spread evenly from its first
// to its last token) and requests in flight (a request counts in every
// bucket from its send to its end), as vLLM's client counts them for
// max_output_tokens_per_s and max_concurrent_requests.
type buckets struct {
	first      float64 // the first send, seconds from the run's start
	tokens     []float64
	concurrent []int
}

func tokenBuckets(results []workload.Result) buckets {
	first := math.Inf(1)
	last := 0.0
	for i := range results {
		if r := &results[i]; r.OK() {
			first = min(first, r.SentS)
			last = max(last, r.SentS+r.E2ES)
		}
	}
	if math.IsInf(first, 1) {
		return buckets{}
	}
	n := int(last-first) + 1
	b := buckets{first: first, tokens: make([]float64, n), concurrent: make([]int, n)}
	for i := range results {
		r := &results[i]
		if !r.OK() {
			continue
		}
		start, end := r.SentS-first, r.SentS-first+r.E2ES
		for k := int(start); k <= int(end) && k < n; k++ {
			b.concurrent[k]++
		}
		out := float64(r.OutputTokens())
		t0, t1 := start+r.TTFTS, end
		if out <= 1 || t1 <= t0 {
			b.tokens[min(int(t0), n-1)] += out
			continue
		}
		// The first token at t0, the rest evenly over (t0, t1].
		b.tokens[min(int(t0), n-1)]++
		rate := (out - 1) / (t1 - t0)
		for k := int(t0); k <= int(t1) && k < n; k++ {
			lo, hi := max(float64(k), t0), min(float64(k+1), t1)
			if hi > lo {
				b.tokens[k] += rate * (hi - lo)
			}
		}
	}
	return b
}

// peaks are vLLM's max_output_tokens_per_s and max_concurrent_requests.
func peaks(results []workload.Result) (float64, int) {
	b := tokenBuckets(results)
	if len(b.tokens) == 0 {
		return 0, 0
	}
	return slices.Max(b.tokens), slices.Max(b.concurrent)
}

// writeVLLMResult writes the run's result object to path, one line as
// vLLM writes it (json.Marshal would compact the separators away).
func writeVLLMResult(path string, r *orderedJSON) error {
	b, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return inputerr.New(fmt.Errorf("--save-result: %w", err))
	}
	return nil
}
