package histogram

import (
	"math"
	"slices"
)

// sketchSub is the number of buckets per power of two of a Sketch.
const sketchSub = 512

// SketchRelativeError bounds how far a Sketch's value at a rank lies from
// the exact one, relative to it: half a bucket's width.
const SketchRelativeError = 1.0 / (2 * sketchSub)

// Sketch is a log-linear histogram of any float64: sketchSub buckets per
// power of two of the value, so that every bucket spans at most
// 1/sketchSub of the values in it, whatever their scale (nanoseconds to
// days). A value at a rank is its bucket's midpoint, kept within the exact
// minimum and maximum; zero and negative values are counted exactly.
// Sketches merge by adding counts, and their memory follows the range of
// the values, not their number.
type Sketch struct {
	counts   []int64 // by bucket key, from key base
	base     int
	nonPos   map[float64]int64
	n        int64
	sum      float64
	min, max float64
}

// sketchKey is v's bucket (v > 0): its power of two and the sub-bucket
// within it.
func sketchKey(v float64) int {
	frac, exp := math.Frexp(v) // v = frac·2^exp, frac in [0.5, 1)
	sub := int((2*frac - 1) * sketchSub)
	return exp*sketchSub + min(sub, sketchSub-1)
}

// sketchMid is the midpoint of bucket key.
func sketchMid(key int) float64 {
	exp := key / sketchSub
	sub := key - exp*sketchSub
	if sub < 0 {
		exp--
		sub += sketchSub
	}
	return math.Ldexp(1+(float64(sub)+0.5)/sketchSub, exp-1)
}

// Add counts v; NaN and infinite values are dropped (analysis.Describe
// drops them too).
func (s *Sketch) Add(v float64) { s.addN(v, 1) }

func (s *Sketch) addN(v float64, k int64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || k == 0 {
		return
	}
	if s.n == 0 {
		s.min, s.max = v, v
	}
	s.n += k
	s.sum += v * float64(k)
	s.min, s.max = min(s.min, v), max(s.max, v)
	if v <= 0 {
		if s.nonPos == nil {
			s.nonPos = map[float64]int64{}
		}
		s.nonPos[v] += k
		return
	}
	key := sketchKey(v)
	switch {
	case len(s.counts) == 0:
		s.base = key
		s.counts = append(s.counts, 0)
	case key < s.base:
		grow := s.base - key
		s.counts = append(make([]int64, grow, grow+len(s.counts)), s.counts...)
		s.base = key
	case key-s.base >= len(s.counts):
		s.counts = append(s.counts, make([]int64, key-s.base+1-len(s.counts))...)
	}
	s.counts[key-s.base] += k
}

// Merge adds o's values to s.
func (s *Sketch) Merge(o *Sketch) {
	if o.n == 0 {
		return
	}
	if s.n == 0 {
		s.min, s.max = o.min, o.max
	}
	for v, k := range o.nonPos {
		if s.nonPos == nil {
			s.nonPos = map[float64]int64{}
		}
		s.nonPos[v] += k
	}
	for i, k := range o.counts {
		if k > 0 {
			// Each bucket is re-added at its midpoint's key (the same key).
			n, sum, lo, hi := s.n, s.sum, s.min, s.max
			s.addN(sketchMid(o.base+i), k)
			s.n, s.sum, s.min, s.max = n, sum, lo, hi
		}
	}
	s.n += o.n
	s.sum += o.sum
	s.min, s.max = min(s.min, o.min), max(s.max, o.max)
}

// Values yields the buckets in ascending order: each value (exact below
// or at zero, the bucket's midpoint within [min, max] above) with its count.
func (s *Sketch) Values(yield func(v float64, k int64) bool) {
	neg := make([]float64, 0, len(s.nonPos))
	for v := range s.nonPos {
		neg = append(neg, v)
	}
	slices.Sort(neg)
	for _, v := range neg {
		if !yield(v, s.nonPos[v]) {
			return
		}
	}
	for i, k := range s.counts {
		if k > 0 && !yield(min(max(sketchMid(s.base+i), s.min), s.max), k) {
			return
		}
	}
}

// Count is the number of values added.
func (s *Sketch) Count() int64 { return s.n }

// Sum is the values' exact sum.
func (s *Sketch) Sum() float64 { return s.sum }
