package analysis

import (
	"math"

	"github.com/thinkcap/thinkcap/workload"
)

// Summarize fills the parts of a Summary that the result records determine:
// Kind, Requests, DurationS, Throughput, LatencyS (all but ITL) and Tokens.
// durationS is the run's length in seconds, the denominator of every
// throughput; a zero, negative or non-finite duration gives zero throughputs
// rather than NaN or Inf, so the summary always encodes as JSON.
//
// Config, Capacity, LatencyS.ITL, Preemptions, KVUsage, Running and Waiting
// are left zero for the caller: the simulator takes ITL from its per-step
// histogram and occupancy from its timeline, a load test from the server's
// /metrics, and neither can be rebuilt from per-request records.
//
// Latencies and token counts are over completed requests only (status ok): a
// rejected or timed-out request has no meaningful TTFT, and counting its
// partial tokens would flatter throughput. Two latencies are further
// restricted because they are undefined otherwise:
//   - TTFA only over requests with at least one answer token (a request that
//     thought until its budget ran out never showed the user anything);
//   - TPOT only over requests with more than one output token (it is the mean
//     gap after the first token, so one token has no gap).
//
// A chain of calls linked by After counts as one user request for TTFT and
// queue time (its first call) and for TTFA and E2E (its last call, marked by
// Continued on the others); tokens and throughput count every call.
func Summarize(kind string, results []workload.Result, durationS float64) Summary {
	s := Summary{Kind: kind, DurationS: durationS}
	s.Requests.Total = len(results)

	var lat LatencySamples
	var think, answer, total []float64
	var thinkSum, answerSum, promptSum float64
	for i := range results {
		r := &results[i]
		if !r.OK() {
			s.Requests.Failed++
			if r.Status == workload.StatusRejected {
				s.Requests.Rejected++
			}
			continue
		}
		s.Requests.Completed++
		lat.add(r)

		think = append(think, float64(r.ThinkTokens))
		answer = append(answer, float64(r.AnswerTokens))
		total = append(total, float64(r.OutputTokens()))
		thinkSum += float64(r.ThinkTokens)
		answerSum += float64(r.AnswerTokens)
		promptSum += float64(r.PromptTokens)
	}

	s.LatencyS = Latencies{
		TTFT:       Describe(lat.TTFT),
		TTFA:       Describe(lat.TTFA),
		TPOT:       Describe(lat.TPOT),
		E2E:        Describe(lat.E2E),
		Queue:      Describe(lat.Queue),
		TTFTEngine: Describe(lat.TTFTEngine),
	}
	s.Tokens = TokenStats{
		Think:  Describe(think),
		Answer: Describe(answer),
		Total:  Describe(total),
	}
	s.Throughput = throughput(float64(s.Requests.Completed), thinkSum, answerSum, promptSum, durationS)
	return s
}

// LatencySamples are the per-request latencies Summarize describes, in
// seconds, each over the completed requests it is defined for: plots of
// them show the table's quantiles.
type LatencySamples struct {
	TTFT, TTFA, TPOT, E2E, Queue []float64
	TTFTEngine                   []float64 // results that know it (simulations)
}

// SampleLatencies collects the latencies of the completed results.
func SampleLatencies(results []workload.Result) LatencySamples {
	var lat LatencySamples
	for i := range results {
		if results[i].OK() {
			lat.add(&results[i])
		}
	}
	return lat
}

// add takes a completed request's latencies. A chain of calls (two-phase
// budget, escalation) is one user request: its first token and queue wait
// come from the first call, its answer and end from the last (follow-ups
// measure from the chain's first arrival).
func (l *LatencySamples) add(r *workload.Result) {
	if r.StartsUserRequest() {
		l.TTFT = append(l.TTFT, r.TTFTS)
		l.Queue = append(l.Queue, r.QueueS)
		if r.TTFTEngineS > 0 {
			l.TTFTEngine = append(l.TTFTEngine, r.TTFTEngineS)
		}
	}
	if !r.Continued {
		l.E2E = append(l.E2E, r.E2ES)
		if r.AnswerTokens > 0 {
			l.TTFA = append(l.TTFA, r.TTFAS)
		}
	}
	if r.OutputTokens() > 1 {
		l.TPOT = append(l.TPOT, r.TPOTS)
	}
}

// throughput divides the completed work by the duration, guarding against a
// duration that would turn it into NaN or Inf.
func throughput(requests, think, answer, prompt, durationS float64) Throughput {
	if !(durationS > 0) || math.IsInf(durationS, 0) {
		return Throughput{}
	}
	return Throughput{
		RequestsPerS:     requests / durationS,
		OutputTokensPerS: (think + answer) / durationS,
		ThinkTokensPerS:  think / durationS,
		AnswerTokensPerS: answer / durationS,
		PromptTokensPerS: prompt / durationS,
	}
}
