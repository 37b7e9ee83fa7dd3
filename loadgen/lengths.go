package loadgen

import (
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

// LengthControl turns request records into requests that make the server
// generate what the record says (issue: length control): max_tokens = think
// + answer, with min_tokens = max_tokens and ignore_eos so the model cannot
// stop early; thinking off (Qwen3's chat_template_kwargs.enable_thinking =
// false) for low-effort requests that do not think; the server's own
// thinking_token_budget when a budget is given; a synthetic prompt of the
// record's length.
type LengthControl struct {
	// ForceLength sends min_tokens = max_tokens and ignore_eos. Leave it off
	// for gpt-oss (Harmony), where ignore_eos breaks generation.
	ForceLength bool
	// ThinkingBudget > 0 sends vLLM's thinking_token_budget (needs a
	// reasoning parser on the server; vllm/v1/sample/thinking_budget_state.py).
	ThinkingBudget int
	// SaveTextRate is the fraction of requests whose prompt and generated
	// text may be stored (--save-text); 0 stores none.
	SaveTextRate float64
	// Seed makes the synthetic prompts.
	Seed uint64
	// Prompts calibrates prompt text to the server's prompt_tokens.
	Prompts *PromptCalibrator
	// Texts are the prompts of a dataset by request ID (--dataset-name),
	// sent as given instead of synthetic text.
	Texts map[string]string
	// History is how a session's later turns carry the earlier ones
	// (--history): the messages nextTurn sends before each turn.
	History workload.History

	words sync.Map // request ID → prompt words sent, for Observe
	saved sync.Map // request ID → prompt sent, for --save-text (SavedPrompt)
}

// ForceLengthFor is the default of ForceLength for a served model name:
// on, except for gpt-oss, whose Harmony format breaks under ignore_eos.
func ForceLengthFor(model string) bool {
	return !strings.Contains(strings.ToLower(model), "gpt-oss")
}

// Build is the request sent for record r.
func (lc *LengthControl) Build(r workload.Request) Request {
	req := Request{
		ID:        r.ID,
		MaxTokens: max(r.ThinkTokens+r.AnswerTokens, 1),
		Priority:  r.Priority,
	}
	seed := lc.Seed ^ hashID(r.ID)
	if text, ok := lc.Texts[r.ID]; ok {
		req.Prompt = text // not synthetic: kept out of the calibration
	} else if lc.Prompts != nil {
		var words int
		req.Prompt, words = lc.Prompts.Prompt(r.PromptTokens, seed)
		lc.words.Store(r.ID, words)
	} else {
		req.Prompt = SyntheticPrompt(r.PromptTokens, seed)
	}
	if lc.ForceLength {
		req.MinTokens, req.IgnoreEOS = req.MaxTokens, true
		think := min(r.ThinkTokens, req.MaxTokens)
		req.ThinkTokens = &think
	}
	if r.ThinkTokens == 0 && r.Mode == workload.ModeLow {
		off := false
		req.EnableThinking = &off
	}
	if lc.ThinkingBudget > 0 {
		req.ThinkingBudget = lc.ThinkingBudget
	}
	req.SaveText = lc.Saves(r.ID)
	if req.SaveText {
		lc.saved.Store(r.ID, req.Prompt)
	}
	return req
}

// SavedPrompt returns, once, the prompt sent for a request whose text is
// stored (Saves): --save-text keeps what was asked beside what came back.
// "" for any other request.
func (lc *LengthControl) SavedPrompt(id string) string {
	p, _ := lc.saved.LoadAndDelete(id)
	s, _ := p.(string)
	return s
}

// Saves reports whether the text of request id may be stored
// (--save-text): a deterministic fraction SaveTextRate of the requests.
func (lc *LengthControl) Saves(id string) bool {
	return lc.SaveTextRate > 0 && float64(hashID(id)%1_000_000)/1e6 < lc.SaveTextRate
}

// Continue builds a follow-up request. Phase 2 of a two-phase thinking
// budget (a follow-up whose prefix is its predecessor's sequence) sends the
// same prompt and continues from phase 1's trace with the closing tag
// appended, as a bounded-reasoning gateway does; any other
// follow-up (an escalation retry) is a fresh request.
func (lc *LengthControl) Continue(child workload.Request, parent Request, pm *Measurement) Request {
	if child.SessionID != "" {
		return lc.nextTurn(child, parent, pm)
	}
	req := lc.Build(child)
	if child.PrefixTokens == 0 || child.PrefixID != "" {
		return req
	}
	lc.words.Delete(child.ID) // its prompt is not synthetic: keep it out of the calibration
	req.Prompt = parent.Prompt
	if req.SaveText {
		lc.saved.Store(child.ID, req.Prompt)
	}
	req.Continue = DefaultThinkStart + "\n" + pm.Reasoning + "\n" + DefaultThinkEnd + "\n\n"
	return req
}

// Observe feeds the server's reported prompt tokens for a request back to
// the prompt calibrator, so later prompts hit their lengths more closely.
func (lc *LengthControl) Observe(id string, reportedPromptTokens int) {
	w, ok := lc.words.LoadAndDelete(id)
	if !ok || lc.Prompts == nil || reportedPromptTokens <= 0 {
		return
	}
	lc.Prompts.Observe(w.(int), reportedPromptTokens)
}

func hashID(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// nextTurn builds a session's next turn: its new input as the prompt (the
// record's prompt less the history the policy added) after the earlier
// turns as messages, kept as History says: the previous prompt and answer
// (strip-traces, as the chat templates render them), with the thinking
// inline before the answer (keep-traces: a template keeps message content
// as sent), the answers alone (answers-only), or a summary of synthetic
// text of its length (summary).
func (lc *LengthControl) nextTurn(child workload.Request, parent Request, pm *Measurement) Request {
	input := child
	input.PromptTokens = max(child.PromptTokens-child.HistoryTokens, 1)
	req := lc.Build(input)
	lc.words.Delete(child.ID) // the server counts the history too: keep it out of the calibration
	h := lc.History
	switch {
	case h.Policy == workload.HistorySummary && child.Turn >= h.SummaryFrom:
		req.History = []vllmapi.Message{{Role: "system", Content: SyntheticPrompt(h.SummaryTokens, hashID(child.ID))}}
		return req
	case h.Policy == workload.HistoryAnswersOnly:
		req.History = append(slices.Clip(parent.History), vllmapi.Message{Role: "assistant", Content: pm.Text})
		return req
	}
	answer := pm.Text
	if h.Policy == workload.HistoryKeepTraces && pm.Reasoning != "" {
		answer = DefaultThinkStart + "\n" + pm.Reasoning + "\n" + DefaultThinkEnd + "\n\n" + pm.Text
	}
	req.History = append(slices.Clip(parent.History),
		vllmapi.Message{Role: "user", Content: parent.Prompt}, vllmapi.Message{Role: "assistant", Content: answer})
	return req
}
