package sim

import (
	"fmt"
	"slices"
	"strings"
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

// OutsideCorpus says how the deployment lies outside what the measurement
// corpus covers (the GPU's points in profiles/data/step-fit.yaml): no
// point on its GPU, none at its TP, none of a dense or MoE model like it,
// none with its weight format, or a load beyond the largest measured; ""
// when it lies inside. A prediction outside rests on coefficients fitted on
// other deployments, with larger errors than the fidelity scoreboard
// (docs/fidelity.md).
func (c *Config) OutsideCorpus(concurrency int) string {
	cv := c.GPU.Coverage
	if cv == nil {
		return fmt.Sprintf("no measurement on %s in the fidelity corpus (its step coefficients: %s)", c.GPU.Name, c.GPU.StepSource)
	}
	var why []string
	if tp := max(c.TensorParallelSize, 1); !slices.Contains(cv.TP, tp) {
		why = append(why, fmt.Sprintf("TP %d (measured: %s)", tp, joinInts(cv.TP)))
	}
	if a := c.Architecture(); !slices.Contains(cv.Architectures, a) {
		why = append(why, "a "+a+" model")
	}
	if w := c.WeightFormat(); !slices.Contains(cv.Weights, w) {
		why = append(why, w+" weights (measured: "+strings.Join(cv.Weights, ", ")+")")
	}
	if concurrency > cv.MaxConcurrency {
		why = append(why, fmt.Sprintf("%d requests in flight (measured up to %d)", concurrency, cv.MaxConcurrency))
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("the fidelity corpus has no measurement on %s with %s", c.GPU.Name, strings.Join(why, ", "))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
