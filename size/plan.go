package size

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// The question a team with a reasoning model has is not one budget for all:
// which thinking budget for each task category, on which deployment, gives
// the accuracy needed at the lowest cost per correct answer within the
// latency SLOs. Plan answers it from an eval run at several budgets (the
// curve's input) and the traffic: each category's budget caps its
// requests' thinking (forced closure), the search finds the cheapest
// deployment meeting the SLOs for that traffic, and the cost per correct
// answer is its price per hour over the correct answers an hour brings at
// the eval's accuracy. A category's budget moves the whole fleet's
// queueing, so the budgets are searched together; the search is kept
// small by the eval's own resolution: a larger budget whose accuracy the
// eval cannot tell from a smaller one's (their 95% intervals overlap)
// only costs more, and is not tried.

// PlanOptions are Plan's.
type PlanOptions struct {
	Options
	// MinAccuracy are per-category floors (--min-accuracy): a budget whose
	// accuracy is below its category's floor is not chosen.
	MinAccuracy map[string]float64
}

// Plan is the answer, as `thinkcap plan -o json` prints it.
type Plan struct {
	// Chosen is the cheapest policy per correct answer meeting every SLO
	// and floor; nil when none does.
	Chosen *Policy `json:"chosen"`
	// Knee is every category at its curve's recommended budget; Global
	// one budget for all, each budget the eval tested.
	Knee   *Policy  `json:"knee"`
	Global []Policy `json:"global"`
	// Frontier is every policy evaluated, for the plot.
	Frontier []Policy `json:"frontier"`
	// Unevaluated names the traffic's categories the eval has no curve
	// for: their requests keep their thinking and count in the cost, not
	// in the correct answers.
	Unevaluated []string `json:"unevaluated,omitempty"`
	SLOs        []string `json:"slos"`
	RatePerS    float64  `json:"rate_per_s"`
}

// Policy is one budget per evaluated category and what it costs.
type Policy struct {
	Name    string         `json:"name"`
	Budgets map[string]int `json:"budgets"`
	// Deployment is the cheapest candidate meeting the SLOs with these
	// budgets; empty when none does.
	Deployment  string  `json:"deployment"`
	Replicas    int     `json:"replicas"`
	CostPerHour float64 `json:"cost_per_hour"`
	// Accuracy is over the evaluated categories' requests, weighted by
	// their share of the traffic; CorrectPerHour at the traffic's rate.
	Accuracy       float64 `json:"accuracy"`
	CorrectPerHour float64 `json:"correct_per_hour"`
	// CostPer1KCorrect is CostPerHour over CorrectPerHour × 1,000.
	CostPer1KCorrect float64       `json:"cost_per_1k_correct"`
	Passes           bool          `json:"passes"`
	Categories       []CategoryRow `json:"categories"`
}

// CategoryRow is one category under a policy.
type CategoryRow struct {
	Category string  `json:"category"`
	Budget   int     `json:"budget"`
	Accuracy float64 `json:"accuracy"`
	// AccuracyLow and AccuracyHigh are the eval's 95% Wilson interval.
	AccuracyLow  float64 `json:"accuracy_low"`
	AccuracyHigh float64 `json:"accuracy_high"`
	Items        int     `json:"eval_items"`
	Requests     int     `json:"requests"`
	ThinkMean    float64 `json:"think_tokens_mean"`
	AnswerMean   float64 `json:"answer_tokens_mean"`
	// GPUShare is the category's share of the generated and prefilled
	// tokens: the share of the fleet's time it takes.
	GPUShare         float64 `json:"gpu_share"`
	CostPer1KCorrect float64 `json:"cost_per_1k_correct"`
	// TTFA at this budget on the chosen deployment (the chosen policy only).
	TTFAP50S float64 `json:"ttfa_p50_s,omitempty"`
	TTFAP99S float64 `json:"ttfa_p99_s,omitempty"`
}

