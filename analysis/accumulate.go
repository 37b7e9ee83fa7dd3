package analysis

import (
	"math"
	"slices"

	"github.com/thinkcap/thinkcap/internal/histogram"
	"github.com/thinkcap/thinkcap/workload"
)

// Accumulator is Summarize for results that come one at a time and are not
// kept, so that a long simulation's memory follows the requests in flight,
// not the run's length. It gives what Summarize gives, with one
// difference: latency quantiles come from a log-linear histogram
// (histogram.Sketch), within SketchRelativeError of Summarize's. Counts, throughputs,
// every mean, minimum and maximum, and every token statistic (integers,
// counted by value) are Summarize's. Accumulators merge (a run of pools).
type Accumulator struct {
	counts                         RequestCounts
	ttft, ttfa, tpot, e2e, queue   histogram.Sketch
	ttftEngine                     histogram.Sketch
	think, answer, total           intCounts
	thinkSum, answerSum, promptSum float64
	cachedSum                      float64
}

// Add takes one result record, as Summarize takes each of its results.
func (a *Accumulator) Add(r *workload.Result) {
	a.counts.Total++
	if !r.OK() {
		a.counts.Failed++
		if r.Status == workload.StatusRejected {
			a.counts.Rejected++
		}
		return
	}
	a.counts.Completed++
	if r.StartsUserRequest() {
		a.ttft.Add(r.TTFTS)
		a.queue.Add(r.QueueS)
		if r.TTFTEngineS > 0 {
			a.ttftEngine.Add(r.TTFTEngineS)
		}
	}
	if !r.Continued {
		a.e2e.Add(r.E2ES)
		if r.AnswerTokens > 0 {
			a.ttfa.Add(r.TTFAS)
		}
	}
	if r.OutputTokens() > 1 {
		a.tpot.Add(r.TPOTS)
	}
	a.think.add(r.ThinkTokens)
	a.answer.add(r.AnswerTokens)
	a.total.add(r.OutputTokens())
	a.thinkSum += float64(r.ThinkTokens)
	a.answerSum += float64(r.AnswerTokens)
	a.promptSum += float64(r.PromptTokens)
	a.cachedSum += float64(r.CachedTokens)
}

// Merge adds o's results to a's.
func (a *Accumulator) Merge(o *Accumulator) {
	a.counts.Total += o.counts.Total
	a.counts.Completed += o.counts.Completed
	a.counts.Failed += o.counts.Failed
	a.counts.Rejected += o.counts.Rejected
	for _, p := range []struct{ to, from *histogram.Sketch }{
		{&a.ttft, &o.ttft}, {&a.ttfa, &o.ttfa}, {&a.tpot, &o.tpot}, {&a.e2e, &o.e2e}, {&a.queue, &o.queue}, {&a.ttftEngine, &o.ttftEngine},
	} {
		p.to.Merge(p.from)
	}
	a.think.merge(&o.think)
	a.answer.merge(&o.answer)
	a.total.merge(&o.total)
	a.thinkSum += o.thinkSum
	a.answerSum += o.answerSum
	a.promptSum += o.promptSum
	a.cachedSum += o.cachedSum
}

// PromptTokens is the completed requests' prompt tokens and of them those
// the prefix cache held (CachedTokens).
func (a *Accumulator) PromptTokens() (prompt, cached float64) { return a.promptSum, a.cachedSum }

// Summary is the summary of every result added, as Summarize would give it
// for them over durationS.
func (a *Accumulator) Summary(kind string, durationS float64) Summary {
	s := Summary{Kind: kind, DurationS: durationS, Requests: a.counts}
	s.LatencyS = Latencies{
		TTFT: sketchStat(&a.ttft), TTFA: sketchStat(&a.ttfa), TPOT: sketchStat(&a.tpot),
		E2E: sketchStat(&a.e2e), Queue: sketchStat(&a.queue), TTFTEngine: sketchStat(&a.ttftEngine),
	}
	s.Tokens = TokenStats{Think: a.think.stat(), Answer: a.answer.stat(), Total: a.total.stat()}
	s.Throughput = throughput(float64(a.counts.Completed), a.thinkSum, a.answerSum, a.promptSum, durationS)
	return s
}

