package fidelity

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/profiles"
)

// TestFamilyHeldOut: two Qwen3 sizes served at one set of coefficients
// and two Llama 3.1 deployments at another (ten times the per-layer
// overhead), each family from a source of its own. Held out by family
// (or source), each family is predicted by what the other's servers
// alone fit: as the other's coefficients predict it, and worse than
// held out by deployment, when the family's other deployment still
// counts. A family-out prediction fitted with any of the family's own
// points, or a grouping that split the Qwen3 sizes, would not be.
func TestFamilyHeldOut(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := cat.GPU("h100-sxm")
	qwen := calibrate.Prior(gpu)
	qwen.PerLayerOverheadUs = 20
	llama := qwen
	llama.PerLayerOverheadUs = 140 // within the physical range (profiles/gpu.go)
	// atOther is each family's TPOT error at the other's coefficients.
	atOther := map[string]float64{}

	var lines []byte
	for _, d := range []struct {
		model, source string
		tp            int
		step, other   profiles.StepCoefficients
	}{{"qwen3-8b", "a", 1, qwen, llama}, {"qwen3-32b", "a", 2, qwen, llama}, {"llama-3.1-8b", "b", 1, llama, qwen}, {"llama-3.1-8b", "b", 2, llama, qwen}} {
		for _, conc := range []int{1, 8, 32} {
			r := Record{ID: fmt.Sprintf("syn-%s-tp%d-c%d", d.model, d.tp, conc), Source: d.source, Ref: Ref{URL: "https://example.org"},
				Model: d.model, GPU: "h100-sxm", TP: d.tp, VLLMVersion: "0.11.0",
				Workload:    Load{Dataset: "random", InputLen: Length{Min: 800, Max: 1000}, OutputLen: Length{Min: 100, Max: 128}},
				Concurrency: conc}
			cfg, skip := config(cat, &r)
			if skip != "" {
				t.Fatal(skip)
			}
			cfg.Step = d.step
			p, err := replay(cfg, &r)
			if err != nil {
				t.Fatal(err)
			}
			r.Measured = Metrics{TPOT: Stat{Mean: p.TPOT.Mean}}
			cfg.Step = d.other
			q, err := replay(cfg, &r)
			if err != nil {
				t.Fatal(err)
			}
			atOther[cfg.Model.Lineage()] += math.Abs(q.TPOT.Mean/p.TPOT.Mean-1) / 6
			b, _ := json.Marshal(r)
			lines = append(append(lines, b...), '\n')
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "syn.jsonl"), lines, 0o644); err != nil {
		t.Fatal(err)
	}
	var hold []string
	for _, p := range calibrate.Params {
		if p.Key != "per_layer_overhead_us" {
			hold = append(hold, p.Key)
		}
	}
	c, err := (&Options{Corpus: dir, Catalog: cat, Hold: hold}).corpus()
	if err != nil {
		t.Fatal(err)
	}
	fit := calibrate.NewAggregateFit(c.observations(), c.hold, c.workers, nil)
	groups, fallback, err := fit.Fit()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.score(fit, groups, fallback); err != nil {
		t.Fatal(err)
	}
	errOf := func(family string, pairs func(*Point) map[string]Pair) float64 {
		sum, n := 0.0, 0
		for _, p := range c.points {
			if p.cfg.Model.Lineage() != family {
				continue
			}
			pr, ok := pairs(p)[MetricTPOT]
			if !ok {
				t.Fatalf("%s: no TPOT pair", p.Record.ID)
			}
			sum += math.Abs(pr.Err())
			n++
		}
		return sum / float64(n)
	}
	famMean := 0.0
	for _, f := range []string{"qwen3", "llama-3"} {
		dep := errOf(f, func(p *Point) map[string]Pair { return p.CV })
		fam := errOf(f, func(p *Point) map[string]Pair { return p.CVFamily })
		famMean += fam / 2
		src := errOf(f, func(p *Point) map[string]Pair { return p.CVSource })
		t.Logf("%s: TPOT error held out by deployment %.1f%%, family %.1f%%, source %.1f%%; at the other family's coefficients %.1f%%",
			f, 100*dep, 100*fam, 100*src, 100*atOther[f])
		if math.Abs(fam-atOther[f]) > 0.02 || math.Abs(src-atOther[f]) > 0.02 || fam <= dep {
			t.Errorf("%s: family-out %.1f%% and source-out %.1f%%, want the other family's coefficients' %.1f%% and above deployment-out's %.1f%%",
				f, 100*fam, 100*src, 100*atOther[f], 100*dep)
		}
	}
	// The fit written (calibrate --corpus) names both families and the
	// kernel they ran in its coverage, what simulate and size judge a
	// deployment by, and the errors
	// held out by family, what they quote for one the corpus lacks.
	f := c.fitOf(groups[0])
	if len(f.Coverage) != 1 || !slices.Equal(f.Coverage[0].Families, []string{"llama-3", "qwen3"}) || !slices.Equal(f.Coverage[0].Kernels, []string{"cuBLAS BF16"}) {
		t.Errorf("coverage %+v, want one GPU with families llama-3 and qwen3, kernels cuBLAS BF16", f.Coverage)
	}
	if math.Abs(f.CVFamilyTPOT-famMean) > 1e-9 || f.CVFamilyThroughput != 0 {
		t.Errorf("family-held-out TPOT %.4f, throughput %.4f; want %.4f (every point's TPOT) and none measured", f.CVFamilyTPOT, f.CVFamilyThroughput, famMean)
	}
}
