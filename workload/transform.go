package workload

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// Budget policies of a thinking budget: how a request that would think past
// the budget is made to stop.
const (
	// PolicyForcedClosure caps thinking at the budget, appends the closing
	// tag and lets the model answer in full.
	PolicyForcedClosure = "forced-closure"
	// PolicyTruncate is a hard cap on all output (max_tokens): it cuts
	// mid-thought and the answer is lost.
	PolicyTruncate = "truncate"
	// PolicyTwoPhase is a gateway's bounded reasoning: phase 1 thinks up to the budget, phase 2 is a new
	// request whose prompt is the prompt plus the trace.
	PolicyTwoPhase = "two-phase"
)

// CloseTagTokens is what forced closure appends: "\n</think>\n\n" is three
// tokens in Qwen3's and DeepSeek-R1's tokenizers.
const CloseTagTokens = 3

// BudgetPolicies lists the valid --budget-policy values.
func BudgetPolicies() []string {
	return []string{PolicyForcedClosure, PolicyTruncate, PolicyTwoPhase}
}

// EffortBudget is the thinking and answer budget of one effort mode; a zero
// Think means thinking off (Qwen3's enable_thinking=false).
type EffortBudget struct{ Think, Answer int }

// WhatIf is a set of composable what-if transforms of a workload. The zero
// value changes nothing. Apply order: effort budgets, then the thinking
// budget, then escalation.
type WhatIf struct {
	ThinkBudget  int    // --think-budget; 0: none
	BudgetPolicy string // --budget-policy; default forced-closure
	// Effort maps modes to budgets (--effort low=0/512,medium=1024/768).
	Effort map[string]EffortBudget
	// Escalate is the fraction of low-mode requests that fail a verifier
	// and are retried at high effort (--escalate).
	Escalate float64
	Seed     uint64
}

// TransformReport says what one transform did.
type TransformReport struct {
	Name    string `json:"name"`
	Changed int    `json:"requests_changed"`
	// Added counts requests the transform added (follow-up calls).
	Added int `json:"requests_added"`
	// ThinkTokensSaved is thinking no longer generated (negative when the
	// transform adds thinking, as escalation does).
	ThinkTokensSaved int64 `json:"think_tokens_saved"`
	// AnswersLost counts answers cut to nothing (truncation).
	AnswersLost int `json:"answers_lost"`
}

// ParseEffort parses --effort: mode=think/answer pairs separated by commas.
func ParseEffort(spec string) (map[string]EffortBudget, error) {
	out := map[string]EffortBudget{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		mode, budgets, ok := strings.Cut(part, "=")
		think, answer, ok2 := strings.Cut(budgets, "/")
		if !ok || !ok2 {
			return nil, inputerr.Fieldf("Effort", "%q: want mode=think/answer, e.g. low=0/512,medium=1024/768", part)
		}
		mode = strings.TrimSpace(mode)
		if mode != ModeLow && mode != ModeMedium && mode != ModeHigh {
			return nil, inputerr.Fieldf("Effort", "%q: mode must be low, medium or high", part)
		}
		t, err1 := strconv.Atoi(strings.TrimSpace(think))
		a, err2 := strconv.Atoi(strings.TrimSpace(answer))
		if err1 != nil || err2 != nil || t < 0 || a < 1 {
			return nil, inputerr.Fieldf("Effort", "%q: budgets must be integers, think >= 0 and answer >= 1", part)
		}
		if _, dup := out[mode]; dup {
			return nil, inputerr.Field("Effort", fmt.Errorf("mode %s given twice", mode))
		}
		out[mode] = EffortBudget{Think: t, Answer: a}
	}
	return out, nil
}

// Validate reports every problem with the transforms.
func (w *WhatIf) Validate() error {
	var errs []error
	if w.ThinkBudget < 0 {
		errs = append(errs, inputerr.Fieldf("ThinkBudget", "must be >= 0, got %d", w.ThinkBudget))
	}
	switch w.policy() {
	case PolicyForcedClosure, PolicyTruncate, PolicyTwoPhase:
	default:
		errs = append(errs, inputerr.Fieldf("BudgetPolicy", "%q: valid policies are %s", w.BudgetPolicy, strings.Join(BudgetPolicies(), ", ")))
	}
	if w.Escalate < 0 || w.Escalate > 1 {
		errs = append(errs, inputerr.Fieldf("Escalate", "must be a fraction in [0, 1], got %g", w.Escalate))
	}
	return errors.Join(errs...)
}

