package size

import (
	"fmt"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// latencyFloor is what each request's latencies would be at the very
// least: alone on a replica, its prompt prefilled in one step and every
// decode step at its shortest context emitting the most tokens speculative
// decoding can give. Any load only adds to these (a bigger batch, a longer
// context or a chunked prefill never makes a step cheaper in the step
// model), so an SLO that the floors' statistic already misses fails at any
// replica count: the search can skip every simulation of such a candidate.
// The floors follow analysis.Summarize's rules (TTFA only with an answer,
// TPOT with two tokens); chains of calls are left to the simulator.
func latencyFloor(cfg *sim.Config, reqs []workload.Request, slos []analysis.SLO) ([]string, error) {
	for i := range reqs {
		if reqs[i].After != "" {
			return nil, nil
		}
	}
	sm, err := sim.NewStepModel(cfg)
	if err != nil {
		return nil, err
	}
	k := 0
	if cfg.Speculative != nil {
		k = cfg.Speculative.NumSpeculativeTokens
	}
	perStep := 1 + k
	var ttft, ttfa, e2e, tpot []float64
	for i := range reqs {
		r := &reqs[i]
		out := r.OutputTokens()
		if r.PromptTokens < 1 || out < 1 || r.TotalTokens() > cfg.MaxModelLen {
			continue // rejected: not in the latencies
		}
		p := int64(r.PromptTokens)
		prefill := seconds(sm.StepTime(&sim.Batch{NumReqs: 1, PrefillTokens: r.PromptTokens, PrefillAttnPairs: p * (p + 1) / 2}))
		step := seconds(sm.StepTime(&sim.Batch{NumReqs: 1, DecodeReqs: 1, DecodeTokens: perStep, DraftTokens: k, ContextTokens: p + int64(perStep)}))
		steps := func(tokens int) float64 { return float64((tokens + perStep - 1) / perStep) }
		ttft = append(ttft, prefill)
		if r.AnswerTokens > 0 {
			ttfa = append(ttfa, prefill+steps(r.ThinkTokens)*step)
		}
		e2e = append(e2e, prefill+steps(out-1)*step)
		if out > 1 {
			tpot = append(tpot, steps(out-1)*step/float64(out-1))
		}
	}
	floor := analysis.Latencies{
		TTFT: analysis.Describe(ttft), TTFA: analysis.Describe(ttfa),
		E2E: analysis.Describe(e2e), TPOT: analysis.Describe(tpot),
	}
	var failed []string
	for _, s := range slos {
		if s.Of(floor) > s.LimitS {
			failed = append(failed, s.Name())
		}
	}
	return failed, nil
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// floorError explains a candidate that fails at any load.
func floorError(failed []string) string {
	return fmt.Sprintf("misses %s even with every request alone on a replica: no replica count can meet it", strings.Join(failed, ", "))
}
