package emulator

import (
	"math"

	"github.com/thinkcap/thinkcap/workload"
)

// lengths decides how many think and answer tokens a request generates,
// and whether it ends by length (finish_reason "length") or by a stop. The
// request decides the thinking mode (thinking.go: enable_thinking,
// reasoning_effort and the model's rule), Traffic draws the lengths for
// that mode:
//
//   - Forced (ignore_eos, or min_tokens = max_tokens, as thinkcap's load
//     generator sends): exactly max_tokens, split between thinking and
//     answer as the request's vllm_xargs.thinkcap_think_tokens says, else
//     in the proportion of one (think, answer) draw: the request says how
//     long, the traffic profile how much of it is thinking. Finish
//     "length".
//   - Otherwise: one draw, the thinking replaced by the requested one when
//     given, raised to min_tokens (the extra is answer), capped at
//     max_tokens (or what max_model_len leaves), thinking first; finish
//     "length" when capped, else "stop".
//
// thinking_token_budget caps the thinking: at the budget vLLM forces the
// reasoning end string and the model goes on to its answer
// (vllm/v1/sample/thinking_budget_state.py). Thinking off means none.
func (s *Server) lengths(p *parsed) (think, answer int, byLength bool) {
	mode := s.rule.thinking(p)
	t, a := s.traffic(mode)
	if p.thinkTokens >= 0 {
		t = p.thinkTokens
	}
	if !mode.On {
		t = 0
	}
	if p.maxTokens > 0 && (p.ignoreEOS || p.minTokens >= p.maxTokens) {
		total := p.maxTokens
		switch {
		case !mode.On:
		case p.thinkTokens >= 0:
			think = min(p.thinkTokens, total)
		case t+a > 0:
			think = int(math.Round(float64(total) * float64(t) / float64(t+a)))
		}
		if p.budget >= 0 {
			think = min(think, p.budget)
		}
		return think, total - think, true
	}
	if p.budget >= 0 {
		t = min(t, p.budget)
	}
	if t+a < p.minTokens {
		a += p.minTokens - (t + a)
	}
	if t+a == 0 {
		a = 1 // at least one token (EOS counts as one in vLLM's usage)
	}
	limit := p.maxTokens
	if limit == 0 {
		limit = s.simCfg.MaxModelLen - p.prompt
	}
	if t+a > limit {
		think = min(t, limit)
		return think, limit - think, true
	}
	return t, a, false
}

// request builds the simulator's request record.
func (p *parsed) request(think, answer int, byLength bool) workload.Request {
	r := workload.Request{
		ID: p.id, PromptTokens: p.prompt, ThinkTokens: think, AnswerTokens: answer, Priority: p.priority,
		PrefixID: p.prefixID, PrefixTokens: p.prefixTokens,
		FinishReason: workload.FinishStop,
	}
	if byLength {
		r.FinishReason = workload.FinishLength
	}
	return r
}
