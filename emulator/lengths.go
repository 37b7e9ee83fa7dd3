package emulator

import (
	"math"

	"github.com/thinkcap/thinkcap/workload"
)

// lengths decides how many think and answer tokens a request generates,
// and whether it ends by length (finish_reason "length") or by a stop.
//
//   - Forced (ignore_eos, or min_tokens = max_tokens, as thinkcap's load
//     generator sends): exactly max_tokens, split between thinking and
//     answer in the proportion of one (think, answer) draw from Traffic:
//     the request says how long, the traffic profile says how much of it
//     is thinking. Finish "length".
//   - Otherwise: one draw from Traffic, raised to min_tokens (the extra is
//     answer), capped at max_tokens (or what max_model_len leaves), thinking
//     first; finish "length" when capped, else "stop".
//
// thinking_token_budget caps the thinking (vLLM forces </think> at the
// budget: vllm/v1/sample/thinking_budget_state.py); thinking off
// (enable_thinking=false, reasoning_effort "none") means no thinking.
func (s *Server) lengths(p *parsed) (think, answer int, byLength bool) {
	t, a := s.traffic()
	if !p.thinking {
		t = 0
	}
	if p.maxTokens > 0 && (p.ignoreEOS || p.minTokens >= p.maxTokens) {
		total := p.maxTokens
		if t+a > 0 {
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
		FinishReason: workload.FinishStop,
	}
	if byLength {
		r.FinishReason = workload.FinishLength
	}
	return r
}
