package fidelity

import (
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/profiles"
)

// TestStepFitsYAMLHeader: the fit file's header is its provenance: the
// corpus, the day, the points, how each metric weighed in the fit (from
// calibrate.AggregateWeights, so a change of the objective shows in the file it
// produces), the fit's settings (calibrate.DefaultFitSettings) and the
// errors; the fits follow, rounded to calibrate.Digits.
func TestStepFitsYAMLHeader(t *testing.T) {
	sb := &Scoreboard{
		Points: 1943, Records: 3028, Sources: 7,
		MAPE:   map[string]float64{MetricTPOT: 0.0857, MetricTTFT: 0.1698},
		CVMAPE: map[string]float64{MetricTPOT: 0.1002, MetricTTFT: 0.1976},
		Fits:   []profiles.StepFit{{Generation: "hopper", Step: profiles.StepCoefficients{ComputeEfficiency: 0.534219}}},
	}
	b, err := StepFitsYAML(sb, "testdata/measured", time.Date(2026, 12, 3, 17, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{
		"#   thinkcap calibrate --corpus testdata/measured --out <this file>",
		"# on 2026-12-03: 1943 load points replayed of 3028 records, from 7 sources.",
		"(shrink 0.001)", "(tie 0.003)", "(band 0.1;",
		"# (profiles/gpu.go). Each point's relative errors weigh 1 (TPOT), 2\n# (saturated throughput) and 0.75 (TTFT) in the fit",
		"In-sample MAPE: TPOT\n# 8.6%, TTFT 17.0%; cross-validated: TPOT 10.0%, TTFT 19.8%.",
		"generation: hopper",
		"compute_efficiency: 0.5342\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the fit file lacks %q:\n%s", want, out)
		}
	}
	if _, err := StepFitsYAML(&Scoreboard{}, "x", time.Now()); err == nil {
		t.Error("a scoreboard without fits wrote a fit file")
	}
}
