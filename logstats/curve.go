package logstats

import (
	"maps"
	"slices"

	"github.com/thinkcap/thinkcap/workload"
)

// CurveReport is what `thinkcap curve` prints: per task category, accuracy
// and mean tokens at each thinking budget of an eval run, and the budget to
// deploy. Keys may be added, never renamed.
type CurveReport struct {
	Categories []CategoryCurve `json:"categories"`
}

// CategoryCurve is the accuracy-versus-budget curve of one category (the
// empty category holds the rows that name none).
type CategoryCurve struct {
	Category string `json:"category"`
	// RecommendedBudget is the budget at the knee of accuracy versus mean
	// tokens (see Knee), or the smallest budget when accuracy peaks there
	// (extraction and classification typically do at budget 0).
	RecommendedBudget int `json:"recommended_budget"`
	// NoKnee is true when accuracy is still rising at the largest budget
	// tested and Kneedle finds no knee before it: more thinking kept paying
	// in the tested range, so RecommendedBudget is that largest (most
	// accurate) budget and a larger one may do better still.
	NoKnee bool `json:"no_knee,omitempty"`
	// Points are in increasing budget.
	Points []CurvePoint `json:"points"`
	// knee is the index in Points of RecommendedBudget, for the plot.
	knee int
}

// CurvePoint is one budget of a category.
type CurvePoint struct {
	Budget int `json:"budget"`
	// Items is the number of graded rows at this budget.
	Items int `json:"items"`
	// Accuracy is the fraction of rows graded correct.
	Accuracy float64 `json:"accuracy"`
	// MeanTokens is the mean of total_tokens.
	MeanTokens float64 `json:"mean_tokens"`
	// AccuracyPer1KTokens is Accuracy / MeanTokens × 1000 (MeanTokens taken
	// as at least 1, so that no thinking divides by nothing): accuracy bought per thousand
	// tokens, which falls once extra thinking stops paying.
	AccuracyPer1KTokens float64 `json:"accuracy_per_1k_tokens"`
}

// CurveAccumulator builds a CurveReport from eval rows fed one at a time.
// It keeps three counters per category and budget. The zero value is not
// usable: call NewCurveAccumulator.
type CurveAccumulator struct {
	categories map[string]map[int]*curveCounts
}

// curveCounts are the rows of one category at one budget.
type curveCounts struct {
	rows, correct int
	tokens        int64
}

// NewCurveAccumulator returns an empty accumulator.
func NewCurveAccumulator() *CurveAccumulator {
	return &CurveAccumulator{categories: map[string]map[int]*curveCounts{}}
}

// Add counts one graded row.
func (a *CurveAccumulator) Add(row *workload.EvalRow) {
	budgets := a.categories[row.Category]
	if budgets == nil {
		budgets = map[int]*curveCounts{}
		a.categories[row.Category] = budgets
	}
	c := budgets[row.Budget]
	if c == nil {
		c = &curveCounts{}
		budgets[row.Budget] = c
	}
	c.rows++
	if row.Correct {
		c.correct++
	}
	c.tokens += int64(row.TotalTokens)
}

// Result draws the curves of the rows added so far, categories in
// alphabetical order, and finds each knee.
func (a *CurveAccumulator) Result() CurveReport {
	rep := CurveReport{Categories: make([]CategoryCurve, 0, len(a.categories))}
	for _, cat := range slices.Sorted(maps.Keys(a.categories)) {
		budgets := a.categories[cat]
		curve := CategoryCurve{Category: cat, Points: make([]CurvePoint, 0, len(budgets))}
		for _, b := range slices.Sorted(maps.Keys(budgets)) {
			c := budgets[b]
			p := CurvePoint{
				Budget:     b,
				Items:      c.rows,
				Accuracy:   float64(c.correct) / float64(c.rows),
				MeanTokens: float64(c.tokens) / float64(c.rows),
			}
			p.AccuracyPer1KTokens = p.Accuracy / max(p.MeanTokens, 1) * 1000
			curve.Points = append(curve.Points, p)
		}
		curve.knee, curve.NoKnee = recommend(curve.Points)
		curve.RecommendedBudget = curve.Points[curve.knee].Budget
		rep.Categories = append(rep.Categories, curve)
	}
	return rep
}

// KneeIndex is the index in Points of the recommended budget.
func (c *CategoryCurve) KneeIndex() int { return c.knee }

// recommend picks the point to deploy from points sorted by budget: the
// smallest budget when nothing beats its accuracy (more thinking buys
// nothing), else the knee of accuracy versus mean tokens. noKnee says the
// curve has no knee and its most accurate point is the largest budget: the
// tested budgets end before the returns diminish.
func recommend(points []CurvePoint) (i int, noKnee bool) {
	first := points[0].Accuracy
	if !slices.ContainsFunc(points[1:], func(p CurvePoint) bool { return p.Accuracy > first }) {
		return 0, false
	}
	x := make([]float64, len(points))
	y := make([]float64, len(points))
	for i, p := range points {
		x[i], y[i] = p.MeanTokens, p.Accuracy
	}
	k, confirmed := FindKnee(x, y)
	return k, !confirmed && k == len(points)-1
}
