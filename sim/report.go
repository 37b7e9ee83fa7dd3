package sim

import (
	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/histogram"
	"github.com/thinkcap/thinkcap/workload"
)

// Report is what a simulation run produced: per-request results plus what
// the servers' /metrics would have shown.
type Report struct {
	Config   Config // resolved: vLLM's defaults filled in
	Capacity Capacity
	Results  []workload.Result // in input order
	// DurationS is from time 0 (the start of the log) to the last event.
	DurationS   float64
	Preemptions int64
	Steps       int64
	// KV usage as vllm:kv_cache_usage_perc: time-weighted mean over replicas
	// and the peak of any replica.
	KVUsageMean, KVUsagePeak float64
	// Running and waiting requests summed over replicas: time-weighted mean,
	// and the peak (exact for one replica; for several, the largest sum seen
	// at a timeline sample or any one replica's peak, whichever is larger).
	RunningMean, WaitingMean float64
	RunningPeak, WaitingPeak int
	// ITL is the inter-token latency in seconds over every output after a
	// request's first (one observation per engine step, as vLLM's
	// vllm:inter_token_latency_seconds histogram).
	ITL Quantiles
	// Timeline is empty unless Options.Timeline was set.
	Timeline []TimelineSample
	// Stopped is set when Options.OnResult stopped the run early: the
	// unfinished requests' results are "cancelled".
	Stopped bool

	// Scaling is the fleet over time under Options.Autoscale, and
	// ReplicaSeconds what it cost: each replica from the moment it was asked
	// for to the moment it went away (or the run's end). Empty and 0 for a
	// fixed fleet.
	Scaling        []ScalePoint
	ReplicaSeconds float64

	stretched int64 // steps taken in decode stretches (decodejump.go)
	// acc is the streaming summary of the results when they were not kept
	// (Options.DiscardResults); nil otherwise.
	acc *analysis.Accumulator
}

// Accumulator is the streaming summary of the results when they were not
// kept (Options.DiscardResults); nil otherwise. A run of several pools
// merges its pools' accumulators into one summary.
func (rep *Report) Accumulator() *analysis.Accumulator { return rep.acc }

// Quantiles is a four-number summary in seconds.
type Quantiles struct {
	Mean, P50, P90, P99 float64
}

func (c *cluster) report() *Report {
	r := &Report{
		Config:    *c.cfg,
		Capacity:  c.capacity,
		Results:   c.results,
		DurationS: nsToSeconds(c.end),
	}
	if c.results == nil {
		r.acc = c.acc
	}
	if c.scaler != nil {
		r.Scaling, r.ReplicaSeconds = c.scaler.history, c.scaler.costNs/1e9
	}
	itl := &histogram.Durations{}
	var tls []*timeline
	for _, e := range c.engines {
		r.Preemptions += e.preemptions
		r.Steps += e.steps
		r.stretched += e.stretched
		itl.Merge(e.itl)
		st := &e.stats
		total := float64(max(e.pool.total, 1))
		r.KVUsageMean += st.mean(st.usedNs) / total / float64(len(c.engines))
		r.KVUsagePeak = max(r.KVUsagePeak, float64(st.peakUsed)/total)
		r.RunningMean += st.mean(st.runningNs)
		r.WaitingMean += st.mean(st.waitingNs)
		r.RunningPeak = max(r.RunningPeak, st.peakRunning)
		r.WaitingPeak = max(r.WaitingPeak, st.peakWaiting)
		if e.timeline != nil {
			tls = append(tls, e.timeline)
		}
	}
	if len(tls) > 0 {
		r.Timeline = mergeTimelines(tls)
		if len(c.engines) > 1 {
			r.RunningPeak, r.WaitingPeak = max(r.RunningPeak, peakSum(r.Timeline, true)), max(r.WaitingPeak, peakSum(r.Timeline, false))
		}
	}
	r.ITL = Quantiles{
		Mean: itl.Mean(),
		P50:  itl.Quantile(0.50),
		P90:  itl.Quantile(0.90),
		P99:  itl.Quantile(0.99),
	}
	return r
}

// peakSum is the largest cluster-wide running (or waiting) count at any
// timeline instant.
func peakSum(ts []TimelineSample, running bool) int {
	peak, sum := 0, 0
	for i, s := range ts {
		if i > 0 && s.TimeS != ts[i-1].TimeS {
			sum = 0
		}
		if running {
			sum += s.Running
		} else {
			sum += s.Waiting
		}
		peak = max(peak, sum)
	}
	return peak
}
