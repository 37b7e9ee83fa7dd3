package analysis

import (
	"encoding/json"
	"math"
	"testing"
)

// TestPredictionInterval: the k-th smallest and largest of n draws, k =
// ⌊(n+1)(1−c)/2⌋ and at least 1; non-finite draws left out; no draw, no
// interval.
func TestPredictionInterval(t *testing.T) {
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(n - i) // descending: the function sorts
		}
		return v
	}
	for _, c := range []struct {
		n      int
		conf   float64
		lo, hi float64
	}{
		{19, 0.9, 1, 19},   // k = 1: min and max
		{99, 0.9, 5, 95},   // k = 5
		{100, 0.8, 10, 91}, // k = ⌊101·0.1⌋ = 10
		{5, 0.5, 1, 5},     // k = ⌊1.5⌋ = 1
		{1, 0.9, 1, 1},
	} {
		if r := PredictionInterval(seq(c.n), c.conf); r != (Range{c.lo, c.hi}) {
			t.Errorf("n %d at %g: %v; want [%g, %g]", c.n, c.conf, r, c.lo, c.hi)
		}
	}
	if r := PredictionInterval([]float64{math.NaN(), 3, math.Inf(1), 1, 2}, 0.9); r != (Range{1, 3}) {
		t.Errorf("with NaN and Inf: %v; want [1, 3]", r)
	}
	if r := PredictionInterval([]float64{math.NaN()}, 0.9); !math.IsNaN(r[0]) || !math.IsNaN(r[1]) {
		t.Errorf("no finite draw: %v; want no interval", r)
	}
}

// TestRangeJSON: [lo, hi], and null without data, both ways.
func TestRangeJSON(t *testing.T) {
	b, err := json.Marshal(map[string]Range{"a": {1, 2}, "b": {math.NaN(), math.NaN()}})
	if err != nil || string(b) != `{"a":[1,2],"b":null}` {
		t.Fatalf("%s, %v", b, err)
	}
	var back map[string]Range
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["a"] != (Range{1, 2}) || !math.IsNaN(back["b"][0]) {
		t.Errorf("read back %v", back)
	}
	var r Range
	if err := json.Unmarshal([]byte(`"x"`), &r); err == nil {
		t.Error("a string read as a range")
	}
}
