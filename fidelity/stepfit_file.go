package fidelity

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
)

// StepFitsYAML is the scoreboard's fits as a profiles file (a step_fits:
// list, as profiles/data/step-fit.yaml), headed by the fit's provenance:
// the corpus, when, how many points of which sources, how the metrics
// weigh, and the cross-validated errors.
func StepFitsYAML(sb *Scoreboard, corpus string, now time.Time) ([]byte, error) {
	fits := make([]profiles.StepFit, len(sb.Fits))
	for i, f := range sb.Fits {
		f.CVTPOT, f.CVTTFT = calibrate.Round(f.CVTPOT, 3), calibrate.Round(f.CVTTFT, 3)
		f.CVFamilyTPOT, f.CVFamilyTTFT = calibrate.Round(f.CVFamilyTPOT, 3), calibrate.Round(f.CVFamilyTTFT, 3)
		f.CVFamilyThroughput = calibrate.Round(f.CVFamilyThroughput, 3)
		fits[i] = f
	}
	head := fmt.Sprintf(`Step-time coefficients fitted on the measurement corpus by
  thinkcap calibrate --corpus %s --out <this file>
on %s: %d load points replayed of %d records, from %d sources.
Each generation's coefficients are fitted on its own points (efficiencies
are fractions of each GPU's datasheet peaks, so a generation's GPUs share
them), held near "all", the pooled fit of every point, where its points
do not tell (shrink %g); "all" is what a GPU whose generation has none
takes. The FP8 experts' efficiencies are pulled towards the other
experts' (tie %g); every coefficient is held to its physical range
(profiles/gpu.go). Each point's relative errors weigh %g (TPOT), %g
(saturated throughput) and %g (TTFT) in the fit, a Huber least squares
(band %g; calibrate.AggregateFit; the settings chosen by
leave-one-family-out cross-validation, docs/step-model.md).
cv_tpot and cv_ttft are the leave-one-deployment-out mean absolute relative
errors of TPOT and TTFT on the generation's points; cv_family_* the same
(and saturated throughput's) with each model family held out of the fit at
once, what simulate and size quote for a family the corpus lacks. The
coverage says, per GPU, what its points span: simulate and size warn of a
deployment outside it. In-sample MAPE: TPOT
%.1f%%, TTFT %.1f%%; cross-validated: TPOT %.1f%%, TTFT %.1f%%.`,
		corpus, now.UTC().Format("2006-01-02"), sb.Points, sb.Records, sb.Sources,
		calibrate.DefaultFitSettings.Shrink, calibrate.DefaultFitSettings.Tie,
		calibrate.AggregateWeights[MetricTPOT], calibrate.AggregateWeights[MetricThroughput], calibrate.AggregateWeights[MetricTTFT],
		calibrate.DefaultFitSettings.HuberDelta,
		100*sb.MAPE[MetricTPOT], 100*sb.MAPE[MetricTTFT], 100*sb.CVMAPE[MetricTPOT], 100*sb.CVMAPE[MetricTTFT])
	return calibrate.StepFitsFile(fits, head)
}

// ModelErrorYAML is the scoreboard's model error as a profiles file (a
// model_error: mapping, as profiles/data/model-error.yaml), headed by its
// provenance and coverage.
func ModelErrorYAML(sb *Scoreboard, corpus string, now time.Time) ([]byte, error) {
	if sb.ModelError == nil || len(sb.ModelError.Metrics) == 0 {
		return nil, fmt.Errorf("no cross-validated residuals to write")
	}
	me := *sb.ModelError
	me.Metrics = map[string][]profiles.ModelErrorCell{}
	for m, cells := range sb.ModelError.Metrics {
		for _, c := range cells {
			c.Q = slices.Clone(c.Q)
			for i := range c.Q {
				c.Q[i] = calibrate.Round(c.Q[i], calibrate.Digits)
			}
			me.Metrics[m] = append(me.Metrics[m], c)
		}
	}
	var cov []string
	for _, c := range sb.Coverage {
		if c.Kind == "all" {
			cov = append(cov, fmt.Sprintf("%s %.1f%% of %d", c.Metric, 100*c.Covered, c.Points))
		}
	}
	head := fmt.Sprintf(`The step model's error on real vLLM measurements, written by
  thinkcap fidelity --corpus %s --model-error <this file>
on %s: per metric and regime (concurrency per replica, phase), quantiles of
ln(measured/predicted) at the levels, over the corpus's points each predicted
by coefficients fitted without its deployment. simulate, size and verify
widen their predictions by it (--confidence). Leave-one-deployment-out
coverage of the %.0f%% intervals: %s.`,
		corpus, now.UTC().Format("2006-01-02"), 100*CoverageConfidence, strings.Join(cov, ", "))
	return profiles.EncodeYAML(struct {
		ModelError *profiles.ModelError `yaml:"model_error"`
	}{&me}, head)
}

// WriteModelError writes ModelErrorYAML to path.
func WriteModelError(path string, sb *Scoreboard, corpus string) error {
	data, err := ModelErrorYAML(sb, corpus, time.Now())
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return inputerr.Field("ModelError", err)
	}
	return nil
}

// WriteStepFits writes StepFitsYAML to path.
func WriteStepFits(path string, sb *Scoreboard, corpus string) error {
	data, err := StepFitsYAML(sb, corpus, time.Now())
	if err != nil {
		return err
	}
	return calibrate.WriteFile(path, data)
}
