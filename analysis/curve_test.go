package analysis

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// evalRows makes the rows of one category at one budget: n items, the first
// correct of them right, each costing tokens.
func evalRows(category string, budget, n, correct, tokens int) []workload.EvalRow {
	rows := make([]workload.EvalRow, n)
	for i := range rows {
		rows[i] = workload.EvalRow{Category: category, Budget: budget, Correct: i < correct, TotalTokens: tokens}
	}
	return rows
}

// sampleCurves is a small eval of the seed's typical mix: extraction peaks at
// budget 0, math keeps rising and flattens, rag overthinks past its knee.
func sampleCurves() CurveReport {
	a := NewCurveAccumulator()
	var rows []workload.EvalRow
	for _, r := range [][]workload.EvalRow{
		evalRows("math", 0, 10, 2, 300),
		evalRows("math", 512, 10, 5, 800),
		evalRows("math", 1024, 10, 7, 1300),
		evalRows("math", 2048, 10, 8, 2300),
		evalRows("math", 4096, 10, 8, 4000),
		evalRows("extraction", 0, 10, 9, 120),
		evalRows("extraction", 256, 10, 9, 350),
		evalRows("extraction", 1024, 10, 8, 900),
		evalRows("rag", 0, 10, 5, 200),
		evalRows("rag", 256, 10, 8, 420),
		evalRows("rag", 512, 10, 9, 650),
		evalRows("rag", 2048, 10, 7, 1800),
	} {
		rows = append(rows, r...)
	}
	// Feed in reverse: order must not matter.
	for i := len(rows) - 1; i >= 0; i-- {
		a.Add(&rows[i])
	}
	return a.Result()
}

func TestCurveAccumulator(t *testing.T) {
	rep := sampleCurves()
	if len(rep.Categories) != 3 {
		t.Fatalf("%d categories", len(rep.Categories))
	}
	want := []struct {
		category string
		budget   int
		points   int
	}{
		{"extraction", 0, 3},
		// math: x scaled 0 .135 .27 .54 1, y 0 .5 .833 1 1: d peaks at 1024.
		{"math", 1024, 5},
		// rag: x 0 .138 .281 1, y 0 .75 1 .5: d peaks at 512, the accuracy peak.
		{"rag", 512, 4},
	}
	for i, w := range want {
		c := rep.Categories[i]
		if c.Category != w.category || c.RecommendedBudget != w.budget || len(c.Points) != w.points {
			t.Errorf("category %d: %s budget %d with %d points, want %s budget %d with %d points",
				i, c.Category, c.RecommendedBudget, len(c.Points), w.category, w.budget, w.points)
		}
		if c.Points[c.KneeIndex()].Budget != c.RecommendedBudget {
			t.Errorf("%s: knee index %d is not the recommended budget", c.Category, c.KneeIndex())
		}
	}
	p := rep.Categories[1].Points[1] // math at 512
	if p.Budget != 512 || p.Items != 10 || !near(p.Accuracy, 0.5) || !near(p.MeanTokens, 800) || !near(p.AccuracyPer1KTokens, 0.625) {
		t.Errorf("math at 512: %+v", p)
	}
}

// TestCurvePeakAtZero: when budget 0 is already the most accurate, the
// recommendation is 0, even if noise makes budget 0 cost more tokens than a
// larger budget (which would put it last on the Kneedle axis).
func TestCurvePeakAtZero(t *testing.T) {
	a := NewCurveAccumulator()
	for _, r := range [][]workload.EvalRow{
		evalRows("classify", 0, 10, 9, 200),
		evalRows("classify", 256, 10, 9, 180),
		evalRows("classify", 1024, 10, 7, 600),
	} {
		for i := range r {
			a.Add(&r[i])
		}
	}
	if c := a.Result().Categories[0]; c.RecommendedBudget != 0 || c.KneeIndex() != 0 {
		t.Errorf("recommended %d (knee %d), want 0", c.RecommendedBudget, c.KneeIndex())
	}
}

