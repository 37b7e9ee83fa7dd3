package loadgen

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// GapHistogram collects every inter-token gap of a run, across all
// streams, in constant memory: a log-linear histogram with 64 sub-buckets
// per power of two (about 1% resolution) and atomic counters, so thousands
// of streams add to it without a lock. It gives the run's ITL
// distribution, which per-request summaries cannot.
type GapHistogram struct {
	counts [64 * 64]atomic.Int64
	n      atomic.Int64
	sumNs  atomic.Int64
}

const gapSubBits = 6

func gapBucket(ns int64) int {
	if ns < 1<<gapSubBits {
		return int(max(ns, 0))
	}
	exp := bits.Len64(uint64(ns)) - 1 - gapSubBits
	return (exp+1)<<gapSubBits + int(ns>>uint(exp)) - 1<<gapSubBits
}

func gapValue(i int) float64 {
	if i < 1<<gapSubBits {
		return float64(i)
	}
	exp := i>>gapSubBits - 1
	lo := float64(int64(i&(1<<gapSubBits-1)+1<<gapSubBits) << uint(exp))
	return lo + float64(int64(1)<<uint(exp))/2
}

// Add records one gap.
func (h *GapHistogram) Add(d time.Duration) {
	if h == nil {
		return
	}
	h.counts[gapBucket(int64(d))].Add(1)
	h.n.Add(1)
	h.sumNs.Add(int64(d))
}

// Count is the number of gaps recorded.
func (h *GapHistogram) Count() int64 { return h.n.Load() }

// Quantiles returns the mean and the 50th, 90th and 99th percentiles in
// seconds (zeros when empty).
func (h *GapHistogram) Quantiles() (mean, p50, p90, p99 float64) {
	if h.n.Load() == 0 {
		return 0, 0, 0, 0
	}
	return h.Mean(), h.Quantile(0.5), h.Quantile(0.9), h.Quantile(0.99)
}

// Mean is the mean gap in seconds, exact (0 when empty).
func (h *GapHistogram) Mean() float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	return float64(h.sumNs.Load()) / float64(n) / 1e9
}

// Quantile is the gap at rank ⌈p × n⌉ in seconds, to the histogram's
// resolution (1/64 of the value; 0 when empty).
func (h *GapHistogram) Quantile(p float64) float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(p*float64(n))), 1)
	var seen int64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			return gapValue(i) / 1e9
		}
	}
	return gapValue(len(h.counts)-1) / 1e9
}

// Std is the gaps' population standard deviation in seconds, from the
// buckets' midpoints around the exact mean (0 when empty).
func (h *GapHistogram) Std() float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	mean := float64(h.sumNs.Load()) / float64(n)
	var ss float64
	for i := range h.counts {
		if c := h.counts[i].Load(); c > 0 {
			d := gapValue(i) - mean
			ss += float64(c) * d * d
		}
	}
	return math.Sqrt(ss/float64(n)) / 1e9
}

// GapCounts is a GapHistogram as written to the run directory
// (ITLGapsFile): its non-empty buckets, its count and its exact sum, so
// that the shards of a load test merge into the histogram one run would
// have had.
type GapCounts struct {
	Buckets map[int]int64 `json:"buckets"`
	N       int64         `json:"n"`
	SumNs   int64         `json:"sum_ns"`
}

// ITLGapsFile is the run directory's inter-token gap histogram.
const ITLGapsFile = "itl_gaps.json"

// Counts is the histogram's state.
func (h *GapHistogram) Counts() GapCounts {
	c := GapCounts{Buckets: map[int]int64{}, N: h.n.Load(), SumNs: h.sumNs.Load()}
	for i := range h.counts {
		if v := h.counts[i].Load(); v > 0 {
			c.Buckets[i] = v
		}
	}
	return c
}

// AddCounts adds counts (another run's) to the histogram; buckets out of
// range are refused.
func (h *GapHistogram) AddCounts(c GapCounts) error {
	for i, v := range c.Buckets {
		if i < 0 || i >= len(h.counts) || v < 0 {
			return fmt.Errorf("gap histogram: bucket %d (count %d) out of range", i, v)
		}
	}
	for i, v := range c.Buckets {
		h.counts[i].Add(v)
	}
	h.n.Add(c.N)
	h.sumNs.Add(c.SumNs)
	return nil
}
