package verify

import (
	"fmt"

	"github.com/thinkcap/thinkcap/sim"
)

// SpecAcceptance is speculative decoding's mean acceptance length as the
// prediction assumed it and as the server's counters measured it
// (vllm:spec_decode_num_accepted_tokens / num_drafts + 1).
type SpecAcceptance struct {
	Assumed  float64 `json:"assumed_acceptance_length"`
	Measured float64 `json:"measured_acceptance_length"`
	// Replayed is true when the prediction replays the measured acceptance.
	Replayed bool `json:"replayed_with_measured"`
}

// configureSpec replays a speculative server with its measured acceptance:
// the per-position rates when the counters have them for every draft
// position, else the mean acceptance length. A server that ran speculative
// decoding without a --speculative-config gets free CPU drafting (ngram)
// with as many drafts as the counters have positions, and a note.
func configureSpec(cfg *sim.Config, r *Run, explicitAcceptance bool) (*SpecAcceptance, []string) {
	if r.Summary == nil || r.Summary.SpecDecode == nil || r.Summary.SpecDecode.AcceptanceLength <= 0 {
		return nil, nil
	}
	m := r.Summary.SpecDecode
	var notes []string
	if cfg.Speculative == nil {
		k := len(m.PerPosition)
		if k == 0 {
			return nil, []string{"the server ran speculative decoding; pass --speculative-config to model it"}
		}
		cfg.Speculative = &sim.SpeculativeConfig{Method: sim.SpecNgram, NumSpeculativeTokens: k}
		notes = append(notes, fmt.Sprintf("the server ran speculative decoding with %d drafts and no --speculative-config was given: drafting is modelled as free (ngram)", k))
	}
	sc := cfg.Speculative
	sa := &SpecAcceptance{Measured: m.AcceptanceLength}
	assumed := sc.AcceptanceRates
	if len(assumed) == 0 {
		// What cfg.Resolve will assume (the ngram config made above, or
		// a config not yet resolved).
		assumed = sim.DefaultAcceptance(sc.Method, sc.NumSpeculativeTokens)
	}
	if sampler, err := sim.NewAcceptanceSampler(assumed); err == nil {
		sa.Assumed = sampler.MeanAcceptanceLength()
	}
	if explicitAcceptance {
		return sa, notes // the user's --acceptance wins
	}
	rates, err := sim.ParseAcceptance(fmt.Sprint(m.AcceptanceLength), sc.NumSpeculativeTokens)
	if len(m.PerPosition) == sc.NumSpeculativeTokens {
		if _, perr := sim.NewAcceptanceSampler(m.PerPosition); perr == nil { // a valid chain
			rates, err = m.PerPosition, nil
		}
	}
	if err != nil {
		notes = append(notes, fmt.Sprintf("measured acceptance length %.2f does not fit %d drafts (%v): replaying the assumed one", m.AcceptanceLength, sc.NumSpeculativeTokens, err))
		return sa, notes
	}
	sc.AcceptanceRates = append([]float64(nil), rates...)
	sa.Replayed = true
	notes = append(notes, fmt.Sprintf("speculative acceptance length %.2f measured (%.2f assumed): replayed with the measured one", sa.Measured, sa.Assumed))
	return sa, notes
}
