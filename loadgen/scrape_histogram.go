package loadgen

import (
	"math"
	"slices"

	dto "github.com/prometheus/client_model/go"
)

// Histogram is a cumulative Prometheus histogram summed over its series
// (data-parallel engines, model names): Counts[i] observations at or below
// Bounds[i], the last bound +Inf, as /metrics exposes them.
type Histogram struct {
	Bounds []float64
	Counts []float64
	Sum    float64
	Count  float64
}

// histogramFrom sums a histogram family's series. Series with other bucket
// bounds than the first are left out (vLLM gives every engine the same
// buckets); nil when no series has a usable bucket list.
func histogramFrom(fam *dto.MetricFamily) *Histogram {
	var h *Histogram
	for _, m := range fam.Metric {
		mh := m.GetHistogram()
		if mh == nil || !finite(mh.GetSampleSum()) || !finite(float64(mh.GetSampleCount())) {
			continue
		}
		bounds := make([]float64, 0, len(mh.Bucket)+1)
		counts := make([]float64, 0, len(mh.Bucket)+1)
		for _, b := range mh.Bucket {
			ub, c := b.GetUpperBound(), float64(b.GetCumulativeCount())
			if math.IsNaN(ub) || math.IsInf(ub, 1) {
				continue // expfmt keeps +Inf implicit; the count is SampleCount
			}
			bounds, counts = append(bounds, ub), append(counts, c)
		}
		bounds, counts = append(bounds, math.Inf(1)), append(counts, float64(mh.GetSampleCount()))
		if !sortedBounds(bounds) {
			continue
		}
		if h == nil {
			h = &Histogram{Bounds: bounds, Counts: counts}
		} else if !slices.Equal(h.Bounds, bounds) {
			continue
		} else {
			for i := range counts {
				h.Counts[i] += counts[i]
			}
		}
		h.Sum += mh.GetSampleSum()
		h.Count += float64(mh.GetSampleCount())
	}
	return h
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func sortedBounds(b []float64) bool {
	for i := 1; i < len(b); i++ {
		if !(b[i] > b[i-1]) {
			return false
		}
	}
	return true
}

// HistogramStats are a histogram's observations over a window: their
// count, their mean (from _sum and _count) and quantiles interpolated
// within buckets as Prometheus's histogram_quantile does.
type HistogramStats struct {
	Count float64 `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
}

// histogramIncrease is the histogram of the observations made over w: the
// per-bucket increases between consecutive samples, a decrease (or a
// change of buckets) counting as a reset from zero as for counters. ok is
// false when no sample had the histogram.
func histogramIncrease(w []Sample, resets []bool, of func(*Sample) *Histogram) (inc Histogram, ok bool) {
	var prev *Histogram
	for i := range w {
		h := of(&w[i])
		if h == nil {
			continue
		}
		if prev == nil {
			inc = Histogram{Bounds: h.Bounds, Counts: make([]float64, len(h.Counts))}
			prev, ok = h, true
			continue
		}
		if !slices.Equal(prev.Bounds, h.Bounds) || h.Count < prev.Count {
			// Restarted, perhaps with other buckets: what it holds now is
			// all new, in its own buckets when they match.
			resets[i] = true
			inc.Sum += h.Sum
			inc.Count += h.Count
			if slices.Equal(inc.Bounds, h.Bounds) {
				for j := range h.Counts {
					inc.Counts[j] += h.Counts[j]
				}
			}
			prev = h
			continue
		}
		var reset bool
		for j := range h.Counts {
			inc.Counts[j] += counterDelta(prev.Counts[j], h.Counts[j], &reset)
		}
		inc.Sum += counterDelta(prev.Sum, h.Sum, &reset)
		inc.Count += h.Count - prev.Count
		resets[i] = resets[i] || reset
		prev = h
	}
	return inc, ok
}

// Stats summarises h; ok is false when it holds no observation.
func (h *Histogram) Stats() (s HistogramStats, ok bool) {
	s.Count = h.Count
	if h.Count <= 0 || h.Counts[len(h.Counts)-1] <= 0 {
		return s, false
	}
	s.Mean = h.Sum / h.Count
	s.P50, s.P90, s.P99 = h.Quantile(0.5), h.Quantile(0.9), h.Quantile(0.99)
	// A hostile or broken exposition (bounds near ±MaxFloat64) can
	// overflow the interpolation: no statistic rather than a NaN that
	// summary.json cannot hold.
	for _, v := range []float64{s.Mean, s.P50, s.P90, s.P99} {
		if !finite(v) {
			return HistogramStats{Count: h.Count}, false
		}
	}
	return s, true
}

// Quantile estimates the q-quantile as Prometheus's histogram_quantile
// does: find the bucket holding rank q×count and interpolate linearly
// within it, the first bucket starting at 0 (vLLM's latencies are
// positive); a rank in the +Inf bucket gives the highest finite bound.
// NaN when the histogram is empty or q is outside [0, 1].
func (h *Histogram) Quantile(q float64) float64 {
	n := len(h.Counts)
	if n == 0 || len(h.Bounds) != n || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	total := h.Counts[n-1]
	if total <= 0 {
		return math.NaN()
	}
	rank := q * total
	// The first bucket whose cumulative count reaches the rank.
	i := 0
	for i < n-1 && h.Counts[i] < rank {
		i++
	}
	if math.IsInf(h.Bounds[i], 1) {
		if n < 2 {
			return math.NaN()
		}
		return h.Bounds[n-2]
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = h.Bounds[i-1], h.Counts[i-1]
	} else if h.Bounds[0] <= 0 {
		return h.Bounds[0]
	}
	inBucket := h.Counts[i] - below
	if inBucket <= 0 {
		return h.Bounds[i]
	}
	return lower + (h.Bounds[i]-lower)*(rank-below)/inBucket
}
