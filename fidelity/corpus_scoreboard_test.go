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
// against a change that makes the model worse. They rose, the model
// unchanged, when 21 records left out for want of a name replayed
// (quantized checkpoints' ids and the Meta-Llama-3.1 names resolved, "H100
// NVL" read as h100-nvl): Crusoe's L40S runs, whose Ada FP8 TPOT is up to
// 38 % too fast, and an H100 NVL run whose saturated throughput is 66 %
// too high, which puts throughput above its 10 % target (docs/fidelity.md;
// met before, the fit weighing it twice, calibrate.AggregateWeights). The
// other targets are looser than these bounds (TPOT 10 % overall and 15 %
// in every regime of 20 points or more, TTFT 20 %, cross-validated TPOT
// 15 %); docs/fidelity.md says which are met. The family-out and
// source-out errors, the error counting the excluded TTFTs, the bias and
// the optimistic share are ceilings at the figures reached plus half a
// point (a point for the bias): a change that drops hard points, or
// makes the model worse where the corpus has no twin, fails here.
//
// The fit that set them trades a little in sample for much out of it:
// every coefficient held to its physical range, the FP8 experts pulled
// towards the others, each generation held near the pooled fit
// (calibrate.DefaultFitSettings, chosen by family-out cross-validation),
// attention at the FP8 rate with an fp8 KV cache on Hopper and Blackwell
// and activation traffic at the datasheet bandwidth. Family-out errors
// went from TPOT 24.0%, TTFT 32.6%, throughput 24.3% to 13.1%, 27.5%,
// 17.5%, source-out from 22.9%, 30.5%, 24.2% to 18.8%, 27.7%, 16.8%; in
// sample from 8.6%, 18.4%, 10.1% to 8.9%, 17.8%, 10.4%; deployment-out
// from 10.2%, 20.0%, 13.4% to 10.3%, 23.5%, 13.3% (TTFT: Crusoe's
// open-loop L40S runs near saturation, where a held-out deployment's
// slightly slower fit tips the queue: 3.5 points of the 23.5); the
// optimistic share from 9.2% to 11.0%; TPOT bias at concurrency 33-63
// from -7.0% to -9.2% and at 256+ from -4.7% to -8.3%. A KV read that
// loses streaming efficiency with the batch's KV working set
// (kv_scatter_us_per_gb2) then took the TPOT bias at 256+ to -6.0% and
// source-out TPOT from 18.8% to 15.7%, every other figure within 0.1 point
// or lower but the TTFT bias (-4.3% to -4.7%).
//
// A change that adds records or resolves more models (new points, often
// out of sample) may move these bounds to the figures it reaches, and must
// say in its message the figures on the old points and on the new ones; a
// change to the model or the fit may only lower them.
var corpusBounds = struct {
	mape, cv, cvFamily, cvSource, countingExcluded map[string]float64
	// bias bounds |median signed error| overall per metric.
	bias       map[string]float64
	optimistic float64
	regime     float64 // TPOT in any row with 20 points or more (GPU, source, weights too)
	// issueRegime bounds TPOT in every regime of its kinds (concurrency,
	// phase, architecture, TP) with 20 points or more: the target is 15%,
	// concurrency 33-63 is at 14.6%.
	issueRegime float64
	// regimeBias bounds |bias| of TPOT and throughput in every regime of
	// those kinds with 20 points or more of the metric (the issue's
	// target is 5 %; concurrency 33-63 is at -9.3 % and 256+ at -6.0 % on
	// TPOT, TP 2 at +5.0 % on throughput).
	regimeBias map[string]float64
}{
	mape:             map[string]float64{MetricTPOT: 0.088, MetricTTFT: 0.186, MetricThroughput: 0.105},
	cv:               map[string]float64{MetricTPOT: 0.103, MetricTTFT: 0.236, MetricThroughput: 0.132},
	cvFamily:         map[string]float64{MetricTPOT: 0.136, MetricTTFT: 0.278, MetricThroughput: 0.180},
	cvSource:         map[string]float64{MetricTPOT: 0.162, MetricTTFT: 0.279, MetricThroughput: 0.172},
	countingExcluded: map[string]float64{MetricTPOT: 0.088, MetricTTFT: 0.218, MetricThroughput: 0.105},
	bias:             map[string]float64{MetricTPOT: 0.014, MetricTTFT: 0.054, MetricThroughput: 0.024},
	optimistic:       0.115,
	regime:           0.19,
	issueRegime:      0.147,
	regimeBias:       map[string]float64{MetricTPOT: 0.102, MetricThroughput: 0.061},
}

// corpusReplayed and corpusExcluded pin what the scoreboard counts: the
// records read and replayed, and every record or metric left out, by
// rule (Exclusion). A point can leave the scoreboard only by a change
// that edits this table, in review. A change that resolves more models
// or adds records updates it with the new counts.
var (
	corpusRecords, corpusReplayed = 3048, 1964
	corpusExcluded                = map[[2]string]int{
		{MetricRecord, RuleNoModel}:         1059,
		{MetricRecord, RuleDataParallel}:    24,
		{MetricRecord, RuleCapacity}:        1,
		{MetricTPOT, RuleNotMeasured}:       27,
		{MetricTTFT, RuleNotMeasured}:       20,
		{MetricTTFT, RuleBelowFloor}:        9,
		{MetricTTFT, RuleTestRunCached}:     5,
		{MetricThroughput, RuleNotMeasured}: 1652,
		{MetricThroughput, RuleUnsaturated}: 39,
	}
)

