package profiles

import (
	"errors"
	"fmt"
	"strings"
)

// FallbackGeneration names the step fit over every generation's points
// together: the coefficients of a GPU whose generation the measurement
// corpus has no point of.
const FallbackGeneration = "all"

// StepFit is step-time coefficients fitted on the measurement corpus
// (testdata/measured) for one GPU generation by `thinkcap calibrate
// --corpus`: profiles/data/step-fit.yaml holds them, with the fit's
// provenance in its head comment.
type StepFit struct {
	Generation  string   `yaml:"generation" json:"generation"`
	GPUs        []string `yaml:"gpus" json:"gpus"`               // the GPUs whose points it was fitted on
	Points      int      `yaml:"points" json:"points"`           // corpus points fitted on
	Deployments int      `yaml:"deployments" json:"deployments"` // distinct model × GPU × TP × dtype
	// CVTPOT and CVTTFT are the leave-one-deployment-out mean absolute
	// relative errors of TPOT and TTFT on these points when fitted.
	CVTPOT float64          `yaml:"cv_tpot" json:"cv_tpot"`
	CVTTFT float64          `yaml:"cv_ttft" json:"cv_ttft"`
	Step   StepCoefficients `yaml:"step" json:"step"`
	// Coverage is, per GPU of the generation, what its points span.
	Coverage []Coverage `yaml:"coverage,omitempty" json:"coverage,omitempty"`
}

func (f *StepFit) problems() []error {
	var errs []error
	if f.Generation == "" {
		errs = append(errs, errors.New("step fit: generation is empty"))
	}
	if f.Points <= 0 {
		errs = append(errs, fmt.Errorf("step fit %s: points must be > 0", f.Generation))
	}
	return append(errs, f.Step.problems(false, "step fit "+f.Generation+": step.")...)
}

// applyStepFit gives g its generation's fitted coefficients (every one
// the fit moves; fp8_kv_read_penalty stays the profile's), or the fit over
// every generation when its own has none, keeping the profile's block in
// StepPrior and saying which in StepSource.
func (c *Catalog) applyStepFit(g *GPU) {
	fit, ok := c.StepFits[g.Generation]
	source := fmt.Sprintf("fitted on %d corpus points of %s GPUs (%d deployments)", fit.Points, g.Generation, fit.Deployments)
	if !ok || g.Generation == "" {
		fit, ok = c.StepFits[FallbackGeneration]
		gen := g.Generation
		if gen == "" {
			gen = "its unnamed"
		}
		source = fmt.Sprintf("no corpus measurement of %s generation: the fit over every generation (%d points)", gen, fit.Points)
	}
	if !ok {
		g.StepSource = "the profile's own (no step fit loaded)"
		return
	}
	g.StepPrior, g.StepSource = g.Step, source
	g.Coverage = nil
	if own, ok := c.StepFits[g.Generation]; ok {
		for i := range own.Coverage {
			if strings.EqualFold(own.Coverage[i].GPU, g.Name) {
				cv := own.Coverage[i]
				g.Coverage = &cv
			}
		}
	}
	for _, f := range StepFields {
		if f.Key != "fp8_kv_read_penalty" {
			*f.Value(&g.Step) = *f.Value(&fit.Step)
		}
	}
}

// Coverage is what the measurement corpus holds for one GPU: the
// deployments and loads its step fit rests on.
type Coverage struct {
	GPU           string   `yaml:"gpu" json:"gpu"`
	Points        int      `yaml:"points" json:"points"`
	TP            []int    `yaml:"tp,flow" json:"tp"`
	Architectures []string `yaml:"architectures,flow" json:"architectures"` // dense, moe
	Weights       []string `yaml:"weights,flow" json:"weights"`             // bf16, fp8, mxfp4, nvfp4, awq
	// MaxConcurrency is the most requests in flight any point had.
	MaxConcurrency int `yaml:"max_concurrency" json:"max_concurrency"`
}
