package profiles

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Each Validate reports every problem at once (errors.Join), each naming the
// profile, so that a user fixing a file sees the whole list in one run. The
// unexported problems methods return the unjoined list, so that the loader can
// prefix each with file:line.

// Validate reports every problem of the GPU profile.
func (g *GPU) Validate() error { return errors.Join(g.problems()...) }

func (g *GPU) problems() []error {
	var p checker
	p.name(g.Name)
	p.positive("memory_gib", g.MemoryGiB)
	p.positive("memory_bandwidth_gbps", g.MemoryBandwidthGBps)
	p.positive("bf16_tflops", g.BF16TFLOPS)
	p.nonNegative("fp8_tflops", g.FP8TFLOPS)
	p.nonNegative("fp4_tflops", g.FP4TFLOPS)
	// Every GPU has some path to its peers (PCIe at least); the step model
	// divides by this for tensor parallelism.
	p.positive("interconnect_gbps", g.InterconnectGBps)
	p.nonNegativeInt("gpus_per_node", g.GPUsPerNode)
	p.nonNegative("network_gbps", g.NetworkGBps)
	if g.GPUsPerNode > 0 && g.NetworkGBps <= 0 {
		p.addf("network_gbps must be set with gpus_per_node (%d): a replica of more GPUs crosses the network", g.GPUsPerNode)
	}
	p.nonNegative("price_per_hour", g.PricePerHour)
	p.errs = append(p.errs, g.Step.problems(false, "step.")...)
	return p.prefixed(fmt.Sprintf("gpu %q", g.Name))
}

// Validate reports every problem of a complete set of coefficients, as a GPU
// profile must carry: efficiencies in (0,1], overheads >= 0.
func (s StepCoefficients) Validate() error { return errors.Join(s.problems(false, "")...) }

