package scenario

import (
	"testing"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// The catalog and traffic helpers of sim's tests, for the runs here.

func refCatalog(t testing.TB) *profiles.Catalog {
	t.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func refModel(t testing.TB, name string) profiles.Model {
	t.Helper()
	m, err := refCatalog(t).Model(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func refGPU(t testing.TB, name string) profiles.GPU {
	t.Helper()
	g, err := refCatalog(t).GPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// summaryTraffic mixes short and long prompts and outputs at a rate that
// keeps tens of requests running.
func summaryTraffic(t testing.TB, n int, rate float64, seed uint64) []workload.Request {
	t.Helper()
	dist := func(s string) workload.Dist {
		d, err := workload.ParseDist(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	reqs, err := workload.Synthetic{Requests: n, RatePerS: rate, Seed: seed, Classes: []workload.Class{
		{Name: "short", Share: 0.6, Prompt: dist("uniform:50..400"), Think: dist("uniform:50..800"), Answer: dist("uniform:20..200")},
		{Name: "long", Share: 0.4, Prompt: dist("uniform:1000..6000"), Think: dist("uniform:200..2000"), Answer: dist("uniform:50..300")},
	}}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}
