package report

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/thinkcap/thinkcap/logstats"
)

func TestWriteCurvePlot(t *testing.T) {
	rep := sampleCurves()
	var buf bytes.Buffer
	if err := WriteCurvePlot(&buf, &rep); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatal("empty PNG")
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// 8 × 5 inches at gonum/plot's 96 dpi for PNG.
	if b := img.Bounds(); b.Dx() < 700 || b.Dy() < 400 {
		t.Errorf("image is %v, want about 768 × 480", b)
	}
	// Something was drawn: not a single colour.
	first := img.At(0, 0)
	drawn := false
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && !drawn; y += 7 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 7 {
			if img.At(x, y) != first {
				drawn = true
				break
			}
		}
	}
	if !drawn {
		t.Error("blank image")
	}
}

func TestWriteCurvePlotErrors(t *testing.T) {
	if err := WriteCurvePlot(&bytes.Buffer{}, &logstats.CurveReport{}); err == nil {
		t.Error("no curves: no error")
	}
	if err := WriteCurvePlot(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil report: no error")
	}
	rep := sampleCurves()
	if err := WriteCurvePlot(&failingWriter{n: 10}, &rep); err == nil {
		t.Error("write error not returned")
	}
}
