package profiles

import (
	"errors"
	"fmt"
	"maps"
	"slices"
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
	CVTPOT float64 `yaml:"cv_tpot" json:"cv_tpot"`
	CVTTFT float64 `yaml:"cv_ttft" json:"cv_ttft"`
	// CVFamilyTPOT, CVFamilyTTFT and CVFamilyThroughput are the same
	// errors (and saturated throughput's) with every point of a model
	// family predicted by coefficients fitted without any of them: what
	// a deployment of a family the corpus lacks may expect. 0: not
	// reported (a fit written before they were).
	CVFamilyTPOT       float64          `yaml:"cv_family_tpot,omitempty" json:"cv_family_tpot,omitempty"`
	CVFamilyTTFT       float64          `yaml:"cv_family_ttft,omitempty" json:"cv_family_ttft,omitempty"`
	CVFamilyThroughput float64          `yaml:"cv_family_throughput,omitempty" json:"cv_family_throughput,omitempty"`
	Step               StepCoefficients `yaml:"step" json:"step"`
	// Coverage is, per GPU of the generation, what its points span.
	Coverage []Coverage `yaml:"coverage,omitempty" json:"coverage,omitempty"`
}

// CVFamily is the family-held-out errors by metric (tpot, ttft,
// throughput), leaving out those not reported.
func (f *StepFit) CVFamily() map[string]float64 {
	out := map[string]float64{}
	for m, v := range map[string]float64{"tpot": f.CVFamilyTPOT, "ttft": f.CVFamilyTTFT, "throughput": f.CVFamilyThroughput} {
		if v > 0 {
			out[m] = v
		}
	}
	return out
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
// StepPrior, saying which in StepSource and what the fit rests on in
// Measured.
func (c *Catalog) applyStepFit(g *GPU) {
	g.Measured = nil
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
	g.Measured = c.measured(g, &fit)
	for _, f := range StepFields {
		if f.Key != "fp8_kv_read_penalty" {
			*f.Value(&g.Step) = *f.Value(&fit.Step)
		}
	}
}

// Measured is what the measurement corpus holds behind a GPU's step
// coefficients: what the points of the fit it takes span, its own points,
// and every model family of the corpus. simulate and size warn of a
// deployment outside it (sim.Config.Caveats).
type Measured struct {
	// Generation is the fit's: the GPU's own, or FallbackGeneration when
	// the corpus has no point of the GPU's generation.
	Generation string
	// GPUs are the GPUs the fit's points are on.
	GPUs []string
	// Fit is what the fit's points span, every GPU of them together (GPU
	// empty); Own is the GPU's own points, nil when it has none.
	Fit Coverage
	Own *Coverage
	// Families are the model families (Model.Lineage) of every point of
	// the corpus, any generation; empty for a fit written before the
	// coverage named families.
	Families []string
	// CVFamily is the fit's leave-one-model-family-out mean absolute
	// relative error per metric (tpot, ttft, throughput) on its points:
	// what a model family the corpus lacks may expect. Empty for a fit
	// written before the fit reported it.
	CVFamily map[string]float64
}

// measured is what fit, the step fit g takes, rests on.
func (c *Catalog) measured(g *GPU, fit *StepFit) *Measured {
	m := &Measured{Generation: fit.Generation, GPUs: fit.GPUs, CVFamily: fit.CVFamily()}
	var all []Coverage
	for _, gen := range slices.Sorted(maps.Keys(c.StepFits)) {
		all = append(all, c.StepFits[gen].Coverage...)
	}
	m.Families = Union(all).Families
	if fit.Generation == FallbackGeneration {
		m.Fit = Union(all)
		return m
	}
	m.Fit = Union(fit.Coverage)
	for i := range fit.Coverage {
		if strings.EqualFold(fit.Coverage[i].GPU, g.Name) {
			own := fit.Coverage[i]
			m.Own = &own
		}
	}
	return m
}

// Union is what the coverages span together (GPU empty).
func Union(covs []Coverage) Coverage {
	var u Coverage
	for _, c := range covs {
		u.Points += c.Points
		u.TP = append(u.TP, c.TP...)
		u.Architectures = append(u.Architectures, c.Architectures...)
		u.Weights = append(u.Weights, c.Weights...)
		u.Families = append(u.Families, c.Families...)
		u.Kernels = append(u.Kernels, c.Kernels...)
		u.MaxConcurrency = max(u.MaxConcurrency, c.MaxConcurrency)
	}
	for _, s := range []*[]string{&u.Architectures, &u.Weights, &u.Families, &u.Kernels} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	slices.Sort(u.TP)
	u.TP = slices.Compact(u.TP)
	return u
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
	// Families are the model families (Model.Lineage) of the points.
	Families []string `yaml:"families,flow,omitempty" json:"families,omitempty"`
	// Kernels are the GEMM kernels the points ran, linear layers' and
	// routed experts' (sim.Config.Kernels).
	Kernels []string `yaml:"kernels,flow,omitempty" json:"kernels,omitempty"`
}
