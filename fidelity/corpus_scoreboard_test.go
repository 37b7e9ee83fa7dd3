package fidelity

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/profiles"
)

// The corpus error bounds this test holds the model to: the figures the
// embedded fit reaches (profiles/data/step-fit.yaml), rounded up, a guard
// against a change that makes the model worse; saturated throughput is
// held to the target of 10 % (docs/fidelity.md), met since the fit weighs it twice
// (calibrate.AggregateWeights, which cost TTFT 0.3 points). The
// other targets are looser than these bounds (TPOT 10 % overall and 15 %
// in every regime of 20 points or more, TTFT 20 %, cross-validated TPOT
// 15 %); docs/fidelity.md says which are met.
var corpusBounds = struct {
	mape, cv map[string]float64
	regime   float64 // TPOT in any row with 20 points or more (GPU, source, weights too)
	// issueRegime is the target for TPOT in every regime of its
	// kinds (concurrency, phase, architecture, TP) with 20 points or more:
	// met since the grouped GEMMs' partial overlap (concurrency >= 256 14.5%).
	issueRegime float64
}{
	mape:        map[string]float64{MetricTPOT: 0.086, MetricTTFT: 0.170, MetricThroughput: 0.100},
	cv:          map[string]float64{MetricTPOT: 0.101, MetricTTFT: 0.198},
	regime:      0.18,
	issueRegime: 0.15,
}

// issueRegimeKinds are the regime kinds the TPOT target covers.
var issueRegimeKinds = []string{"concurrency", "phase", "architecture", "tp"}

// TestCorpusScoreboard replays the measurement corpus (testdata/measured)
// with the embedded profiles: the corpus is as large and as varied as the
// issue asks (400 points, 3 sources, 3 GPUs, dense and MoE, TP 1 to 8,
// concurrency 1 to 256 and more), and the errors stay within the bounds.
func TestCorpusScoreboard(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the whole corpus")
	}
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Run(Options{Corpus: "../testdata/measured", Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	if sb.Points < 400 || sb.Sources < 3 {
		t.Errorf("%d points from %d sources replayed; want 400 from 3", sb.Points, sb.Sources)
	}
	regime := map[string][]string{}
	for _, r := range sb.Regimes {
		regime[r.Kind] = append(regime[r.Kind], r.Name)
	}
	for kind, want := range map[string][]string{
		"architecture": {"dense", "moe"}, "tp": {"tp1", "tp2", "tp4", "tp8"},
		"concurrency": {"1", "256+"},
	} {
		for _, w := range want {
			if !slices.Contains(regime[kind], w) {
				t.Errorf("no %s %s point in the corpus (have %v)", kind, w, regime[kind])
			}
		}
	}
	if n := len(regime["gpu"]); n < 3 {
		t.Errorf("points on %d GPU types (%v); want 3", n, regime["gpu"])
	}
	for m, bound := range corpusBounds.mape {
		if sb.MAPE[m] > bound {
			t.Errorf("%s: corpus MAPE %.1f%%, above the %.1f%% reached", m, 100*sb.MAPE[m], 100*bound)
		}
	}
	for m, bound := range corpusBounds.cv {
		if sb.CVMAPE[m] > bound {
			t.Errorf("%s: cross-validated MAPE %.1f%%, above the %.1f%% reached", m, 100*sb.CVMAPE[m], 100*bound)
		}
	}
	checkCoverage(t, sb, cat)
	var lines []string
	for _, r := range sb.Regimes {
		lines = append(lines, r.Kind+" "+r.Name+": TPOT "+pct(r.MAPE, MetricTPOT)+", cv "+pct(r.CVMAPE, MetricTPOT))
		bound := corpusBounds.regime
		if slices.Contains(issueRegimeKinds, r.Kind) {
			bound = corpusBounds.issueRegime
		}
		if r.N[MetricTPOT] >= 20 && r.MAPE[MetricTPOT] > bound {
			t.Errorf("%s %s (%d points): TPOT MAPE %.1f%%, above %.0f%%", r.Kind, r.Name, r.N[MetricTPOT], 100*r.MAPE[MetricTPOT], 100*bound)
		}
	}
	t.Logf("corpus: %d of %d records replayed, %d sources; MAPE %v, cross-validated %v\n%s",
		sb.Points, sb.Records, sb.Sources, sb.MAPE, sb.CVMAPE, strings.Join(lines, "\n"))
}

// checkCoverage holds the model intervals to their calibration target: on
// the corpus, leave-one-deployment-out, the 90% intervals cover 80–97% of
// the measured values of every metric; and the embedded model-error.yaml
// is the one these residuals give (refit one without the other and this
// fails: make refit writes both).
func checkCoverage(t *testing.T, sb *Scoreboard, cat *profiles.Catalog) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range sb.Coverage {
		if c.Kind != "all" {
			continue
		}
		seen[c.Metric] = true
		t.Logf("%s: the %.0f%% model interval covers %.1f%% of %d points", c.Metric, 100*c.Confidence, 100*c.Covered, c.Points)
		if c.Covered < 0.80 || c.Covered > 0.97 {
			t.Errorf("%s: the %.0f%% model interval covers %.1f%% of %d measured values, outside 80-97%%", c.Metric, 100*c.Confidence, 100*c.Covered, c.Points)
		}
	}
	for _, m := range Metrics3 {
		if !seen[m] {
			t.Errorf("no coverage of %s", m)
		}
	}
	emb := cat.ModelError
	if emb == nil {
		t.Fatal("no model error embedded (profiles/data/model-error.yaml)")
	}
	for m, cells := range sb.ModelError.Metrics {
		for _, c := range cells {
			found := false
			for _, e := range emb.Metrics[m] {
				if e.Concurrency != c.Concurrency || e.Phase != c.Phase || e.Generation != c.Generation {
					continue
				}
				found = e.Points == c.Points
				for i := range c.Q {
					found = found && math.Abs(e.Q[i]-c.Q[i]) < 1e-3
				}
			}
			if !found {
				t.Errorf("%s %q/%q/%q: profiles/data/model-error.yaml is not the corpus's residuals now (run make refit)", m, c.Concurrency, c.Phase, c.Generation)
			}
		}
	}
}