// issueRegimeKinds are the regime kinds the TPOT target covers.
var issueRegimeKinds = []string{"concurrency", "phase", "architecture", "tp"}

// TestCorpusScoreboard replays the measurement corpus (testdata/measured)
// with the embedded profiles: the records replayed and every exclusion are
// the ones pinned (corpusExcluded), the corpus is varied (3 sources or
// more, 3 GPUs, dense and MoE, TP 1 to 8, concurrency 1 to 256 and more),
// and the errors stay within the bounds.
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
	if sb.Records != corpusRecords || sb.Points != corpusReplayed || sb.Sources < 3 {
		t.Errorf("%d of %d records replayed from %d sources; want %d of %d from 3 or more (corpusReplayed)",
			sb.Points, sb.Records, sb.Sources, corpusReplayed, corpusRecords)
	}
	checkExcluded(t, sb)
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
	for _, c := range []struct {
		what   string
		got    map[string]float64
		bounds map[string]float64
	}{
		{"cross-validated MAPE", sb.CVMAPE, corpusBounds.cv},
		{"family-out MAPE", sb.CVFamilyMAPE, corpusBounds.cvFamily},
		{"source-out MAPE", sb.CVSourceMAPE, corpusBounds.cvSource},
		{"MAPE counting the excluded figures", sb.MAPECountingExcluded, corpusBounds.countingExcluded},
	} {
		for m, bound := range c.bounds {
			if v, ok := c.got[m]; !ok || v > bound {
				t.Errorf("%s: %s %.1f%%, above the %.1f%% reached", m, c.what, 100*v, 100*bound)
			}
		}
	}
	for m, bound := range corpusBounds.bias {
		if v, ok := sb.Bias[m]; !ok || math.Abs(v) > bound {
			t.Errorf("%s: bias %+.1f%%, beyond ±%.1f%%", m, 100*v, 100*bound)
		}
	}
	if sb.OptimisticShare > corpusBounds.optimistic {
		t.Errorf("optimistic share %.1f%%, above %.1f%%", 100*sb.OptimisticShare, 100*corpusBounds.optimistic)
	}
	checkCoverage(t, sb, cat)
	var lines []string
	for _, r := range sb.Regimes {
		lines = append(lines, r.Kind+" "+r.Name+": TPOT "+pct(r.MAPE, MetricTPOT)+", cv "+pct(r.CVMAPE, MetricTPOT)+
			", family-out "+pct(r.CVFamilyMAPE, MetricTPOT)+", bias "+signedPct(r.Bias, MetricTPOT)+"; throughput bias "+signedPct(r.Bias, MetricThroughput))
		bound := corpusBounds.regime
		if slices.Contains(issueRegimeKinds, r.Kind) {
			bound = corpusBounds.issueRegime
		}
		if r.N[MetricTPOT] >= 20 && r.MAPE[MetricTPOT] > bound {
			t.Errorf("%s %s (%d points): TPOT MAPE %.1f%%, above %.0f%%", r.Kind, r.Name, r.N[MetricTPOT], 100*r.MAPE[MetricTPOT], 100*bound)
		}
		for m, bound := range corpusBounds.regimeBias {
			if slices.Contains(issueRegimeKinds, r.Kind) && r.N[m] >= 20 && math.Abs(r.Bias[m]) > bound {
				t.Errorf("%s %s (%d points): %s bias %+.1f%%, beyond ±%.1f%%", r.Kind, r.Name, r.N[m], m, 100*r.Bias[m], 100*bound)
			}
		}
	}
	t.Logf("corpus: %d of %d records replayed, %d sources; MAPE %v, cross-validated %v, family-out %v, source-out %v, counting the excluded %v; bias %v, optimistic %.3f\n%s",
		sb.Points, sb.Records, sb.Sources, sb.MAPE, sb.CVMAPE, sb.CVFamilyMAPE, sb.CVSourceMAPE, sb.MAPECountingExcluded, sb.Bias, sb.OptimisticShare, strings.Join(lines, "\n"))
}

// checkExcluded holds the scoreboard's exclusions to corpusExcluded, and
// checks they account for every record and every metric of every point.
func checkExcluded(t *testing.T, sb *Scoreboard) {
	t.Helper()
	got := map[[2]string]int{}
	records, slots := 0, map[string]int{}
	for _, e := range sb.Excluded {
		got[[2]string{e.Metric, e.Rule}] = e.Count
		if e.Reason == "" {
			t.Errorf("%s %s: no reason", e.Metric, e.Rule)
		}
		if e.Metric == MetricRecord {
			records += e.Count
		} else {
			slots[e.Metric] += e.Count
		}
	}
	for k, n := range got {
		if corpusExcluded[k] != n {
			t.Errorf("%s left out by %s: %d, want %d (corpusExcluded)", k[0], k[1], n, corpusExcluded[k])
		}
	}
	for k, n := range corpusExcluded {
		if _, ok := got[k]; !ok {
			t.Errorf("%s left out by %s: none, want %d (corpusExcluded)", k[0], k[1], n)
		}
	}
	if records+sb.Points != sb.Records {
		t.Errorf("%d records left out and %d replayed of %d read", records, sb.Points, sb.Records)
	}
	for _, m := range Metrics3 {
		scored := 0
		for _, r := range sb.Rows {
			if _, ok := r.Metrics[m]; ok {
				scored++
			}
		}
		if scored+slots[m] != sb.Points {
			t.Errorf("%s: %d scored and %d left out of %d points", m, scored, slots[m], sb.Points)
		}
	}
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
