package workload

import (
	"errors"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// WhatIfOptions are the composable what-if transforms as a command's flags
// give them, parsed (ParseEffort, ParseHistory), before they become a
// WhatIf.
type WhatIfOptions struct {
	ThinkBudget  int                     // --think-budget; 0: none
	BudgetPolicy string                  // --budget-policy
	Effort       map[string]EffortBudget // --effort's budgets by mode; nil: none
	Escalate     float64                 // --escalate
	// History is --history: how a session's later turns carry the earlier
	// ones; the zero value is DefaultHistory.
	History History
	// Given reports whether the user set a field (by its name here, as
	// errors name it: "ThinkBudget"; the command knows which flag sets it);
	// nil: none was.
	Given func(field string) bool
}

func (o *WhatIfOptions) given(field string) bool { return o.Given != nil && o.Given(field) }

// Validate checks the options before any traffic is read: every problem.
// A flag that changes nothing without another is refused rather than
// ignored.
func (o *WhatIfOptions) Validate() error {
	var errs []error
	if o.given("ThinkBudget") && o.ThinkBudget < 1 {
		// 0 would be "no budget" and change nothing: thinking off is an effort mode.
		errs = append(errs, inputerr.Fieldf("ThinkBudget", "must be at least 1 token, got %d (for thinking off use %s, e.g. low=0/512)", o.ThinkBudget, inputerr.Name("Effort")))
	}
	if o.given("BudgetPolicy") && !o.given("ThinkBudget") {
		errs = append(errs, inputerr.Fieldf("BudgetPolicy", "only matters with %s", inputerr.Name("ThinkBudget")))
	}
	if !(o.Escalate >= 0 && o.Escalate <= 1) {
		errs = append(errs, inputerr.Fieldf("Escalate", "must be a fraction in [0, 1], got %g", o.Escalate))
	}
	w := WhatIf{ThinkBudget: max(o.ThinkBudget, 0), BudgetPolicy: o.BudgetPolicy, Effort: o.Effort}
	if err := w.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Apply transforms the requests, drawing with seed (escalation); with no
// transform asked it returns them as they are.
func (o *WhatIfOptions) Apply(reqs []Request, seed uint64) ([]Request, []TransformReport, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	w := WhatIf{ThinkBudget: o.ThinkBudget, BudgetPolicy: o.BudgetPolicy, Escalate: o.Escalate, Seed: seed, Effort: o.Effort}
	if err := w.Validate(); err != nil {
		return nil, nil, err
	}
	h := o.History
	if h.Policy == "" {
		h.Policy = DefaultHistory
	}
	var err error
	sessions := HasSessions(reqs)
	if o.given("History") && !sessions {
		return nil, nil, inputerr.Field("History", errors.New("the traffic has no sessions (no record has a session_id)"))
	}
	var reports []TransformReport
	if w.Active() {
		if sessions && (w.Escalate > 0 || w.ThinkBudget > 0 && w.BudgetPolicy == PolicyTwoPhase) {
			return nil, nil, errSessionFollowUps
		}
		if reqs, reports, err = w.Apply(reqs); err != nil {
			return nil, nil, err
		}
	}
	if sessions {
		// Last: the history carries the turns as the what-ifs left them.
		out, rep, err := ApplySessions(reqs, h)
		if err != nil {
			return nil, nil, err
		}
		reqs, reports = out, append(reports, rep)
	}
	return reqs, reports, nil
}