func (w *WhatIf) policy() string {
	if w.BudgetPolicy == "" {
		return PolicyForcedClosure
	}
	return w.BudgetPolicy
}

// Active reports whether any transform is set.
func (w *WhatIf) Active() bool {
	return w.ThinkBudget > 0 || len(w.Effort) > 0 || w.Escalate > 0
}

// Apply transforms the requests (the input is not modified) and reports
// what each transform changed. Follow-up requests (two-phase, escalation)
// get IDs derived from their predecessor's and an After naming it;
// requests without an ID get one ("req-N", their index) when they need it.
func (w *WhatIf) Apply(reqs []Request) ([]Request, []TransformReport, error) {
	if err := w.Validate(); err != nil {
		return nil, nil, err
	}
	out := make([]Request, len(reqs))
	copy(out, reqs)
	var reports []TransformReport
	if len(w.Effort) > 0 {
		reports = append(reports, w.applyEffort(out))
	}
	if w.ThinkBudget > 0 {
		var rep TransformReport
		out, rep = w.applyBudget(out)
		reports = append(reports, rep)
	}
	if w.Escalate > 0 {
		var rep TransformReport
		var err error
		if out, rep, err = w.applyEscalation(out); err != nil {
			return nil, nil, err
		}
		reports = append(reports, rep)
	}
	return out, reports, nil
}

// CloseThinking caps thinking at budget with forced closure: a request that
// would think longer stops at the budget and appends the closing tag
// (budget 0: thinking off).
func CloseThinking(think, budget int) int {
	if budget == 0 || think <= budget {
		return min(think, budget)
	}
	return budget + CloseTagTokens
}

func (w *WhatIf) applyEffort(reqs []Request) TransformReport {
	rep := TransformReport{Name: "effort"}
	for i := range reqs {
		r := &reqs[i]
		b, ok := w.Effort[r.Mode]
		if !ok {
			continue
		}
		think := CloseThinking(r.ThinkTokens, b.Think)
		answer := min(r.AnswerTokens, b.Answer)
		if think != r.ThinkTokens || answer != r.AnswerTokens {
			rep.Changed++
			rep.ThinkTokensSaved += int64(r.ThinkTokens - think)
			r.ThinkTokens, r.AnswerTokens = think, answer
		}
	}
	return rep
}

func (w *WhatIf) applyBudget(reqs []Request) ([]Request, TransformReport) {
	n := w.ThinkBudget
	rep := TransformReport{Name: "think-budget/" + w.policy()}
	switch w.policy() {
	case PolicyTruncate:
		for i := range reqs {
			r := &reqs[i]
			if r.OutputTokens() <= n {
				continue
			}
			rep.Changed++
			think := min(r.ThinkTokens, n)
			rep.ThinkTokensSaved += int64(r.ThinkTokens - think)
			if think == n && r.AnswerTokens > 0 {
				rep.AnswersLost++
			}
			r.ThinkTokens, r.AnswerTokens = think, n-think
			r.FinishReason = FinishLength
		}
		return reqs, rep
	case PolicyTwoPhase:
		out := make([]Request, 0, len(reqs)+len(reqs)/2)
		for i, r := range reqs {
			if r.ThinkTokens == 0 || r.AnswerTokens == 0 {
				// Nothing to split: no thinking, or no known answer (a log
				// record cut inside its thinking).
				out = append(out, r)
				continue
			}
			rep.Changed++
			rep.Added++
			id := requestID(r, i)
			think := min(r.ThinkTokens, n)
			rep.ThinkTokensSaved += int64(r.ThinkTokens - think)
			// Phase 1 stops at </think> (included) or at the budget.
			phase1 := r
			phase1.ID = id
			phase1.ThinkTokens, phase1.AnswerTokens = think, 0
			phase1.FinishReason = "" // the gateway goes on to phase 2
			// Phase 2 continues from prompt + trace (+ the appended closing
			// tag when the budget cut it), a second prefill unless the
			// prefix cache still holds phase 1's sequence.
			phase2 := r
			phase2.ID = id + "/answer"
			phase2.After = id
			phase2.ArrivalS = 0
			phase2.PromptTokens = r.PromptTokens + think
			if r.ThinkTokens > n {
				phase2.PromptTokens += CloseTagTokens
			}
			phase2.PrefixID = ""
			phase2.PrefixTokens = r.PromptTokens + think
			phase2.ThinkTokens = 0
			out = append(out, phase1, phase2)
		}
		return out, rep
	default: // forced closure
		for i := range reqs {
			r := &reqs[i]
			think := CloseThinking(r.ThinkTokens, n)
			if think != r.ThinkTokens {
				rep.Changed++
				rep.ThinkTokensSaved += int64(r.ThinkTokens - think)
				r.ThinkTokens = think
			}
		}
		return reqs, rep
	}
}

