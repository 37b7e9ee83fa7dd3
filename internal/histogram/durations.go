package histogram

// Durations is a histogram of durations in nanoseconds for one goroutine:
// the simulator adds every inter-token latency of a run to one, so adding
// is a few instructions and never allocates. The zero value is empty.
type Durations struct {
	counts [Buckets]int64
	n      int64
	sum    float64
}

// Add adds one observation of ns nanoseconds.
func (h *Durations) Add(ns int64) { h.AddN(ns, 1) }

// AddN adds n observations of ns nanoseconds.
func (h *Durations) AddN(ns, n int64) {
	if n == 0 {
		return
	}
	h.counts[Bucket(ns)] += n
	h.n += n
	h.sum += float64(ns) * float64(n)
}

// Merge adds o's observations to h.
func (h *Durations) Merge(o *Durations) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
}

// Count is the number of observations.
func (h *Durations) Count() int64 { return h.n }

// Quantile is the value at rank ⌈q × n⌉ in seconds, its bucket's midpoint
// (0 when empty).
func (h *Durations) Quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	return rankMid(h.n, q, func(i int) int64 { return h.counts[i] }) / 1e9
}

// Mean is the exact mean in seconds (0 when empty).
func (h *Durations) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n) / 1e9
}
