package profiles

import (
	"math"
	"strings"
	"testing"
)

// TestModelErrorBand: a regime's own cell when it has the points and
// deployments, else concurrency's, phase's, the whole corpus's; levels
// interpolated linearly and held flat beyond the outermost.
func TestModelErrorBand(t *testing.T) {
	me := &ModelError{Levels: []float64{0.05, 0.5, 0.95}, Metrics: map[string][]ModelErrorCell{"tpot": {
		{Points: 500, Deployments: 50, Q: []float64{-0.3, 0, 0.3}},
		{Concurrency: "1", Points: 100, Deployments: 10, Q: []float64{-0.1, 0, 0.1}},
		{Concurrency: "256+", Phase: "prefill-heavy", Points: 10, Deployments: 2, Q: []float64{-1, 0, 1}},
		{Phase: "prefill-heavy", Points: 200, Deployments: 20, Q: []float64{-0.5, 0.1, 0.4}},
	}}}
	for _, c := range []struct {
		conc, phase string
		conf        float64
		lo, hi      float64
	}{
		{"1", "decode-heavy", 0.9, -0.1, 0.1},              // concurrency's cell
		{"256+", "prefill-heavy", 0.9, -0.5, 0.4},          // own cell too small: phase's
		{"64-255", "decode-heavy", 0.9, -0.3, 0.3},         // the whole corpus
		{"64-255", "decode-heavy", 0.5, -1.0 / 6, 1.0 / 6}, // interpolated at 0.25 and 0.75
		{"64-255", "decode-heavy", 0.99, -0.3, 0.3},        // flat beyond the levels
	} {
		lo, _, hi, _, ok := me.Band("tpot", ErrorRegime{Concurrency: c.conc, Phase: c.phase}, c.conf)
		if !ok || math.Abs(lo-c.lo) > 1e-12 || math.Abs(hi-c.hi) > 1e-12 {
			t.Errorf("%s/%s at %.2f: [%g, %g] (ok %v); want [%g, %g]", c.conc, c.phase, c.conf, lo, hi, ok, c.lo, c.hi)
		}
	}
	if _, _, _, _, ok := me.Band("ttft", ErrorRegime{Concurrency: "1", Phase: "decode-heavy"}, 0.9); ok {
		t.Error("a metric without cells gave a band")
	}
	// A generation whose own cell is wider than the whole corpus's
	// (−0.3, 0, 0.3) stretches the regime's band by as much on that side;
	// one too small, or no wider, leaves it.
	me.Metrics["tpot"] = append(me.Metrics["tpot"],
		ModelErrorCell{Generation: "ampere", Points: 113, Deployments: 12, Q: []float64{-0.6, 0, 0.2}},
		ModelErrorCell{Generation: "volta", Points: 10, Deployments: 1, Q: []float64{-2, 0, 2}},
		ModelErrorCell{Generation: "hopper", Points: 800, Deployments: 60, Q: []float64{-0.2, 0, 0.2}})
	for _, c := range []struct {
		gen    string
		lo, hi float64
		cells  int
	}{{"ampere", -0.6, 0.3, 2}, {"volta", -0.3, 0.3, 1}, {"hopper", -0.3, 0.3, 1}, {"ampere-c1", -0.2, 0.1, 2}} {
		reg := ErrorRegime{Concurrency: "64-255", Phase: "decode-heavy", Generation: c.gen}
		if c.gen == "ampere-c1" {
			reg = ErrorRegime{Concurrency: "1", Generation: "ampere"} // the concurrency cell ±0.1, stretched twice below
		}
		lo, _, hi, cells, _ := me.Band("tpot", reg, 0.9)
		if math.Abs(lo-c.lo) > 1e-12 || math.Abs(hi-c.hi) > 1e-12 || len(cells) != c.cells {
			t.Errorf("%s: [%g, %g] from %d cells; want [%g, %g] from %d", c.gen, lo, hi, len(cells), c.lo, c.hi, c.cells)
		}
	}
	var nilME *ModelError
	if _, _, _, _, ok := nilME.Band("tpot", ErrorRegime{Concurrency: "1"}, 0.9); ok {
		t.Error("no model error gave a band")
	}
}

// TestModelErrorProblems: a file that would make a band wrong is refused
// with what is wrong.
func TestModelErrorProblems(t *testing.T) {
	var c Catalog
	err := c.LoadYAML("me.yaml", []byte("model_error:\n  levels: [0.1, 0.5, 0.4]\n  metrics:\n    tpot:\n      - concurrency: \"1\"\n        points: 3\n        q: [0.2, 0.1, 0.3]\n"))
	if err == nil {
		t.Fatal("a bad model error loaded")
	}
	for _, want := range []string{"me.yaml", "levels must ascend", "quantiles must be finite and ascending", "no cell over the whole corpus"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if c.ModelError != nil {
		t.Error("a refused file changed the catalog")
	}
	cat, err := Embedded()
	if err != nil || cat.ModelError == nil || len(cat.ModelError.Metrics) != 3 {
		t.Fatalf("embedded model error: %v, %+v", err, cat.ModelError)
	}
}
