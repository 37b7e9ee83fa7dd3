package logstats

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/thinkcap/thinkcap/internal/approx"
	"github.com/thinkcap/thinkcap/logstats/logstatstest"
	"github.com/thinkcap/thinkcap/workload"
)

// sampleCurves is the curves of logstatstest.SampleEval, fed in reverse:
// order must not matter.
func sampleCurves() CurveReport {
	a := NewCurveAccumulator()
	logstatstest.Feed(a, logstatstest.SampleEvalReversed())
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
	if p.Budget != 512 || p.Items != 10 || !approx.Equal(p.Accuracy, 0.5) || !approx.Equal(p.MeanTokens, 800) || !approx.Equal(p.AccuracyPer1KTokens, 0.625) {
		t.Errorf("math at 512: %+v", p)
	}
}

// TestCurvePeakAtZero: when budget 0 is already the most accurate, the
// recommendation is 0, even if noise makes budget 0 cost more tokens than a
// larger budget (which would put it last on the Kneedle axis).
func TestCurvePeakAtZero(t *testing.T) {
	a := NewCurveAccumulator()
	for _, r := range [][]workload.EvalRow{
		logstatstest.EvalRows("classify", 0, 10, 9, 200),
		logstatstest.EvalRows("classify", 256, 10, 9, 180),
		logstatstest.EvalRows("classify", 1024, 10, 7, 600),
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
// no_knee key (report.TestWriteCurveTableNoKnee checks the table).
func TestCurveNoKnee(t *testing.T) {
	for _, tt := range logstatstest.NoKneeCurves() {
		t.Run(tt.Name, func(t *testing.T) {
			a := NewCurveAccumulator()
			for _, r := range tt.Rows {
				for i := range r {
					a.Add(&r[i])
				}
			}
			rep := a.Result()
			c := rep.Categories[0]
			if c.NoKnee != tt.NoKnee || c.RecommendedBudget != tt.Budget {
				t.Errorf("no_knee %v, budget %d; want %v, %d", c.NoKnee, c.RecommendedBudget, tt.NoKnee, tt.Budget)
			}
			b, _ := json.Marshal(rep)
			if keyed := bytes.Contains(b, []byte(`"no_knee":true`)); keyed != tt.NoKnee {
				t.Errorf("JSON no_knee %v, want %v:\n%s", keyed, tt.NoKnee, b)
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
