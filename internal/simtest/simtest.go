// Package simtest holds the fixtures that the tests of the simulator and of
// the packages around it share: the embedded catalog's models and GPUs and a
// mixed reasoning traffic. Only tests import it; it imports no simulator
// code, so that sim's own tests can use it too.
package simtest

import (
	"testing"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// Catalog is the embedded profile catalog.
func Catalog(t testing.TB) *profiles.Catalog {
	t.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// Model is the catalog's model of that name.
func Model(t testing.TB, name string) profiles.Model {
	t.Helper()
	m, err := Catalog(t).Model(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// GPU is the catalog's GPU of that name.
func GPU(t testing.TB, name string) profiles.GPU {
	t.Helper()
	g, err := Catalog(t).GPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Dist parses a length distribution such as "uniform:50..400".
func Dist(t testing.TB, s string) workload.Dist {
	t.Helper()
	d, err := workload.ParseDist(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// MixedTraffic mixes short and long prompts and outputs at a rate that
// keeps tens of requests running, so that every step-model term has steps
// that depend on it.
func MixedTraffic(t testing.TB, n int, rate float64, seed uint64) []workload.Request {
	t.Helper()
	reqs, err := workload.Synthetic{Requests: n, RatePerS: rate, Seed: seed, Classes: []workload.Class{
		{Name: "short", Share: 0.6, Prompt: Dist(t, "uniform:50..400"), Think: Dist(t, "uniform:50..800"), Answer: Dist(t, "uniform:20..200")},
		{Name: "long", Share: 0.4, Prompt: Dist(t, "uniform:1000..6000"), Think: Dist(t, "uniform:200..2000"), Answer: Dist(t, "uniform:50..300")},
	}}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// ReasoningTraffic is the simulator's benchmark workload, Poisson at rate
// req/s: prompt lognormal with a mean about 900, think lognormal with median
// 1,500 and a tail to 30,000, answer lognormal with median 300.
func ReasoningTraffic(tb testing.TB, n int, rate float64) []workload.Request {
	tb.Helper()
	syn := workload.Synthetic{Requests: n, RatePerS: rate, Arrival: "poisson", Seed: 42,
		Classes: []workload.Class{{Name: "reasoning", Share: 1,
			Prompt: Dist(tb, "lognormal:mean=900,sigma=0.8,max=16000"),
			Think:  Dist(tb, "lognormal:p50=1500,p99=15000,max=30000"),
			Answer: Dist(tb, "lognormal:p50=300,sigma=0.6,max=4000")}}}
	reqs, err := syn.Generate()
	if err != nil {
		tb.Fatal(err)
	}
	return reqs
}
