package sim

import (
	"math"
	"math/bits"
	"sort"
)

// occupancy accumulates time-weighted means and peaks of an engine's
// state: KV blocks used, running and waiting requests.
type occupancy struct {
	ns                                 float64
	usedNs, runningNs, waitingNs       float64
	peakUsed, peakRunning, peakWaiting int
}

func (o *occupancy) add(dt int64, used, running, waiting int) {
	d := float64(dt)
	o.ns += d
	o.usedNs += d * float64(used)
	o.runningNs += d * float64(running)
	o.waitingNs += d * float64(waiting)
	o.peakUsed = max(o.peakUsed, used)
	o.peakRunning = max(o.peakRunning, running)
	o.peakWaiting = max(o.peakWaiting, waiting)
}

func (o *occupancy) mean(sum float64) float64 {
	if o.ns == 0 {
		return 0
	}
	return sum / o.ns
}

// latencyHistogram is a log-linear histogram of durations in nanoseconds
// with 64 sub-buckets per power of two (about 1% relative error), so the
// simulator can report inter-token latency quantiles over hundreds of
// millions of tokens in constant memory.
type latencyHistogram struct {
	counts [64 * 64]int64
	n      int64
	sum    float64
}

const subBits = 6

func bucketOf(v int64) int {
	if v < 1<<subBits {
		return int(max(v, 0))
	}
	exp := bits.Len64(uint64(v)) - 1 - subBits
	return (exp+1)<<subBits + int(v>>uint(exp)) - 1<<subBits
}

// bucketValue is the midpoint of bucket i.
func bucketValue(i int) float64 {
	if i < 1<<subBits {
		return float64(i)
	}
	exp := i>>subBits - 1
	lo := float64(int64(i&(1<<subBits-1)+1<<subBits) << uint(exp))
	return lo + float64(int64(1)<<uint(exp))/2
}

func (h *latencyHistogram) add(v int64) { h.addN(v, 1) }

// addN adds n observations of v.
func (h *latencyHistogram) addN(v, n int64) {
	if n == 0 {
		return
	}
	h.counts[bucketOf(v)] += n
	h.n += n
	h.sum += float64(v) * float64(n)
}

func (h *latencyHistogram) merge(o *latencyHistogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
}

// quantile returns the q-quantile in nanoseconds.
func (h *latencyHistogram) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return bucketValue(i)
		}
	}
	return bucketValue(len(h.counts) - 1)
}

func (h *latencyHistogram) mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// TimelineSample is the state of one replica at one instant, as vLLM's
// gauges would show it.
type TimelineSample struct {
	TimeS       float64
	Replica     int
	KVUsage     float64 // vllm:kv_cache_usage_perc
	Running     int     // vllm:num_requests_running
	Waiting     int     // vllm:num_requests_waiting
	Preemptions int64   // vllm:num_preemptions_total
}

// timeline samples an engine's state every interval of simulated time.
type timeline struct {
	interval int64
	next     int64
	samples  []TimelineSample
}

func (t *timeline) sample(from, to int64, replica int, usage float64, running, waiting int, preemptions int64) {
	for t.next < to {
		if t.next >= from {
			t.samples = append(t.samples, TimelineSample{
				TimeS: float64(t.next) / 1e9, Replica: replica, KVUsage: usage,
				Running: running, Waiting: waiting, Preemptions: preemptions,
			})
		}
		t.next += t.interval
	}
}

// mergeTimelines interleaves the replicas' samples by time, then replica.
func mergeTimelines(ts []*timeline) []TimelineSample {
	var all []TimelineSample
	for _, t := range ts {
		all = append(all, t.samples...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].TimeS != all[j].TimeS {
			return all[i].TimeS < all[j].TimeS
		}
		return all[i].Replica < all[j].Replica
	})
	return all
}
