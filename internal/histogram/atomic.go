package histogram

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// AtomicDurations is a histogram of durations whose counters are atomic, so
// thousands of goroutines add to it without a lock. The zero value is
// empty.
type AtomicDurations struct {
	counts [Buckets]atomic.Int64
	n      atomic.Int64
	sumNs  atomic.Int64
}

// Add records one duration; a nil histogram records nothing.
func (h *AtomicDurations) Add(d time.Duration) {
	if h == nil {
		return
	}
	h.counts[Bucket(int64(d))].Add(1)
	h.n.Add(1)
	h.sumNs.Add(int64(d))
}

// Count is the number of durations recorded.
func (h *AtomicDurations) Count() int64 { return h.n.Load() }

// Quantiles returns the mean and the 50th, 90th and 99th percentiles in
// seconds (zeros when empty).
func (h *AtomicDurations) Quantiles() (mean, p50, p90, p99 float64) {
	if h.n.Load() == 0 {
		return 0, 0, 0, 0
	}
	return h.Mean(), h.Quantile(0.5), h.Quantile(0.9), h.Quantile(0.99)
}

// Mean is the mean in seconds, exact (0 when empty).
func (h *AtomicDurations) Mean() float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	return float64(h.sumNs.Load()) / float64(n) / 1e9
}

// Quantile is the duration at rank ⌈p × n⌉ in seconds, to the histogram's
// resolution (1/64 of the value; 0 when empty).
func (h *AtomicDurations) Quantile(p float64) float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	return rankMid(n, p, func(i int) int64 { return h.counts[i].Load() }) / 1e9
}

// Std is the population standard deviation in seconds, from the buckets'
// midpoints around the exact mean (0 when empty).
func (h *AtomicDurations) Std() float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	mean := float64(h.sumNs.Load()) / float64(n)
	var ss float64
	for i := range h.counts {
		if c := h.counts[i].Load(); c > 0 {
			d := Mid(i) - mean
			ss += float64(c) * d * d
		}
	}
	return math.Sqrt(ss/float64(n)) / 1e9
}

// Counts is an AtomicDurations as written to a file: its non-empty
// buckets, its count and its exact sum, so that histograms kept apart (a
// load test's shards) merge into the one they would have been together.
type Counts struct {
	Buckets map[int]int64 `json:"buckets"`
	N       int64         `json:"n"`
	SumNs   int64         `json:"sum_ns"`
}

// Counts is the histogram's state.
func (h *AtomicDurations) Counts() Counts {
	c := Counts{Buckets: map[int]int64{}, N: h.n.Load(), SumNs: h.sumNs.Load()}
	for i := range h.counts {
		if v := h.counts[i].Load(); v > 0 {
			c.Buckets[i] = v
		}
	}
	return c
}

// AddCounts adds counts (another histogram's) to h; buckets out of range
// are refused.
func (h *AtomicDurations) AddCounts(c Counts) error {
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