// Verdict is nil when a policy met every SLO and floor.
func (p *Plan) Verdict() error {
	if p.Chosen == nil {
		return ErrNoCandidate
	}
	return nil
}

// ParseFloors reads per-category accuracy floors, category=fraction
// pairs (math=0.8,rag=0.9), reporting every bad pair.
func ParseFloors(spec string) (map[string]float64, error) {
	out := map[string]float64{}
	if spec == "" {
		return out, nil
	}
	var problems inputerr.List
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(part, "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || !(f >= 0 && f <= 1) || strings.TrimSpace(k) == "" {
			problems.Fieldf("MinAccuracy", "%q: want category=fraction pairs, e.g. math=0.8", part)
			continue
		}
		out[strings.TrimSpace(k)] = f
	}
	return out, problems.Err()
}

// Validate reports every problem of the options: the search's, and each
// floor outside [0, 1].
func (o PlanOptions) Validate() error {
	var problems inputerr.List
	problems.Add(o.Options.Validate())
	for _, cat := range slices.Sorted(maps.Keys(o.MinAccuracy)) {
		if f := o.MinAccuracy[cat]; !(f >= 0 && f <= 1) {
			problems.Fieldf("MinAccuracy", "%s=%g: a floor is a fraction in [0, 1]", cat, f)
		}
	}
	return problems.Err()
}

// PlanBudgets searches the per-category budgets and the deployment
// together (see the file comment).
func PlanBudgets(cands []Candidate, reqs []workload.Request, curves logstats.CurveReport, opt PlanOptions) (*Plan, error) {
	opt.defaults()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if len(curves.Categories) == 0 {
		return nil, errors.New("plan: the eval has no category")
	}
	byCat := map[string]*logstats.CategoryCurve{}
	for i := range curves.Categories {
		c := &curves.Categories[i]
		byCat[c.Category] = c
	}
	counts := map[string]int{}
	for i := range reqs {
		counts[reqs[i].Category]++
	}
	plan := &Plan{SLOs: sloNames(opt.SLOs)}
	var evaluated []string
	for _, cat := range slices.Sorted(maps.Keys(counts)) {
		if byCat[cat] != nil {
			evaluated = append(evaluated, cat)
		} else {
			plan.Unevaluated = append(plan.Unevaluated, cat)
		}
	}
	if len(evaluated) == 0 {
		return nil, errors.New("plan: no category of the traffic has a curve in the eval (their names must match)")
	}
	if rate, err := workload.LogRate(reqs); err == nil {
		plan.RatePerS = rate
	}
	// Each category's budgets worth trying: meeting its floor, and each
	// resolvably more accurate than every smaller one kept.
	options := map[string][]int{}
	for _, cat := range evaluated {
		options[cat] = candidatesFor(byCat[cat], opt.MinAccuracy[cat])
	}
	eval := func(name string, budgets map[string]int) (Policy, error) {
		return evaluatePolicy(name, budgets, cands, reqs, byCat, evaluated, counts, plan.RatePerS, opt)
	}
	var combos []map[string]int
	var build func(i int, cur map[string]int)
	build = func(i int, cur map[string]int) {
		if i == len(evaluated) {
			combos = append(combos, maps.Clone(cur))
			return
		}
		for _, b := range options[evaluated[i]] {
			cur[evaluated[i]] = b
			build(i+1, cur)
		}
	}
	build(0, map[string]int{})
	for _, budgets := range combos {
		p, err := eval(budgetName(budgets, evaluated), budgets)
		if err != nil {
			return nil, err
		}
		plan.Frontier = append(plan.Frontier, p)
		if p.Passes && meetsFloors(&p, opt.MinAccuracy) && (plan.Chosen == nil || p.CostPer1KCorrect < plan.Chosen.CostPer1KCorrect) {
			chosen := p
			plan.Chosen = &chosen
		}
	}
	knee := map[string]int{}
	for _, cat := range evaluated {
		knee[cat] = byCat[cat].RecommendedBudget
	}
	k, err := eval("knee per category", knee)
	if err != nil {
		return nil, err
	}
	plan.Knee = &k
	for _, b := range globalBudgets(byCat, evaluated) {
		budgets := map[string]int{}
		for _, cat := range evaluated {
			budgets[cat] = b
		}
		g, err := eval(fmt.Sprintf("global %d", b), budgets)
		if err != nil {
			return nil, err
		}
		plan.Global = append(plan.Global, g)
	}
	if plan.Chosen != nil {
		if err := addTTFA(plan.Chosen, cands, reqs); err != nil {
			return nil, err
		}
	}
	return plan, nil
}

