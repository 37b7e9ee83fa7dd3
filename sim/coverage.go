package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/profiles"
)

// WeightFormat names the deployment's weights as the fidelity corpus's
// coverage does: --quantization's format, the experts' own format where it
// differs (gpt-oss: "mxfp4 experts"), else the checkpoint's dtype.
func (c *Config) WeightFormat() string {
	if q := c.Quantization; q != "" {
		return q
	}
	if d := c.Model.ExpertWeightDtype; d != "" && d != c.Model.WeightDtype {
		return d + " experts"
	}
	if c.Model.WeightDtype == "" {
		return "bf16"
	}
	return c.Model.WeightDtype
}

// Architecture is "moe" or "dense", as the corpus's coverage says.
func (c *Config) Architecture() string {
	if c.Model.IsMoE() {
		return "moe"
	}
	return "dense"
}

// stepModelSource heads a GPU's StepSource when --step-model gave its
// coefficients: they rest on the user's measurements, not the corpus's.
const stepModelSource = "--step-model "

// Caveats are what of the deployment the measurement corpus has no
// measurement behind (the coverage of its GPU's step fit in
// profiles/data/step-fit.yaml), each a sentence, and the error to expect
// from coefficients fitted on other deployments; nil when it lies inside,
// or when --step-model gave the coefficients. concurrency is the load per
// replica (0: not judged). Eager mode and the LLM class have no corpus
// point at all. The kernels a GPU generation runs are shared
// by its GPUs, so the model family, dense or MoE, weight format, GEMM
// kernels and load are judged against the generation's points; the
// interconnect is the GPU's own, so TP is judged against its own points.
func (c *Config) Caveats(concurrency int) *analysis.Caveats {
	m := c.GPU.Measured
	if m == nil && strings.HasPrefix(c.GPU.StepSource, stepModelSource) {
		return nil
	}
	if m == nil {
		return &analysis.Caveats{
			Unmeasured: []string{fmt.Sprintf("no measurement on %s in the fidelity corpus (its step coefficients: %s)", c.GPU.Name, c.GPU.StepSource)},
			Expect:     expectation(nil),
		}
	}
	var why []string
	on := m.Generation + " GPUs"
	if m.Generation == profiles.FallbackGeneration {
		gen := c.GPU.Generation
		if gen == "" {
			gen = "its (unnamed)"
		}
		why = append(why, fmt.Sprintf("no measurement on %s GPUs (%s): its step coefficients are the fit over every generation's points", gen, c.GPU.Name))
		on = "any GPU"
	} else if m.Own == nil {
		why = append(why, fmt.Sprintf("no measurement on %s itself: it takes the %s fit, measured on %s", c.GPU.Name, m.Generation, strings.Join(m.GPUs, ", ")))
	}
	if f := c.Model.Lineage(); len(m.Families) > 0 {
		switch {
		case !slices.Contains(m.Families, f):
			why = append(why, fmt.Sprintf("no measurement of the %s model family in the fidelity corpus", f))
		case !slices.Contains(m.Fit.Families, f):
			why = append(why, fmt.Sprintf("no measurement of the %s model family on %s", f, on))
		}
	}
	if a := c.Architecture(); !slices.Contains(m.Fit.Architectures, a) {
		why = append(why, fmt.Sprintf("no measurement of a %s model on %s", a, on))
	}
	if w := c.WeightFormat(); !slices.Contains(m.Fit.Weights, w) {
		why = append(why, fmt.Sprintf("no measurement of %s weights on %s (measured: %s)", w, on, strings.Join(m.Fit.Weights, ", ")))
	}
	if tp := max(c.TensorParallelSize, 1); m.Own != nil && !slices.Contains(m.Own.TP, tp) {
		why = append(why, fmt.Sprintf("no measurement at TP %d on %s (measured: TP %s)", tp, c.GPU.Name, joinInts(m.Own.TP)))
	}
	for _, k := range c.kernelsUnmeasured(m) {
		why = append(why, fmt.Sprintf("no measurement of the %s kernels on %s: they are priced at the fitted efficiency of others", k, on))
	}
	if c.EnforceEager {
		why = append(why, fmt.Sprintf("no measurement in eager mode (--enforce-eager): its kernel launches are priced at eager_launch_us, %g µs each (vLLM's own figure, not fitted)", c.Step.EagerLaunchUs))
	}
	if c.LLMClass() {
		why = append(why, "no measurement of the LLM class (--entry-point llm): its tokenizer is priced at the API server's fitted api_prompt_token_us")
	}
	if concurrency > m.Fit.MaxConcurrency {
		why = append(why, fmt.Sprintf("no measurement above %d requests in flight on %s (this deployment: %d)", m.Fit.MaxConcurrency, on, concurrency))
	}
	if len(why) == 0 {
		return nil
	}
	return &analysis.Caveats{Unmeasured: why, Expect: expectation(m)}
}

// kernelsUnmeasured are the GEMM kernels of c (Kernels) that no point of
// the fit ran, as its coverage records them; for a fit written before the
// coverage named kernels, those the kernel table says no corpus point or
// kernel measurement prices (UnmeasuredKernels).
func (c *Config) kernelsUnmeasured(m *profiles.Measured) []string {
	if len(m.Fit.Kernels) == 0 {
		return c.UnmeasuredKernels()
	}
	var out []string
	k := c.Kernels()
	for _, name := range []string{k.Linear, k.Experts} {
		if name != "" && !slices.Contains(m.Fit.Kernels, name) {
			out = append(out, name)
		}
	}
	return out
}

// expectation is what to expect of a prediction outside the corpus: the
// error the fit makes on a model family held out of it, or more, and how
// to do better.
func expectation(m *profiles.Measured) string {
	const measure = "to predict it from measurements, run `thinkcap loadtest` on the deployment and fit them with `thinkcap calibrate RUN_DIR --out fit.yaml`, then pass --step-model fit.yaml"
	if m == nil || m.CVFamily["tpot"] == 0 {
		return "expect larger errors than the fidelity scoreboard's (docs/fidelity.md); " + measure
	}
	var errs []string
	for _, k := range []struct{ key, name string }{{"tpot", "TPOT"}, {"ttft", "TTFT"}, {"throughput", "saturated throughput"}} {
		if v, ok := m.CVFamily[k.key]; ok {
			errs = append(errs, fmt.Sprintf("%s %.0f%%", k.name, 100*v))
		}
	}
	fit := "the " + m.Generation + " fit"
	if m.Generation == profiles.FallbackGeneration {
		fit = "the fit over every generation"
	}
	return fmt.Sprintf("expect errors like %s or larger (%s's mean error on a model family held out of it, docs/fidelity.md); %s",
		strings.Join(errs, ", "), fit, measure)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