// intCounts counts non-negative integers by value: exact quantiles of
// token counts in memory that follows the largest value, not the number
// of values (dense up to denseInts, a map beyond).
type intCounts struct {
	dense  []int64
	sparse map[int]int64
	n      int64
	sum    float64
}

const denseInts = 1 << 18

func (c *intCounts) add(v int) {
	c.n++
	c.sum += float64(v)
	switch {
	case v >= 0 && v < denseInts:
		if v >= len(c.dense) {
			c.dense = append(c.dense, make([]int64, max(v+1, 2*len(c.dense))-len(c.dense))...)
		}
		c.dense[v]++
	default:
		if c.sparse == nil {
			c.sparse = map[int]int64{}
		}
		c.sparse[v]++
	}
}

func (c *intCounts) merge(o *intCounts) {
	if len(o.dense) > len(c.dense) {
		c.dense = append(c.dense, make([]int64, len(o.dense)-len(c.dense))...)
	}
	for v, k := range o.dense {
		c.dense[v] += k
	}
	for v, k := range o.sparse {
		if c.sparse == nil {
			c.sparse = map[int]int64{}
		}
		c.sparse[v] += k
	}
	c.n += o.n
	c.sum += o.sum
}

// values are the distinct values in ascending order with their counts.
func (c *intCounts) values(yield func(v float64, k int64) bool) {
	var neg, big []int
	for v := range c.sparse {
		if v < 0 {
			neg = append(neg, v)
		} else {
			big = append(big, v)
		}
	}
	slices.Sort(neg)
	slices.Sort(big)
	for _, v := range neg {
		if !yield(float64(v), c.sparse[v]) {
			return
		}
	}
	for v, k := range c.dense {
		if k > 0 && !yield(float64(v), k) {
			return
		}
	}
	for _, v := range big {
		if !yield(float64(v), c.sparse[v]) {
			return
		}
	}
}

// stat is Describe of the values counted: the same numbers.
func (c *intCounts) stat() Stat {
	if c.n == 0 {
		return Stat{NoData: true}
	}
	return rankStat(c.n, c.sum, c.values)
}

// rankStat is Describe's Stat from values given in ascending order with
// their counts: Quantile's type-7 interpolation between the ranks around
// each quantile, and the mean kept within [min, max] as mean does.
func rankStat(n int64, sum float64, values func(func(v float64, k int64) bool)) Stat {
	type want struct {
		p      float64
		lo     int64
		frac   float64
		a, b   float64
		gotA   bool
		result *float64
	}
	var st Stat
	ws := []*want{{p: 0.50, result: &st.P50}, {p: 0.90, result: &st.P90}, {p: 0.99, result: &st.P99}}
	for _, w := range ws {
		h := float64(n-1) * w.p
		w.lo = int64(math.Floor(h))
		w.frac = h - float64(w.lo)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var seen int64
	values(func(v float64, k int64) bool {
		lo, hi = min(lo, v), max(hi, v)
		first, last := seen, seen+k-1 // the ranks this value holds
		for _, w := range ws {
			if !w.gotA && w.lo >= first && w.lo <= last {
				w.a, w.gotA = v, true
				w.b = v
				if w.lo+1 > last {
					w.b = math.NaN() // the next value's
				}
			} else if w.gotA && math.IsNaN(w.b) {
				w.b = v
			}
		}
		seen += k
		return true
	})
	for _, w := range ws {
		b := w.b
		if math.IsNaN(b) || w.lo >= n-1 {
			b = w.a
		}
		q := w.a
		if w.frac != 0 && w.a != b {
			q = min(max(w.a+w.frac*(b-w.a), w.a), b)
		}
		*w.result = q
	}
	st.Mean = min(max(sum/float64(n), lo), hi)
	return st
}

// SketchRelativeError bounds how far a latency quantile of an Accumulator
// lies from Summarize's, relative to it.
const SketchRelativeError = histogram.SketchRelativeError

// sketchStat is Describe of the values in s: the mean exact, the quantiles
// within SketchRelativeError.
func sketchStat(s *histogram.Sketch) Stat {
	if s.Count() == 0 {
		return Stat{NoData: true}
	}
	return rankStat(s.Count(), s.Sum(), s.Values)
}