// TestCurveNoKnee: a curve still rising at its largest budget has no knee
// in the tested range, and the report says so rather than calling the
// most accurate budget a knee; a curve that flattens has its knee and no
// no_knee key.
func TestCurveNoKnee(t *testing.T) {
	tests := []struct {
		name   string
		rows   [][]workload.EvalRow
		noKnee bool
		budget int
	}{
		// The sample eval's math: noisy and still rising at 4,096.
		{"still rising", [][]workload.EvalRow{
			evalRows("math", 0, 120, 36, 183), evalRows("math", 256, 120, 54, 439),
			evalRows("math", 512, 120, 49, 694), evalRows("math", 1024, 120, 69, 1172),
			evalRows("math", 2048, 120, 75, 1931), evalRows("math", 4096, 120, 97, 2757),
		}, true, 4096},
		{"straight line", [][]workload.EvalRow{
			evalRows("math", 0, 10, 2, 100), evalRows("math", 512, 10, 5, 600), evalRows("math", 1024, 10, 8, 1100),
		}, true, 1024},
		{"two budgets", [][]workload.EvalRow{evalRows("math", 0, 10, 2, 100), evalRows("math", 512, 10, 5, 600)}, true, 512},
		{"flattens", [][]workload.EvalRow{
			evalRows("math", 0, 10, 2, 300), evalRows("math", 512, 10, 5, 800), evalRows("math", 1024, 10, 7, 1300),
			evalRows("math", 2048, 10, 8, 2300), evalRows("math", 4096, 10, 8, 4000),
		}, false, 1024},
		// Rising at the end, but not the most accurate: the knee stands.
		{"dips and recovers below the peak", [][]workload.EvalRow{
			evalRows("rag", 0, 10, 5, 200), evalRows("rag", 256, 10, 8, 420), evalRows("rag", 512, 10, 9, 650),
			evalRows("rag", 2048, 10, 6, 1800), evalRows("rag", 4096, 10, 7, 2000),
		}, false, 512},
		{"best at budget 0", [][]workload.EvalRow{evalRows("x", 0, 10, 9, 100), evalRows("x", 512, 10, 8, 600)}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewCurveAccumulator()
			for _, r := range tt.rows {
				for i := range r {
					a.Add(&r[i])
				}
			}
			rep := a.Result()
			c := rep.Categories[0]
			if c.NoKnee != tt.noKnee || c.RecommendedBudget != tt.budget {
				t.Errorf("no_knee %v, budget %d; want %v, %d", c.NoKnee, c.RecommendedBudget, tt.noKnee, tt.budget)
			}
			var buf bytes.Buffer
			if err := WriteCurveTable(&buf, &rep); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(rep)
			said := bytes.Contains(buf.Bytes(), []byte("no knee within the tested budgets"))
			marked := bytes.Contains(buf.Bytes(), []byte("<- knee"))
			keyed := bytes.Contains(b, []byte(`"no_knee":true`))
			if said != tt.noKnee || marked == tt.noKnee || keyed != tt.noKnee {
				t.Errorf("table says no knee %v, marks a knee %v, JSON no_knee %v:\n%s%s", said, marked, keyed, buf.String(), b)
			}
		})
	}
}

func TestCurveJSON(t *testing.T) {
	rep := sampleCurves()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Categories []struct {
			Category          *string `json:"category"`
			RecommendedBudget *int    `json:"recommended_budget"`
			Points            []struct {
				Budget     *int     `json:"budget"`
				Accuracy   *float64 `json:"accuracy"`
				MeanTokens *float64 `json:"mean_tokens"`
			} `json:"points"`
		} `json:"categories"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, c := range got.Categories {
		if c.Category == nil || c.RecommendedBudget == nil || len(c.Points) == 0 {
			t.Fatalf("category lacks keys: %s", b)
		}
		for _, p := range c.Points {
			if p.Budget == nil || p.Accuracy == nil || p.MeanTokens == nil {
				t.Fatalf("point lacks keys: %s", b)
			}
		}
	}
}

func TestWriteCurveTableGolden(t *testing.T) {
	rep := sampleCurves()
	var buf bytes.Buffer
	if err := WriteCurveTable(&buf, &rep); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "curve_table.golden", buf.Bytes())
	if err := WriteCurveTable(&failingWriter{n: 50}, &rep); err == nil {
		t.Error("write error not returned")
	}
}
