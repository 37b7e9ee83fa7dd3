// Package logstatstest holds the request logs and eval rows that the tests of
// logstats and of report share: the log commands' numbers are checked in
// logstats, their tables and plots in report, from the same records.
package logstatstest

import (
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

// StatsLog is a small log whose statistics are computed by hand in
// logstats.TestStatsHandComputed.
func StatsLog() []workload.Request {
	return []workload.Request{
		{Mode: "high", Category: "math", ThinkTokens: 300, AnswerTokens: 20, FinishReason: "stop"},
		{Mode: "low", Category: "chat", ThinkTokens: 0, AnswerTokens: 150},
		{Mode: "high", Category: "math", ThinkTokens: 100, AnswerTokens: 10, FinishReason: "stop"},
		{Mode: "high", Category: "math", ThinkTokens: 1000, AnswerTokens: 0, FinishReason: "length"},
		{Mode: "low", Category: "chat", ThinkTokens: 0, AnswerTokens: 50},
		{Mode: "high", Category: "math", ThinkTokens: 400, AnswerTokens: 20, FinishReason: "length"},
		{Mode: "high", Category: "math", ThinkTokens: 200, AnswerTokens: 10, FinishReason: "stop"},
		{Mode: "low", Category: "chat", ThinkTokens: 0, AnswerTokens: 100},
	}
}

// DriftClass makes n requests of one class whose thinking tokens average
// think (think-20 … think+20), the first correct of them judged correct, or
// none judged when correct < 0.
func DriftClass(mode, category string, n, think, correct int) []workload.Request {
	reqs := make([]workload.Request, n)
	for i := range reqs {
		reqs[i] = workload.Request{Mode: mode, Category: category, ThinkTokens: think - 20 + (i%5)*10, AnswerTokens: 100}
		if correct >= 0 {
			ok := i < correct
			reqs[i].Correct = &ok
		}
	}
	return reqs
}

// EvalRows makes the rows of one category at one budget: n items, the first
// correct of them right, each costing tokens.
func EvalRows(category string, budget, n, correct, tokens int) []workload.EvalRow {
	rows := make([]workload.EvalRow, n)
	for i := range rows {
		rows[i] = workload.EvalRow{Category: category, Budget: budget, Correct: i < correct, TotalTokens: tokens}
	}
	return rows
}

// SampleEval is a small eval of the seed's typical mix: extraction peaks at
// budget 0, math keeps rising and flattens, rag overthinks past its knee.
func SampleEval() []workload.EvalRow {
	var rows []workload.EvalRow
	for _, r := range [][]workload.EvalRow{
		EvalRows("math", 0, 10, 2, 300),
		EvalRows("math", 512, 10, 5, 800),
		EvalRows("math", 1024, 10, 7, 1300),
		EvalRows("math", 2048, 10, 8, 2300),
		EvalRows("math", 4096, 10, 8, 4000),
		EvalRows("extraction", 0, 10, 9, 120),
		EvalRows("extraction", 256, 10, 9, 350),
		EvalRows("extraction", 1024, 10, 8, 900),
		EvalRows("rag", 0, 10, 5, 200),
		EvalRows("rag", 256, 10, 8, 420),
		EvalRows("rag", 512, 10, 9, 650),
		EvalRows("rag", 2048, 10, 7, 1800),
	} {
		rows = append(rows, r...)
	}
	return rows
}

// NoKneeCurve is one category's eval rows and the knee its curve must have:
// NoKnee when it still rises at its largest budget, and the budget
// recommended.
type NoKneeCurve struct {
	Name   string
	Rows   [][]workload.EvalRow
	NoKnee bool
	Budget int
}

// NoKneeCurves are curves that have or lack a knee within their budgets.
func NoKneeCurves() []NoKneeCurve {
	return []NoKneeCurve{
		// The sample eval's math: noisy and still rising at 4,096.
		{"still rising", [][]workload.EvalRow{
			EvalRows("math", 0, 120, 36, 183), EvalRows("math", 256, 120, 54, 439),
			EvalRows("math", 512, 120, 49, 694), EvalRows("math", 1024, 120, 69, 1172),
			EvalRows("math", 2048, 120, 75, 1931), EvalRows("math", 4096, 120, 97, 2757),
		}, true, 4096},
		{"straight line", [][]workload.EvalRow{
			EvalRows("math", 0, 10, 2, 100), EvalRows("math", 512, 10, 5, 600), EvalRows("math", 1024, 10, 8, 1100),
		}, true, 1024},
		{"two budgets", [][]workload.EvalRow{EvalRows("math", 0, 10, 2, 100), EvalRows("math", 512, 10, 5, 600)}, true, 512},
		{"flattens", [][]workload.EvalRow{
			EvalRows("math", 0, 10, 2, 300), EvalRows("math", 512, 10, 5, 800), EvalRows("math", 1024, 10, 7, 1300),
			EvalRows("math", 2048, 10, 8, 2300), EvalRows("math", 4096, 10, 8, 4000),
		}, false, 1024},
		// Rising at the end, but not the most accurate: the knee stands.
		{"dips and recovers below the peak", [][]workload.EvalRow{
			EvalRows("rag", 0, 10, 5, 200), EvalRows("rag", 256, 10, 8, 420), EvalRows("rag", 512, 10, 9, 650),
			EvalRows("rag", 2048, 10, 6, 1800), EvalRows("rag", 4096, 10, 7, 2000),
		}, false, 512},
		{"best at budget 0", [][]workload.EvalRow{EvalRows("x", 0, 10, 9, 100), EvalRows("x", 512, 10, 8, 600)}, false, 0},
	}
}

// Mixture is a three-class synthetic log: low effort with thinking off,
// medium with a 1,024-token thinking budget (a cap spike), high with long
// gamma-shaped thinking.
func Mixture(t testing.TB, n int) []workload.Request {
	t.Helper()
	syn := workload.Synthetic{
		Requests: n, RatePerS: 10, Seed: 42,
		Classes: []workload.Class{
			{Name: "low", Mode: workload.ModeLow, Share: 0.6,
				Prompt: simtest.Dist(t, "lognormal:p50=500,sigma=0.8"), Think: workload.Constant(0),
				Answer: simtest.Dist(t, "lognormal:p50=150,sigma=0.5,max=512")},
			{Name: "medium", Mode: workload.ModeMedium, Category: "rag", Share: 0.3,
				Prompt: simtest.Dist(t, "lognormal:p50=2000,sigma=0.5"), Think: simtest.Dist(t, "lognormal:p50=500,sigma=0.9,max=1024"),
				Answer: simtest.Dist(t, "gamma:shape=3,scale=100")},
			{Name: "high", Mode: workload.ModeHigh, Category: "math", Share: 0.1,
				Prompt: simtest.Dist(t, "lognormal:p50=300,sigma=0.6"), Think: simtest.Dist(t, "gamma:shape=1.5,scale=2000,spike=0@0.05"),
				Answer: simtest.Dist(t, "lognormal:p50=400,sigma=0.4")},
		},
	}
	reqs, err := syn.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// Adder is what the log commands' accumulators have in common: they take
// one record at a time.
type Adder[T any] interface{ Add(*T) }

// Feed adds every record of every slice to a, in order.
func Feed[T any](a Adder[T], records ...[]T) {
	for _, rs := range records {
		for i := range rs {
			a.Add(&rs[i])
		}
	}
}

// SampleEvalReversed is SampleEval last row first, for the tests that check
// that the order of the rows does not matter.
func SampleEvalReversed() []workload.EvalRow {
	rows := SampleEval()
	slices.Reverse(rows)
	return rows
}
