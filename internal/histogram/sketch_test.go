package histogram

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSketchBound: every value's bucket midpoint is within
// SketchRelativeError of it, from nanoseconds to days.
func TestSketchBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		v := math.Exp(r.Float64()*40 - 21) // about 1e-9 to 1e8
		m := sketchMid(sketchKey(v))
		if math.Abs(m-v) > SketchRelativeError*v {
			t.Fatalf("%g in a bucket of midpoint %g: %.3g relative", v, m, math.Abs(m-v)/v)
		}
	}
}
