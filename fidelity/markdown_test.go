package fidelity

import (
	"strings"
	"testing"
)

// TestWriteMarkdown: the scoreboard as markdown has the terminal table's
// rows (overall, regimes with their family-out error and bias,
// deployments, coverage, exclusions, records not replayed) as pipe
// tables, a name's pipe escaped.
func TestWriteMarkdown(t *testing.T) {
	sb := &Scoreboard{
		Records: 3, Points: 2, Sources: 1,
		MAPE:            map[string]float64{MetricTPOT: 0.086},
		CVMAPE:          map[string]float64{MetricTPOT: 0.1},
		CVFamilyMAPE:    map[string]float64{MetricTPOT: 0.2},
		CVSourceMAPE:    map[string]float64{MetricTPOT: 0.3},
		Bias:            map[string]float64{MetricTPOT: -0.04},
		OptimisticShare: 0.25,
		Regimes: []Regime{{Kind: "concurrency", Name: "1", Points: 2, MAPE: map[string]float64{MetricTPOT: 0.039},
			CVFamilyMAPE: map[string]float64{MetricTPOT: 0.12}, Bias: map[string]float64{MetricTPOT: 0.051}}},
		Deployments: []Regime{{Kind: "deployment", Name: "a|b", Points: 1}},
		Coverage:    []Coverage{{Metric: MetricTPOT, Kind: "all", Name: "all", Points: 2, Confidence: 0.9, Covered: 0.5}},
		Skipped:     []SkipReason{{Reason: "no profile", Records: 1}},
		Excluded: []Exclusion{{Metric: MetricRecord, Rule: RuleNoModel, Reason: "no profile", Count: 1},
			{Metric: MetricTTFT, Rule: RuleBelowFloor, Reason: "below the floor", Count: 1}},
		MAPECountingExcluded: map[string]float64{MetricTTFT: 0.2},
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, sb); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"2 of 3 corpus records replayed, from 1 sources",
		"| metric | points | error | cv error | cv family | cv source | bias |\n| --- | --- | --- | --- | --- | --- | --- |\n",
		"| TPOT/ITL | 0 | 8.6% | 10.0% | 20.0% | 30.0% | -4.0% |",
		"optimistic share: 25.0% of saturated throughput points predicted more than 15% above the measurement.",
		"| regime |  | points | TPOT | TPOT cv | TPOT fam. | TPOT bias | TTFT | TTFT cv | TTFT fam. | TTFT bias | thr. | thr. cv | thr. fam. | thr. bias |",
		"| concurrency | 1 | 2 | 3.9% | - | 12.0% | +5.1% | - |",
		"counting the TTFTs the exclusion rules leave out: TPOT/ITL -, TTFT 20.0%, throughput -.",
		"| not scored | rule | count | why |",
		"| record | no-model-profile | 1 | no profile |",
		"| TTFT | below-prefill-floor | 1 | below the floor |",
		`|  | a\|b | 1 |`,
		"| all | all | 50.0% of 2 | - | - |",
		"| no profile | 1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
