package fidelity

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/calibrate"
)

// TestSelectFitSettings is the offline selection of the fit's
// hyperparameters (calibrate.DefaultFitSettings) by leave-one-model-family-out
// cross-validation: the corpus replayed once at the profiles' coefficients,
// then every setting of the grid refitted and cross-validated on the
// points' linear models (calibrate.ScoreSettings). It takes minutes and
// runs only when asked: THINKCAP_SELECT=1 go test ./fidelity -run
// TestSelectFitSettings -v. docs/step-model.md holds its last table.
func TestSelectFitSettings(t *testing.T) {
	if os.Getenv("THINKCAP_SELECT") == "" {
		t.Skip("the hyperparameter selection runs offline: THINKCAP_SELECT=1")
	}
	c, err := (&Options{Corpus: "../testdata/measured"}).corpus()
	if err != nil {
		t.Fatal(err)
	}
	obs := c.observations()
	fit := calibrate.NewAggregateFit(obs, c.hold, c.workers, nil)
	groups, fallback, err := fit.AtProfiles()
	if err != nil {
		t.Fatal(err)
	}
	points := c.replayable()
	family := func(i int) string { return c.points[points[i]].cfg.Model.Lineage() }
	base := calibrate.DefaultFitSettings
	var grid []calibrate.FitSettings
	for _, shrink := range strings.Fields(envOr("THINKCAP_SELECT_SHRINK", "0 0.001 0.01 0.1")) {
		for _, tie := range strings.Fields(envOr("THINKCAP_SELECT_TIE", "0 0.001 0.01 0.1")) {
			for _, capShare := range strings.Fields(envOr("THINKCAP_SELECT_CAP", "0 0.5")) {
				for _, huber := range strings.Fields(envOr("THINKCAP_SELECT_HUBER", "0.15")) {
					s := base
					fmt.Sscan(shrink, &s.Shrink)
					fmt.Sscan(tie, &s.Tie)
					fmt.Sscan(capShare, &s.SourceCap)
					fmt.Sscan(huber, &s.HuberDelta)
					grid = append(grid, s)
				}
			}
		}
	}
	t.Logf("| shrink | tie | source cap | huber | family-out TPOT | TTFT | throughput | deployment-out TPOT | TTFT | throughput | in-sample TPOT | TTFT | throughput | bias TPOT | throughput | family-out bias TPOT | throughput |")
	for _, s := range grid {
		sc, err := fit.ScoreSettings(groups, fallback, s, family)
		if err != nil {
			t.Fatal(err)
		}
		p := func(m map[string]float64, k string) string { return fmt.Sprintf("%.1f", 100*m[k]) }
		t.Logf("| %g | %g | %g | %g | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", s.Shrink, s.Tie, s.SourceCap, s.HuberDelta,
			p(sc.CVFamily, "tpot"), p(sc.CVFamily, "ttft"), p(sc.CVFamily, "throughput"),
			p(sc.CVDeployment, "tpot"), p(sc.CVDeployment, "ttft"), p(sc.CVDeployment, "throughput"),
			p(sc.InSample, "tpot"), p(sc.InSample, "ttft"), p(sc.InSample, "throughput"),
			p(sc.Bias, "tpot"), p(sc.Bias, "throughput"), p(sc.CVFamilyBias, "tpot"), p(sc.CVFamilyBias, "throughput"))
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
