package emulator

import (
	"strings"

	"github.com/thinkcap/thinkcap/profiles"
)

// Thinking is what a request gets of the model's reasoning once the
// model's own rules are applied: the request decides the mode, the traffic
// profile only the lengths (Config.Traffic).
type Thinking struct {
	// On is false when the request turned thinking off (and the model can
	// turn it off), or when the model does not reason.
	On bool
	// Effort is the request's reasoning_effort when thinking is on: one of
	// minimal, low, medium, high, xhigh, max; empty when not sent.
	Effort string
}

// reasoningEfforts are the values vLLM accepts for reasoning_effort
// (vllm/entrypoints/openai/chat_completion/protocol.py
// ChatCompletionRequest.reasoning_effort), with their order: "none" turns
// thinking off, the others ask for more thinking from left to right.
var reasoningEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// effortRank is an effort's place in reasoningEfforts; -1 when unknown.
func effortRank(effort string) int {
	for i, e := range reasoningEfforts {
		if e == effort {
			return i
		}
	}
	return -1
}

// effortList is the accepted efforts as pydantic lists a Literal:
// 'none', 'minimal', ... or 'max'.
func effortList() string {
	q := make([]string, len(reasoningEfforts))
	for i, e := range reasoningEfforts {
		q[i] = "'" + e + "'"
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// thinkingRule is how a model answers the thinking controls.
type thinkingRule int

const (
	// thinkingSwitchable: thinks by default; chat_template_kwargs
	// enable_thinking=false, or reasoning_effort "none" when enable_thinking
	// is unset (vLLM #43401), turn it off. Qwen3's hybrid template.
	thinkingSwitchable thinkingRule = iota
	// thinkingAlways: the template always opens the reasoning (DeepSeek-R1
	// and its distills start with <think>; gpt-oss's Harmony format always
	// has an analysis channel, whose length reasoning_effort sets;
	// Magistral), so thinking off is ignored.
	thinkingAlways
	// thinkingNever: a model without reasoning (Llama-3.1-Instruct).
	thinkingNever
)

// alwaysThinkingFamilies are the model families whose chat template cannot
// turn the reasoning off.
var alwaysThinkingFamilies = map[string]bool{
	"deepseek-r1-distill": true, "deepseek-v3": true, "gpt-oss": true, "magistral": true,
}

// ruleFor is m's thinking rule: reasoning models of the families above
// always think; other reasoning models (Qwen3, and a user's profile of an
// unknown family) can turn it off.
func ruleFor(m profiles.Model) thinkingRule {
	switch {
	case !m.Reasoning:
		return thinkingNever
	case alwaysThinkingFamilies[strings.ToLower(m.Family)]:
		return thinkingAlways
	}
	return thinkingSwitchable
}

// thinking applies the model's rule to what the request asked.
func (r thinkingRule) thinking(p *parsed) Thinking {
	switch r {
	case thinkingNever:
		return Thinking{}
	case thinkingAlways:
		t := Thinking{On: true, Effort: p.effort}
		if t.Effort == "none" {
			t.Effort = "" // not a length the model knows: its default
		}
		return t
	}
	if !p.thinking {
		return Thinking{}
	}
	return Thinking{On: true, Effort: p.effort}
}
