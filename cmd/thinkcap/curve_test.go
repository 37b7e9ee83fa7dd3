package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/thinkcap/thinkcap/internal/golden"
)

var curveEvalPath = filepath.Join("testdata", "curve-eval.csv")

func TestCurveGolden(t *testing.T) {
	out, errOut, code := execAnalysisCmd(t, newCurveCmd(), curveEvalPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, "curve-table.txt", []byte(out))

	out, errOut, code = execAnalysisCmd(t, newCurveCmd(), curveEvalPath, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, "curve.json", []byte(out))
	var rep struct {
		Categories []struct {
			Category          string
			RecommendedBudget int `json:"recommended_budget"`
			Points            []struct {
				Budget     int
				Accuracy   float64
				MeanTokens float64 `json:"mean_tokens"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// extraction is as good at budget 0 as anywhere; math flattens at 1024.
	if len(rep.Categories) != 2 || rep.Categories[0].Category != "extraction" || rep.Categories[0].RecommendedBudget != 0 ||
		rep.Categories[1].Category != "math" || rep.Categories[1].RecommendedBudget != 1024 {
		t.Errorf("report %+v", rep)
	}
	if p := rep.Categories[1].Points[0]; p.Budget != 0 || p.Accuracy != 0.25 || p.MeanTokens != 250 {
		t.Errorf("math at budget 0: %+v", p)
	}
}

func TestCurvePlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "curves.png")
	_, errOut, code := execAnalysisCmd(t, newCurveCmd(), curveEvalPath, "--plot", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() == 0 {
		t.Fatalf("empty plot: %v", err)
	}
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("plot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("plot is %v", b)
	}
}
