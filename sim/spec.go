package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Speculative decoding methods thinkcap models (vllm/config/speculative.py
// SpeculativeMethod). vLLM knows more (ngram_gpu, medusa, mlp_speculator,
// dflash, dspark, custom_class, ...); those are rejected with a list of these.
const (
	SpecNgram      = "ngram"
	SpecSuffix     = "suffix"
	SpecEagle      = "eagle"
	SpecEagle3     = "eagle3"
	SpecMTP        = "mtp"
	SpecDraftModel = "draft_model"
)

var specMethods = []string{SpecNgram, SpecSuffix, SpecEagle, SpecEagle3, SpecMTP, SpecDraftModel}

// specOtherFields are --speculative-config fields vLLM accepts that do not
// change what thinkcap models (vllm/config/speculative.py SpeculativeConfig).
// They are accepted and ignored; any other field is an
// error, as vLLM's pydantic config rejects unknown fields.
var specOtherFields = map[string]bool{
	"prompt_lookup_max": true, "prompt_lookup_min": true,
	"draft_tensor_parallel_size": true, "max_model_len": true, "quantization": true,
	"revision": true, "code_revision": true, "kv_cache_dtype": true,
	"attention_backend": true, "moe_backend": true, "parallel_drafting": true,
	"disable_padded_drafter_batch": true, "rejection_sample_method": true,
	"synthetic_acceptance_rates": true, "synthetic_acceptance_length": true,
	"draft_sample_method": true, "num_speculative_tokens_per_batch_size": true,
	"speculative_token_tree": true, "enforce_eager": true,
	"suffix_decoding_max_tree_depth": true, "suffix_decoding_max_cached_requests": true,
	"suffix_decoding_max_spec_factor": true, "suffix_decoding_min_token_prob": true,
}

// ParseSpeculativeConfig parses vLLM's --speculative-config JSON, e.g.
// {"method":"eagle3","model":"...","num_speculative_tokens":3}. An empty
// string or "off" means no speculative decoding (nil, nil). As in
// vllm/config/speculative.py __post_init__: without a method, model "ngram"
// gives ngram and any other model gives draft_model; the deprecated
// model-specific MTP names (deepseek_mtp, qwen3_next_mtp, ...) become mtp.
// AcceptanceRates are left nil (see DefaultAcceptance and ParseAcceptance).
func ParseSpeculativeConfig(s string) (*SpeculativeConfig, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "off" {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		return nil, fmt.Errorf("--speculative-config: invalid JSON object: %w", err)
	}
	if dec.More() {
		return nil, errors.New("--speculative-config: trailing data after the JSON object")
	}
	var unknown []string
	for name := range fields {
		switch {
		case name == "method" || name == "model" || name == "num_speculative_tokens":
		case specOtherFields[name]:
		default:
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("--speculative-config: unknown field(s) %s", strings.Join(unknown, ", "))
	}
	var sc SpeculativeConfig
	var errs []error
	if raw, ok := fields["method"]; ok && !isJSONNull(raw) {
		if err := json.Unmarshal(raw, &sc.Method); err != nil {
			errs = append(errs, errors.New("--speculative-config: method must be a string"))
		}
	}
	if raw, ok := fields["model"]; ok && !isJSONNull(raw) {
		if err := json.Unmarshal(raw, &sc.Model); err != nil {
			errs = append(errs, errors.New("--speculative-config: model must be a string"))
		}
	}
	if raw, ok := fields["num_speculative_tokens"]; !ok || isJSONNull(raw) {
		errs = append(errs, errors.New("--speculative-config: num_speculative_tokens is required"))
	} else if n, err := strconv.Atoi(string(raw)); err != nil {
		errs = append(errs, fmt.Errorf("--speculative-config: num_speculative_tokens %s is not an integer", raw))
	} else {
		sc.NumSpeculativeTokens = n
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	switch {
	case sc.Method == "" && sc.Model == "":
		return nil, errors.New("--speculative-config: give a method or a model")
	case sc.Method == "" && sc.Model == SpecNgram:
		sc.Method, sc.Model = SpecNgram, ""
	case sc.Method == "":
		sc.Method = SpecDraftModel
	case strings.HasSuffix(sc.Method, "_mtp"):
		sc.Method = SpecMTP // deprecated model-specific MTP names
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if (sc.Method == SpecEagle || sc.Method == SpecEagle3 || sc.Method == SpecDraftModel) && sc.Model == "" {
		return nil, fmt.Errorf("--speculative-config: method %s needs a model (the drafter)", sc.Method)
	}
	return &sc, nil
}

func isJSONNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// Validate reports every problem with the configuration: an unmodelled
// method, K ≤ 0, and acceptance rates that are not K non-increasing values
// in [0, 1]. (The drafter's name is only required when parsing vLLM's JSON.)
func (s *SpeculativeConfig) Validate() error {
	if s == nil {
		return nil
	}
	var errs []error
	if !slices.Contains(specMethods, s.Method) {
		errs = append(errs, fmt.Errorf("--speculative-config: method %q is not modelled; use one of %s",
			s.Method, strings.Join(specMethods, ", ")))
	}
	if s.NumSpeculativeTokens <= 0 {
		errs = append(errs, fmt.Errorf("--speculative-config: num_speculative_tokens %d must be > 0", s.NumSpeculativeTokens))
	} else if s.AcceptanceRates != nil {
		if err := checkRates(s.AcceptanceRates, s.NumSpeculativeTokens); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// LookaheadSlots is vLLM's num_lookahead_tokens (vllm/config/vllm.py):
// the KV slots reserved beyond the verified tokens each
// step; K for eagle, eagle3, mtp and draft_model, 0 for ngram and suffix.
func (s *SpeculativeConfig) LookaheadSlots() int {
	if s == nil {
		return 0
	}
	switch s.Method {
	case SpecEagle, SpecEagle3, SpecMTP, SpecDraftModel:
		return s.NumSpeculativeTokens
	}
	return 0
}

// usesEagle is vLLM's SpeculativeConfig.use_eagle(): EAGLE-family drafters
// (eagle, eagle3, mtp) that also drop the last prefix-cache hit block
// (single_type_kv_cache_manager.py drop_eagle_block).
func (s *SpeculativeConfig) usesEagle() bool {
	return s != nil && (s.Method == SpecEagle || s.Method == SpecEagle3 || s.Method == SpecMTP)
}

// DraftSlots is vLLM's max_num_new_slots_for_drafting (vllm/config/
// speculative.py): input-budget tokens charged per scheduled
// request on top of its new tokens; 1 for draft_model, else 0.
func (s *SpeculativeConfig) DraftSlots() int {
	if s != nil && s.Method == SpecDraftModel {
		return 1
	}
	return 0
}

// Default mean acceptance lengths (AL = 1 + accepted drafts per verification)
// at K = 3, from published benchmarks: the EAGLE-3 heads for Qwen3 of
// Tencent's AngelSlim (https://github.com/Tencent/AngelSlim) reach AL
// 1.79-2.17 (1.99 for 8B); a small same-family draft model
// about 2.2; prompt lookup (ngram) and suffix decoding about 1.5 on
// reasoning text, which repeats the prompt little. MTP is given as a
// per-position conditional acceptance instead: DeepSeek-R1's MTP module
// accepts > 80 % of first drafts (vLLM blog on DeepSeek-R1 on GB300,
// https://blog.vllm.ai, 2026-02-13).
var defaultAcceptanceLength = map[string]float64{
	SpecEagle: 2.0, SpecEagle3: 2.0, SpecDraftModel: 2.2, SpecNgram: 1.5, SpecSuffix: 1.5,
}

const defaultMTPAlpha = 0.8

// DefaultAcceptance returns per-position acceptance rates for method with k
// drafts: a geometric chain whose conditional acceptance α reproduces the
// method's default mean acceptance length at K = 3 (see
// defaultAcceptanceLength), extended to k positions. Nil for an unknown
// method or k ≤ 0.
func DefaultAcceptance(method string, k int) []float64 {
	if k <= 0 {
		return nil
	}
	alpha := defaultMTPAlpha
	if method != SpecMTP {
		al, ok := defaultAcceptanceLength[method]
		if !ok {
			return nil
		}
		alpha = alphaForLength(al, 3)
	}
	return geometricRates(alpha, k)
}

// ParseAcceptance parses --acceptance for k drafts: either one number ≥ 1,
// the mean acceptance length AL, converted to a geometric chain with
// conditional acceptance α solving 1 + Σ_{i=1..k} α^i = AL; or k
// comma-separated per-position rates in [0, 1], non-increasing (rate i is the
// fraction of verifications that accepted draft position i, as vLLM's
// spec_decode_num_accepted_tokens_per_pos / num_drafts).
func ParseAcceptance(s string, k int) ([]float64, error) {
	if k <= 0 {
		return nil, fmt.Errorf("--acceptance: needs speculative decoding with num_speculative_tokens > 0, got %d", k)
	}
	parts := strings.Split(strings.TrimSpace(s), ",")
	vals := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v != v {
			return nil, fmt.Errorf("--acceptance %q: %q is not a number", s, strings.TrimSpace(p))
		}
		vals[i] = v
	}
	if len(vals) == 1 && (vals[0] >= 1 || k > 1) {
		al := vals[0]
		if al < 1 || al > float64(k+1) {
			return nil, fmt.Errorf("--acceptance %v: a single value is a mean acceptance length, which must be in [1, %d] for %d drafts (or give %d comma-separated per-position rates)",
				al, k+1, k, k)
		}
		return geometricRates(alphaForLength(al, k), k), nil
	}
	if err := checkRates(vals, k); err != nil {
		return nil, err
	}
	return vals, nil
}

func checkRates(r []float64, k int) error {
	if len(r) != k {
		return fmt.Errorf("--acceptance: %d per-position rates given, want %d (num_speculative_tokens)", len(r), k)
	}
	for i, v := range r {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("--acceptance: rate %v at position %d is outside [0, 1]", v, i)
		}
		if i > 0 && v > r[i-1] {
			return fmt.Errorf("--acceptance: rates must be non-increasing, position %d (%v) > position %d (%v)", i, v, i-1, r[i-1])
		}
	}
	return nil
}

// alphaForLength solves 1 + Σ_{i=1..k} α^i = al for α in [0, 1] by bisection
// (the left side increases with α from 1 to k+1).
func alphaForLength(al float64, k int) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		sum, p := 1.0, 1.0
		for range k {
			p *= mid
			sum += p
		}
		if sum < al {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func geometricRates(alpha float64, k int) []float64 {
	r := make([]float64, k)
	p := 1.0
	for i := range r {
		p *= alpha
		r[i] = p
	}
	return r
}

// AcceptanceSampler draws the number of accepted drafts of one verification
// step. Rates are per-position acceptance rates (non-increasing): position i
// is accepted with probability rates[i]/rates[i-1] given that position i-1
// was, so P(accepted ≥ i+1) = rates[i]. The sampler inverts that
// distribution with one uniform draw, which gives the same distribution as
// drawing the conditional chain position by position and uses one random
// number per step.
type AcceptanceSampler struct {
	rates []float64
}

// NewAcceptanceSampler returns a sampler for per-position rates (at least
// one, non-increasing, in [0, 1]); they are copied.
func NewAcceptanceSampler(rates []float64) (*AcceptanceSampler, error) {
	if len(rates) == 0 {
		return nil, errors.New("acceptance sampler: no acceptance rates")
	}
	if err := checkRates(rates, len(rates)); err != nil {
		return nil, err
	}
	return &AcceptanceSampler{rates: slices.Clone(rates)}, nil
}

// K is the number of draft positions.
func (a *AcceptanceSampler) K() int { return len(a.rates) }

// Accepted maps a uniform u in [0, 1) to the number of accepted drafts,
// 0..K: the count of positions whose rate exceeds u.
func (a *AcceptanceSampler) Accepted(u float64) int {
	n := 0
	for n < len(a.rates) && u < a.rates[n] {
		n++
	}
	return n
}

// Sample draws the number of accepted drafts, 0..K, from r. It does not
// allocate.
func (a *AcceptanceSampler) Sample(r *rand.Rand) int { return a.Accepted(r.Float64()) }

// MeanAcceptanceLength is 1 + the expected number of accepted drafts, the
// quantity vLLM logs as "Mean acceptance length".
func (a *AcceptanceSampler) MeanAcceptanceLength() float64 {
	s := 1.0
	for _, r := range a.rates {
		s += r
	}
	return s
}
