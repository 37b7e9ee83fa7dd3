package fidelity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/profiles"
)

// TestModelErrorCoverage: residuals drawn alike for every deployment
// (normal, σ 0.2, a bias of −0.1) give quantiles at the normal's and
// leave-one-deployment-out intervals that cover about their confidence;
// a regime with its own wider spread gets its own cell and keeps its
// coverage, which the whole corpus's cell alone would not.
func TestModelErrorCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var res []residual
	for d := range 40 {
		for range 60 {
			res = append(res, residual{MetricTPOT, "2-32", "decode-heavy", fmt.Sprint("d", d), "hopper", -0.1 + 0.2*r.NormFloat64()})
		}
		for range 20 {
			res = append(res, residual{MetricTPOT, "256+", "decode-heavy", fmt.Sprint("d", d), "hopper", 0.6 * r.NormFloat64()})
		}
	}
	me := modelErrorOf(res, "", "test")
	lo, mid, hi, cells, ok := me.Band(MetricTPOT, profiles.ErrorRegime{Concurrency: "2-32", Phase: "decode-heavy"}, 0.9)
	if !ok || cells[0].Concurrency != "2-32" || cells[0].Phase != "decode-heavy" {
		t.Fatalf("band from %+v (ok %v); want the regime's own cell", cells, ok)
	}
	if math.Abs(mid+0.1) > 0.02 || math.Abs(lo-(-0.1-1.645*0.2)) > 0.03 || math.Abs(hi-(-0.1+1.645*0.2)) > 0.03 {
		t.Errorf("90%% band [%.3f, %.3f], median %.3f; want about [-0.429, 0.229], -0.1", lo, hi, mid)
	}
	// An unknown regime falls back to the whole corpus.
	if _, _, _, cells, ok := me.Band(MetricTPOT, profiles.ErrorRegime{Concurrency: "33-63", Phase: "prefill-heavy"}, 0.9); !ok || cells[0].Concurrency != "" || cells[0].Phase != "" {
		t.Errorf("unknown regime used %+v; want the whole corpus's cell", cells)
	}
	for _, c := range coverageOf(res, 0.9) {
		if c.Kind == "phase" {
			continue
		}
		t.Logf("%s %s: %.3f of %d", c.Kind, c.Name, c.Covered, c.Points)
		if c.Covered < 0.86 || c.Covered > 0.94 {
			t.Errorf("%s %s: covered %.3f of %d; want about 0.9", c.Kind, c.Name, c.Covered, c.Points)
		}
	}
	// A deployment's interval is built without its own residuals.
	_, _, _, cells, _ = modelErrorOf(res, "d0", "").Band(MetricTPOT, profiles.ErrorRegime{Concurrency: "2-32", Phase: "decode-heavy"}, 0.9)
	if cells[0].Points != 39*60 || cells[0].Deployments != 39 {
		t.Errorf("leaving d0 out: the cell has %d points of %d deployments; want 2340 of 39", cells[0].Points, cells[0].Deployments)
	}
}

// TestModelErrorYAML: what --model-error writes loads back as a profiles
// file whose bands are the residuals' (to the four digits kept), headed by
// its provenance and coverage.
func TestModelErrorYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var res []residual
	for d := range 12 {
		gen := "hopper"
		if d%3 == 0 {
			gen = "ampere"
		}
		for range 30 {
			res = append(res, residual{MetricTTFT, "2-32", "prefill-heavy", fmt.Sprint("d", d), gen, 0.3 * r.NormFloat64()})
		}
	}
	sb := &Scoreboard{ModelError: modelErrorOf(res, "", "test"), Coverage: coverageOf(res, 0.9)}
	data, err := ModelErrorYAML(sb, "corpus-dir", time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--corpus corpus-dir --model-error", "on 2026-12-02", "coverage of the 90% intervals: ttft"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the file's head lacks %q:\n%s", want, data)
		}
	}
	var cat profiles.Catalog
	if err := cat.LoadYAML("model-error.yaml", data); err != nil {
		t.Fatal(err)
	}
	for _, reg := range []profiles.ErrorRegime{{Concurrency: "2-32", Phase: "prefill-heavy", Generation: "ampere"}, {Concurrency: "1", Generation: "hopper"}} {
		lo, mid, hi, cells, _ := sb.ModelError.Band(MetricTTFT, reg, 0.9)
		blo, bmid, bhi, bcells, ok := cat.ModelError.Band(MetricTTFT, reg, 0.9)
		if !ok || len(cells) != len(bcells) || math.Abs(lo-blo) > 1e-3 || math.Abs(mid-bmid) > 1e-3 || math.Abs(hi-bhi) > 1e-3 {
			t.Errorf("%+v: loaded band [%g %g %g] from %d cells; written [%g %g %g] from %d", reg, blo, bmid, bhi, len(bcells), lo, mid, hi, len(cells))
		}
	}
	if _, err := ModelErrorYAML(&Scoreboard{}, "x", time.Now()); err == nil {
		t.Error("a scoreboard without residuals wrote a file")
	}
}