// problems checks the coefficients; with partial set, a zero field means
// "not set" (an override file) and is accepted.
func (s StepCoefficients) problems(partial bool, prefix string) []error {
	var errs []error
	for _, f := range StepFields {
		if e := f.problem(prefix+f.Key, *f.Value(&s), partial); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// Validate reports every problem of the model profile.
func (m *Model) Validate() error { return errors.Join(m.problems()...) }

func (m *Model) problems() []error {
	var p checker
	p.name(m.Name)
	p.positiveInt("layers", m.Layers)
	p.positiveInt("hidden_size", m.HiddenSize)
	p.positiveInt("num_heads", m.NumHeads)
	p.positiveInt("head_dim", m.HeadDim)
	p.positiveInt("vocab_size", m.VocabSize)
	p.positiveInt("max_model_len", m.MaxModelLen)
	p.nonNegativeInt("mtp_layers", m.MTPLayers)
	p.nonNegativeInt("norm_all_reduces", m.NormAllReduces)

	p.nonNegativeInt("kv_lora_rank", m.KVLoraRank)
	if m.IsMLA() {
		// MLA caches a latent, not per-head K/V: num_kv_heads is nominal.
		p.nonNegativeInt("num_kv_heads", m.NumKVHeads)
		p.positiveInt("qk_rope_head_dim", m.QKRopeHeadDim)
	} else {
		if m.QKRopeHeadDim != 0 {
			p.addf("qk_rope_head_dim needs kv_lora_rank > 0 (only MLA models have it)")
		}
		p.positiveInt("num_kv_heads", m.NumKVHeads)
		if m.NumKVHeads > 0 && m.NumHeads > 0 && m.NumHeads%m.NumKVHeads != 0 {
			p.addf("num_kv_heads (%d) must divide num_heads (%d)", m.NumKVHeads, m.NumHeads)
		}
	}

	p.positive("total_params_b", m.TotalParamsB)
	p.positive("active_params_b", m.ActiveParamsB)
	if m.ActiveParamsB > m.TotalParamsB {
		p.addf("active_params_b (%v) must be <= total_params_b (%v)", m.ActiveParamsB, m.TotalParamsB)
	}

	p.nonNegativeInt("num_experts", m.NumExperts)
	p.nonNegativeInt("shared_experts", m.SharedExperts)
	if m.IsMoE() {
		p.positiveInt("experts_per_token", m.ExpertsPerToken)
		p.positiveInt("moe_intermediate_size", m.MoEIntermediateSize)
		if m.ExpertsPerToken > m.NumExperts {
			p.addf("experts_per_token (%d) must be <= num_experts (%d)", m.ExpertsPerToken, m.NumExperts)
		}
		// 0 for all-MoE models; DeepSeek's first dense layers use it.
		p.nonNegativeInt("intermediate_size", m.IntermediateSize)
	} else {
		if m.ExpertsPerToken != 0 || m.SharedExperts != 0 || m.MoEIntermediateSize != 0 {
			p.addf("experts_per_token, shared_experts and moe_intermediate_size need num_experts > 0")
		}
		// A dense model needs its FFN.
		p.positiveInt("intermediate_size", m.IntermediateSize)
	}

	p.nonNegativeInt("sliding_window", m.SlidingWindow)
	p.nonNegativeInt("sliding_window_layers", m.SlidingWindowLayers)
	if m.Layers > 0 && m.SlidingWindowLayers > m.Layers {
		p.addf("sliding_window_layers (%d) must be <= layers (%d)", m.SlidingWindowLayers, m.Layers)
	}
	if (m.SlidingWindow > 0) != (m.SlidingWindowLayers > 0) {
		p.addf("sliding_window and sliding_window_layers must be set together")
	}

	if _, ok := DtypeBytes(m.WeightDtype); !ok {
		p.addf("weight_dtype %q is not one of %s", m.WeightDtype, dtypeList())
	}
	if _, ok := DtypeBytes(m.ExpertWeightDtype); m.ExpertWeightDtype != "" && !ok {
		p.addf("expert_weight_dtype %q is not one of %s", m.ExpertWeightDtype, dtypeList())
	}
	return p.prefixed(fmt.Sprintf("model %q", m.Name))
}

// Validate reports every problem of the traffic profile and its classes.
func (t *Traffic) Validate() error { return errors.Join(t.problems()...) }

func (t *Traffic) problems() []error {
	var p checker
	p.name(t.Name)
	if len(t.Classes) == 0 {
		p.addf("classes must not be empty")
	}
	seen := make(map[string]bool, len(t.Classes))
	for i := range t.Classes {
		c := &t.Classes[i]
		if c.Name != "" && seen[c.Name] {
			p.addf("class %q is defined twice", c.Name)
		}
		seen[c.Name] = true
		p.errs = append(p.errs, c.problems()...)
	}
	return p.prefixed(fmt.Sprintf("traffic %q", t.Name))
}

// Validate reports every problem of the traffic class. The distribution specs
// are only checked for presence: the workload package parses them.
func (c *TrafficClass) Validate() error { return errors.Join(c.problems()...) }

func (c *TrafficClass) problems() []error {
	var p checker
	p.name(c.Name)
	switch c.Mode {
	case "", "low", "medium", "high":
	default:
		p.addf("mode %q is not one of low, medium, high (or empty)", c.Mode)
	}
	p.positive("share", c.Share)
	for _, f := range []struct{ key, spec string }{
		{"prompt_tokens", c.PromptTokens},
		{"think_tokens", c.ThinkTokens},
		{"answer_tokens", c.AnswerTokens},
	} {
		if strings.TrimSpace(f.spec) == "" {
			p.addf("%s must not be empty (a distribution spec, or \"0\")", f.key)
		}
	}
	p.nonNegativeInt("prefix_tokens", c.PrefixTokens)
	if (c.PrefixID != "") != (c.PrefixTokens > 0) {
		p.addf("prefix_id and prefix_tokens must be set together")
	}
	return p.prefixed(fmt.Sprintf("class %q", c.Name))
}

// checker collects problems; its helpers name the YAML key at fault.
type checker struct{ errs []error }

func (p *checker) addf(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

// name checks a profile name: names are typed on the command line and
// printed in comma-separated lists, so they hold no spaces or commas.
func (p *checker) name(n string) {
	switch {
	case n == "":
		p.addf("name must not be empty")
	case strings.ContainsFunc(n, func(r rune) bool { return r == ',' || r <= ' ' || r == 0x7f }):
		p.addf("name must not contain spaces, commas or control characters")
	}
}

// positive rejects zero, negative, NaN and infinite values.
func (p *checker) positive(key string, v float64) {
	if !(v > 0) || math.IsInf(v, 0) {
		p.addf("%s must be > 0, got %v", key, v)
	}
}

// nonNegative rejects negative, NaN and infinite values.
func (p *checker) nonNegative(key string, v float64) {
	if !(v >= 0) || math.IsInf(v, 0) {
		p.addf("%s must be >= 0, got %v", key, v)
	}
}

func (p *checker) positiveInt(key string, v int) {
	if v <= 0 {
		p.addf("%s must be > 0, got %d", key, v)
	}
}

func (p *checker) nonNegativeInt(key string, v int) {
	if v < 0 {
		p.addf("%s must be >= 0, got %d", key, v)
	}
}

// prefixed returns the problems, each prefixed with what (e.g. `model "x"`).
func (p *checker) prefixed(what string) []error {
	out := make([]error, len(p.errs))
	for i, e := range p.errs {
		out[i] = fmt.Errorf("%s: %w", what, e)
	}
	return out
}
