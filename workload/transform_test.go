package workload

import (
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

func reqs3() []Request {
	return []Request{
		{ID: "a", PromptTokens: 100, ThinkTokens: 3000, AnswerTokens: 200, Mode: ModeHigh},
		{ID: "b", PromptTokens: 100, ThinkTokens: 500, AnswerTokens: 100, Mode: ModeMedium},
		{ID: "c", PromptTokens: 100, ThinkTokens: 0, AnswerTokens: 50, Mode: ModeLow},
	}
}

func TestForcedClosure(t *testing.T) {
	w := WhatIf{ThinkBudget: 1000}
	out, reps, err := w.Apply(reqs3())
	if err != nil {
		t.Fatal(err)
	}
	if out[0].ThinkTokens != 1000+CloseTagTokens || out[0].AnswerTokens != 200 {
		t.Fatalf("capped request: think %d answer %d, want the budget plus the closing tag and the full answer", out[0].ThinkTokens, out[0].AnswerTokens)
	}
	if out[1].ThinkTokens != 500 {
		t.Fatal("a request under the budget changed")
	}
	if r := reps[0]; r.Changed != 1 || r.ThinkTokensSaved != 2000-CloseTagTokens || r.AnswersLost != 0 {
		t.Fatalf("report %+v", r)
	}
}

func TestTruncate(t *testing.T) {
	w := WhatIf{ThinkBudget: 1000, BudgetPolicy: PolicyTruncate}
	out, reps, err := w.Apply(reqs3())
	if err != nil {
		t.Fatal(err)
	}
	// a: cut mid-thought, the answer is lost.
	if out[0].ThinkTokens != 1000 || out[0].AnswerTokens != 0 || out[0].FinishReason != FinishLength {
		t.Fatalf("a = %+v", out[0])
	}
	// b: 600 tokens fit under the cap untouched.
	if out[1].ThinkTokens != 500 || out[1].AnswerTokens != 100 {
		t.Fatalf("b = %+v", out[1])
	}
	if r := reps[0]; r.Changed != 1 || r.AnswersLost != 1 {
		t.Fatalf("report %+v", r)
	}
}

func TestTwoPhase(t *testing.T) {
	w := WhatIf{ThinkBudget: 1000, BudgetPolicy: PolicyTwoPhase}
	out, reps, err := w.Apply(reqs3())
	if err != nil {
		t.Fatal(err)
	}
	// a and b split in two; c (no thinking) stays one request.
	if len(out) != 5 || reps[0].Added != 2 {
		t.Fatalf("%d requests, report %+v", len(out), reps[0])
	}
	p1, p2 := out[0], out[1]
	if p1.ThinkTokens != 1000 || p1.AnswerTokens != 0 {
		t.Fatalf("phase 1 %+v", p1)
	}
	if p2.After != "a" || p2.ThinkTokens != 0 || p2.AnswerTokens != 200 ||
		p2.PromptTokens != 100+1000+CloseTagTokens || p2.PrefixTokens != 1100 || p2.PrefixID != "" {
		t.Fatalf("phase 2 %+v", p2)
	}
	// b closed on its own: no closing tag appended.
	if out[3].PromptTokens != 600 {
		t.Fatalf("b phase 2 prompt %d, want prompt + trace 600", out[3].PromptTokens)
	}
}

func TestEffort(t *testing.T) {
	eff, err := ParseEffort("low=0/512,medium=256/64,high=4096/1024")
	if err != nil {
		t.Fatal(err)
	}
	out, reps, err := (&WhatIf{Effort: eff}).Apply(reqs3())
	if err != nil {
		t.Fatal(err)
	}
	if out[1].ThinkTokens != 256+CloseTagTokens || out[1].AnswerTokens != 64 {
		t.Fatalf("medium %+v", out[1])
	}
	if out[0].ThinkTokens != 3000 || reps[0].Changed != 1 {
		t.Fatalf("high under budget changed: %+v, report %+v", out[0], reps[0])
	}
	for _, bad := range []string{"low", "low=1", "extreme=1/2", "low=-1/5", "low=1/0", "low=1/2,low=3/4"} {
		if _, err := ParseEffort(bad); !slices.Equal(inputerr.Fields(err), []string{"Effort"}) {
			t.Errorf("ParseEffort(%q) = %v", bad, err)
		}
	}
}

func TestEscalate(t *testing.T) {
	var in []Request
	for range 1000 {
		in = append(in, Request{PromptTokens: 10, AnswerTokens: 20, Mode: ModeLow})
	}
	in = append(in, Request{ID: "h", PromptTokens: 10, ThinkTokens: 777, AnswerTokens: 5, Mode: ModeHigh})
	out, reps, err := (&WhatIf{Escalate: 0.2, Seed: 1}).Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	added := reps[0].Added
	if added < 150 || added > 250 || len(out) != len(in)+added {
		t.Fatalf("escalated %d of 1000 at 20%%", added)
	}
	for i, r := range out {
		if r.After != "" {
			if out[i-1].ID != r.After || r.Mode != ModeHigh || r.ThinkTokens != 777 {
				t.Fatalf("retry %+v after %+v", r, out[i-1])
			}
		}
	}
	// Without high-mode requests or an effort budget there is nothing to
	// draw the retry's thinking from.
	if _, _, err := (&WhatIf{Escalate: 0.5}).Apply(in[:10]); err == nil {
		t.Fatal("escalation without a high-mode length accepted")
	}
}

func TestRoute(t *testing.T) {
	kept, routed, err := Route(reqs3(), "low", 1)
	if err != nil || len(routed) != 1 || routed[0].ID != "c" || len(kept) != 2 {
		t.Fatalf("kept %v routed %v err %v", kept, routed, err)
	}
	kept, routed, err = Route(reqs3(), "mode=high", 1)
	if err != nil || len(routed) != 1 || routed[0].ThinkTokens != 0 {
		t.Fatalf("routed %+v: the pool's model does not think", routed)
	}
	for _, bad := range []string{"1.5", "mode=", "category=", "tier=gold", "extreme"} {
		if _, _, err := Route(reqs3(), bad, 1); err == nil {
			t.Errorf("Route(%q) accepted", bad)
		}
	}
}

func TestWhatIfValidate(t *testing.T) {
	w := WhatIf{ThinkBudget: -1, BudgetPolicy: "guess", Escalate: 2}
	err := w.Validate()
	if got, want := inputerr.Fields(err), []string{"ThinkBudget", "BudgetPolicy", "Escalate"}; !slices.Equal(got, want) {
		t.Errorf("Validate() = %v, fields %v, want %v", err, got, want)
	}
}