// applyEscalation retries a fraction of low-mode requests at high effort
// after they finish (a gateway's escalate-on-failure). The retry's
// thinking is drawn from the workload's own high-mode requests, or is the
// high effort budget when there are none.
func (w *WhatIf) applyEscalation(reqs []Request) ([]Request, TransformReport, error) {
	rep := TransformReport{Name: "escalate"}
	var highThink []int
	for _, r := range reqs {
		if r.Mode == ModeHigh && r.After == "" {
			highThink = append(highThink, r.ThinkTokens)
		}
	}
	sort.Ints(highThink)
	fallback, hasFallback := w.Effort[ModeHigh]
	rng := NewStream(w.Seed, "escalate")
	out := make([]Request, 0, len(reqs))
	for i, r := range reqs {
		out = append(out, r)
		if r.Mode != ModeLow || r.After != "" || rng.Float64() >= w.Escalate {
			continue
		}
		retry := r
		id := requestID(r, i)
		out[len(out)-1].ID = id
		retry.ID = id + "/escalated"
		retry.After = id
		retry.ArrivalS = 0
		retry.Mode = ModeHigh
		retry.PrefixID, retry.PrefixTokens = r.PrefixID, r.PrefixTokens
		switch {
		case len(highThink) > 0:
			retry.ThinkTokens = highThink[rng.IntN(len(highThink))]
		case hasFallback:
			retry.ThinkTokens = fallback.Think
		default:
			return nil, rep, inputerr.Field("Escalate", fmt.Errorf("the workload has no high-mode requests to draw the retry's thinking from; give %s high=THINK/ANSWER", inputerr.Name("Effort")))
		}
		rep.Added++
		rep.Changed++
		rep.ThinkTokensSaved -= int64(retry.ThinkTokens)
		out = append(out, retry)
	}
	return out, rep, nil
}

// requestID is the request's ID, or one made from its index.
func requestID(r Request, i int) string {
	if r.ID != "" {
		return r.ID
	}
	return fmt.Sprintf("req-%06d", i+1)
}

// Route splits requests into those a router sends to a separate
// non-thinking pool and the rest. A rule is a mode ("low"), "mode=M",
// "category=C", or a fraction ("0.7") of all requests chosen with the seed.
func Route(reqs []Request, rule string, seed uint64) (kept, routed []Request, err error) {
	match, err := routeMatcher(rule, seed)
	if err != nil {
		return nil, nil, err
	}
	// A follow-up stays in its first call's pool: the simulator links calls
	// only within one pool.
	routedIDs := map[string]bool{}
	for _, r := range reqs {
		if r.After != "" && routedIDs[r.After] || r.After == "" && match(&r) {
			r.ThinkTokens = 0 // the pool's model does not think
			routed = append(routed, r)
			if r.ID != "" {
				routedIDs[r.ID] = true
			}
		} else {
			kept = append(kept, r)
		}
	}
	return kept, routed, nil
}

func routeMatcher(rule string, seed uint64) (func(*Request) bool, error) {
	rule = strings.TrimSpace(rule)
	if f, err := strconv.ParseFloat(rule, 64); err == nil {
		if f < 0 || f > 1 {
			return nil, inputerr.Fieldf("Route", "%s: a fraction must be in [0, 1]", rule)
		}
		rng := NewStream(seed, "route")
		return func(*Request) bool { return rng.Float64() < f }, nil
	}
	key, value, ok := strings.Cut(rule, "=")
	if !ok {
		key, value = "mode", rule
	}
	switch key {
	case "mode":
		if value != ModeLow && value != ModeMedium && value != ModeHigh {
			return nil, inputerr.Fieldf("Route", "%q: mode must be low, medium or high", rule)
		}
		return func(r *Request) bool { return r.Mode == value }, nil
	case "category":
		if value == "" {
			return nil, inputerr.Fieldf("Route", "%q: empty category", rule)
		}
		return func(r *Request) bool { return r.Category == value }, nil
	}
	return nil, inputerr.Fieldf("Route", "%q: want a mode (low), mode=M, category=C or a fraction (0.7)", rule)
}
