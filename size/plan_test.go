package size

import (
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/workload"
)

// planCase is two categories of light traffic (one replica serves any
// budget, so the cost per hour is the same and the cost per correct answer
// follows accuracy): "a", whose 512-token budget is clearly better than
// none on 400 eval items, and "b", whose 512 is 5 points better on 40
// items, inside the eval's interval.
func planCase(t *testing.T) ([]Candidate, []workload.Request, logstats.CurveReport) {
	t.Helper()
	cands, err := tinySpace(t, 20000).Candidates()
	if err != nil {
		t.Fatal(err)
	}
	var reqs []workload.Request
	for i := range 200 {
		cat := "a"
		if i%2 == 1 {
			cat = "b"
		}
		reqs = append(reqs, workload.Request{ArrivalS: float64(i) * 0.5, Category: cat, PromptTokens: 200, ThinkTokens: 800, AnswerTokens: 100})
	}
	curves := logstats.CurveReport{Categories: []logstats.CategoryCurve{
		{Category: "a", RecommendedBudget: 512, Points: []logstats.CurvePoint{
			{Budget: 0, Items: 400, Accuracy: 0.5, MeanTokens: 100}, {Budget: 512, Items: 400, Accuracy: 0.9, MeanTokens: 600}}},
		{Category: "b", RecommendedBudget: 512, Points: []logstats.CurvePoint{
			{Budget: 0, Items: 40, Accuracy: 0.8, MeanTokens: 100}, {Budget: 512, Items: 40, Accuracy: 0.85, MeanTokens: 600}}},
	}}
	return cands, reqs, curves
}

func planOptions(t *testing.T) PlanOptions {
	slos, err := analysis.ParseSLOs("ttft_p99=10s")
	if err != nil {
		t.Fatal(err)
	}
	return PlanOptions{Options: Options{SLOs: slos}}
}

// TestPlanBudgetsByHand: a takes 512 (90% against 50%, resolvable), b
// stays at 0 (85% against 80% on 40 items is inside the interval, so the
// larger budget is not even tried), and the cost per correct answer is
// the price over the correct answers an hour.
func TestPlanBudgetsByHand(t *testing.T) {
	cands, reqs, curves := planCase(t)
	plan, err := PlanBudgets(cands, reqs, curves, planOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	c := plan.Chosen
	if c == nil || c.Budgets["a"] != 512 || c.Budgets["b"] != 0 {
		t.Fatalf("chosen %+v", c)
	}
	if len(plan.Frontier) != 2 {
		t.Errorf("%d policies tried, want 2 (a at 0 and 512; b's 512 unresolvable, not tried)", len(plan.Frontier))
	}
	// Half the requests each at 2 req/s: 0.5 × 0.9 + 0.5 × 0.8 correct.
	want := c.CostPerHour / (2 * 3600 * (0.5*0.9 + 0.5*0.8)) * 1000
	if diff := c.CostPer1KCorrect - want; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("$%.4f per 1,000 correct, want %.4f", c.CostPer1KCorrect, want)
	}
	if plan.Knee == nil || plan.Knee.Budgets["b"] != 512 || len(plan.Global) != 2 {
		t.Errorf("knee %+v, %d global policies", plan.Knee, len(plan.Global))
	}
}

// TestPlanFloor: a floor above b's 0-budget accuracy makes 512 the choice.
func TestPlanFloor(t *testing.T) {
	cands, reqs, curves := planCase(t)
	opt := planOptions(t)
	opt.MinAccuracy = map[string]float64{"b": 0.84}
	plan, err := PlanBudgets(cands, reqs, curves, opt)
	if err != nil {
		t.Fatal(err)
	}
	if c := plan.Chosen; c == nil || c.Budgets["b"] != 512 || c.Budgets["a"] != 512 {
		t.Fatalf("chosen %+v", c)
	}
	for _, r := range plan.Chosen.Categories {
		if r.Accuracy < opt.MinAccuracy[r.Category] {
			t.Errorf("%s at %.2f, below its floor", r.Category, r.Accuracy)
		}
	}
}

func TestWilson(t *testing.T) {
	lo, hi := wilson(0.8, 40)
	if lo < 0.64 || lo > 0.66 || hi < 0.89 || hi > 0.91 {
		t.Errorf("80%% of 40: [%.3f, %.3f], want about [0.652, 0.895]", lo, hi)
	}
	if lo, hi := wilson(1, 10); hi < 1-1e-9 || lo < 0.7 {
		t.Errorf("10 of 10: [%.3f, %.3f]", lo, hi)
	}
}
