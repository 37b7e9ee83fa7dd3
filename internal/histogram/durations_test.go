package histogram

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestDurationsQuantiles: a quantile is within half a bucket (1/128) of the
// exact value at its rank, the mean exact, and the atomic histogram agrees
// with the plain one to the bit.
func TestDurationsQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var h Durations
	var a AtomicDurations
	var vs []int64
	for range 50_000 {
		v := int64(math.Exp(r.Float64()*20)) + r.Int64N(100) // 0 ns to about 0.5 s
		vs = append(vs, v)
		h.Add(v)
		a.Add(time.Duration(v))
	}
	slices.Sort(vs)
	sum := 0.0
	for _, v := range vs {
		sum += float64(v)
	}
	if got, want := h.Mean(), sum/float64(len(vs))/1e9; math.Abs(got-want) > 1e-12*want {
		t.Errorf("mean %g, want %g", got, want)
	}
	for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.99, 1} {
		exact := float64(vs[max(int(math.Ceil(q*float64(len(vs))))-1, 0)]) / 1e9
		got := h.Quantile(q)
		if math.Abs(got-exact) > exact/128+0.5e-9 {
			t.Errorf("q%g = %g, exact %g", q, got, exact)
		}
		if a.Quantile(q) != got {
			t.Errorf("q%g: atomic %g, plain %g", q, a.Quantile(q), got)
		}
	}
	if a.Mean() != h.Mean() || a.Count() != h.Count() {
		t.Errorf("atomic mean %g count %d, plain %g %d", a.Mean(), a.Count(), h.Mean(), h.Count())
	}
}

// TestDurationsMerge: merging halves gives the whole, and adding n at once
// is adding it n times.
func TestDurationsMerge(t *testing.T) {
	var whole, lo, hi Durations
	for v := range int64(10_000) {
		whole.AddN(v*v, 3)
		if v%2 == 0 {
			lo.Add(v * v)
			lo.Add(v * v)
			lo.Add(v * v)
		} else {
			hi.AddN(v*v, 3)
		}
	}
	lo.Merge(&hi)
	if lo != whole {
		t.Error("merged halves differ from the whole")
	}
}

// TestDurationsAddAllocatesNothing: the simulator adds to a histogram on
// every step.
func TestDurationsAddAllocatesNothing(t *testing.T) {
	h := &Durations{}
	if n := testing.AllocsPerRun(100, func() { h.AddN(12345, 2) }); n != 0 {
		t.Errorf("AddN allocates %g times", n)
	}
}

// TestCountsRoundTrip: a histogram's Counts added to an empty one give
// the same histogram; a bucket out of range is refused.
func TestCountsRoundTrip(t *testing.T) {
	var a, b AtomicDurations
	for v := range 1000 {
		a.Add(time.Duration(v * v * v))
	}
	if err := b.AddCounts(a.Counts()); err != nil {
		t.Fatal(err)
	}
	am, ap50, ap90, ap99 := a.Quantiles()
	bm, bp50, bp90, bp99 := b.Quantiles()
	if am != bm || ap50 != bp50 || ap90 != bp90 || ap99 != bp99 || a.Std() != b.Std() {
		t.Errorf("round trip: %v %v %v %v, want %v %v %v %v", bm, bp50, bp90, bp99, am, ap50, ap90, ap99)
	}
	if err := b.AddCounts(Counts{Buckets: map[int]int64{Buckets: 1}}); err == nil {
		t.Error("a bucket out of range was taken")
	}
	var none *AtomicDurations
	none.Add(time.Second) // a nil histogram records nothing
}
