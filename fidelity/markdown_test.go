package fidelity

import (
	"strings"
	"testing"
)

// TestWriteMarkdown: the scoreboard as markdown has the terminal table's
// rows (overall, regimes, deployments, coverage, records not replayed) as
// pipe tables, a name's pipe escaped.
func TestWriteMarkdown(t *testing.T) {
	sb := &Scoreboard{
		Records: 3, Points: 2, Sources: 1,
		MAPE:            map[string]float64{MetricTPOT: 0.086},
		CVMAPE:          map[string]float64{MetricTPOT: 0.1},
		CVFamilyMAPE:    map[string]float64{MetricTPOT: 0.2},
		CVSourceMAPE:    map[string]float64{MetricTPOT: 0.3},
		Bias:            map[string]float64{MetricTPOT: -0.04},
		OptimisticShare: 0.25,
		Regimes:         []Regime{{Kind: "concurrency", Name: "1", Points: 2, MAPE: map[string]float64{MetricTPOT: 0.039}}},
		Deployments:     []Regime{{Kind: "deployment", Name: "a|b", Points: 1}},
		Coverage:        []Coverage{{Metric: MetricTPOT, Kind: "all", Name: "all", Points: 2, Confidence: 0.9, Covered: 0.5}},
		Skipped:         []SkipReason{{Reason: "no profile", Records: 1}},
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
		"| concurrency | 1 | 2 | 3.9% | - |",
		`|  | a\|b | 1 |`,
		"| all | all | 50.0% of 2 | - | - |",
		"| no profile | 1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