// candidatesFor are a category's budgets worth trying, in increasing
// budget: those meeting the floor, each kept only if its accuracy is
// resolvably above (its 95% interval clear of) every smaller budget kept,
// since otherwise it costs more tokens for an accuracy the eval cannot
// tell apart. With no budget meeting the floor, the most accurate is kept
// (the policy will say it misses the floor).
func candidatesFor(c *logstats.CategoryCurve, floor float64) []int {
	var kept []logstats.CurvePoint
	best := c.Points[0]
	for _, p := range c.Points {
		if p.Accuracy > best.Accuracy {
			best = p
		}
		if p.Accuracy < floor {
			continue
		}
		lo, _ := wilson(p.Accuracy, p.Items)
		resolvable := true
		for _, k := range kept {
			if _, hi := wilson(k.Accuracy, k.Items); lo <= hi {
				resolvable = false
				break
			}
		}
		if resolvable {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return []int{best.Budget}
	}
	var budgets []int
	for _, k := range kept {
		budgets = append(budgets, k.Budget)
	}
	return budgets
}

// wilson is the 95% Wilson score interval of an accuracy over n items.
func wilson(acc float64, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	const z = 1.959964
	nf := float64(n)
	den := 1 + z*z/nf
	centre := (acc + z*z/(2*nf)) / den
	half := z * math.Sqrt(acc*(1-acc)/nf+z*z/(4*nf*nf)) / den
	return max(centre-half, 0), min(centre+half, 1)
}

// globalBudgets are the budgets every evaluated category's eval tested.
func globalBudgets(byCat map[string]*logstats.CategoryCurve, cats []string) []int {
	var common []int
	for i, cat := range cats {
		var bs []int
		for _, p := range byCat[cat].Points {
			bs = append(bs, p.Budget)
		}
		if i == 0 {
			common = bs
			continue
		}
		common = slices.DeleteFunc(common, func(b int) bool { return !slices.Contains(bs, b) })
	}
	return common
}

func budgetName(b map[string]int, cats []string) string {
	name := ""
	for i, c := range cats {
		if i > 0 {
			name += ","
		}
		name += fmt.Sprintf("%s=%d", c, b[c])
	}
	return name
}

func meetsFloors(p *Policy, floors map[string]float64) bool {
	for _, c := range p.Categories {
		if c.Accuracy < floors[c.Category] {
			return false
		}
	}
	return true
}

// applyBudgets caps each evaluated category's thinking at its budget with
// forced closure (budget 0: thinking off).
func applyBudgets(reqs []workload.Request, budgets map[string]int) []workload.Request {
	out := make([]workload.Request, len(reqs))
	copy(out, reqs)
	for i := range out {
		if b, ok := budgets[out[i].Category]; ok {
			out[i].ThinkTokens = workload.CloseThinking(out[i].ThinkTokens, b)
			// A request the log cut inside its thinking has no answer
			// length; closed, it answers: at least one token.
			out[i].AnswerTokens = max(out[i].AnswerTokens, 1)
		}
	}
	return out
}

// evaluatePolicy prices one set of budgets: the cheapest deployment that
// meets the SLOs with them, and the correct answers an hour brings.
func evaluatePolicy(name string, budgets map[string]int, cands []Candidate, reqs []workload.Request,
	byCat map[string]*logstats.CategoryCurve, evaluated []string, counts map[string]int, rate float64, opt PlanOptions) (Policy, error) {
	traffic := applyBudgets(reqs, budgets)
	res, err := Search(cands, traffic, opt.Options)
	if err != nil {
		return Policy{}, err
	}
	p := Policy{Name: name, Budgets: budgets}
	if res.Best != nil {
		p.Deployment, p.Replicas, p.CostPerHour, p.Passes = res.Best.Name, res.Best.Replicas, res.Best.CostPerHour, true
	}
	// GPU time by category: its prefilled and generated tokens.
	work := map[string]float64{}
	var total float64
	think, answer := map[string]float64{}, map[string]float64{}
	for i := range traffic {
		r := &traffic[i]
		w := float64(r.PromptTokens + r.OutputTokens())
		work[r.Category] += w
		total += w
		think[r.Category] += float64(r.ThinkTokens)
		answer[r.Category] += float64(r.AnswerTokens)
	}
	n := len(reqs)
	var correctShare float64
	evaluatedShare := 0.0
	for _, cat := range evaluated {
		pt := pointAt(byCat[cat], budgets[cat])
		lo, hi := wilson(pt.Accuracy, pt.Items)
		share := float64(counts[cat]) / float64(n)
		correctShare += share * pt.Accuracy
		evaluatedShare += share
		row := CategoryRow{Category: cat, Budget: budgets[cat], Accuracy: pt.Accuracy, AccuracyLow: lo, AccuracyHigh: hi,
			Items: pt.Items, Requests: counts[cat], ThinkMean: think[cat] / float64(counts[cat]), AnswerMean: answer[cat] / float64(counts[cat])}
		if total > 0 {
			row.GPUShare = work[cat] / total
		}
		if correct := rate * 3600 * share * pt.Accuracy; correct > 0 && p.Passes {
			row.CostPer1KCorrect = p.CostPerHour * row.GPUShare / correct * 1000
		}
		p.Categories = append(p.Categories, row)
	}
	if evaluatedShare > 0 {
		p.Accuracy = correctShare / evaluatedShare
	}
	p.CorrectPerHour = rate * 3600 * correctShare
	if p.Passes && p.CorrectPerHour > 0 {
		p.CostPer1KCorrect = p.CostPerHour / p.CorrectPerHour * 1000
	} else {
		p.CostPer1KCorrect = math.Inf(1)
	}
	return p, nil
}

// pointAt is a category's eval point at budget b (the nearest budget not
// above it when b was not tested).
func pointAt(c *logstats.CategoryCurve, b int) logstats.CurvePoint {
	best := c.Points[0]
	for _, p := range c.Points {
		if p.Budget <= b {
			best = p
		}
	}
	return best
}

// addTTFA simulates the chosen policy on its deployment and gives each
// category its time to first answer token at its budget.
func addTTFA(p *Policy, cands []Candidate, reqs []workload.Request) error {
	var cfg *sim.Config
	for i := range cands {
		if cands[i].Name() == p.Deployment {
			c := cands[i].Config
			cfg = &c
		}
	}
	if cfg == nil {
		return nil
	}
	cfg.Replicas, cfg.Router = p.Replicas, "least-requests"
	rep, err := sim.Run(*cfg, applyBudgets(reqs, p.Budgets), sim.Options{})
	if err != nil {
		return err
	}
	byCat := map[string][]float64{}
	for _, r := range rep.Results {
		if r.OK() && r.AnswerTokens > 0 {
			byCat[r.Category] = append(byCat[r.Category], r.TTFAS)
		}
	}
	for i := range p.Categories {
		c := &p.Categories[i]
		st := analysis.Describe(byCat[c.Category])
		if !st.NoData {
			c.TTFAP50S, c.TTFAP99S = st.P50, st.P99
		}
	}
	return nil
}
