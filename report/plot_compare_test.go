package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// decodePNG decodes a plot and checks it has the comparison plots' size:
// 7 × 4 inches at gonum/plot's 96 dpi for PNG.
func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if r := img.Bounds(); r.Dx() != 672 || r.Dy() != 384 {
		t.Errorf("image is %v, want 672 × 384", r)
	}
	return img
}

// hasColor reports whether some pixel is exactly c: the lines are drawn
// in their side's colour, so its pixels appear wherever a line is.
func hasColor(img image.Image, c color.RGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == c {
				return true
			}
		}
	}
	return false
}

func TestWriteCDFPlot(t *testing.T) {
	predicted := []float64{0.010, 0.012, 0.015, 0.020, 0.030, 0.050}
	measured := []float64{0.011, 0.014, 0.016, 0.025, 0.040, 0.090, 0.120}
	var buf bytes.Buffer
	if err := WriteCDFPlot(&buf, "TTFT", "ms", predicted, measured); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, buf.Bytes())
	if !hasColor(img, predictedColor) {
		t.Error("no predicted (orange) line")
	}
	if !hasColor(img, measuredColor) {
		t.Error("no measured (blue) line")
	}
}

func TestWriteCDFPlotOneSide(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCDFPlot(&buf, "TTFA", "ms", nil, []float64{0.5, 1, 2}); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, buf.Bytes())
	if hasColor(img, predictedColor) {
		t.Error("predicted line drawn for an empty sample")
	}
	if !hasColor(img, measuredColor) {
		t.Error("no measured line")
	}
}

func TestWriteCDFPlotAxes(t *testing.T) {
	for name, values := range map[string][]float64{
		// Four decades: log axis.
		"long tail": {0.001, 0.002, 0.01, 0.1, 1, 10},
		// A zero cannot go on a log axis: stays linear, must not panic.
		"with zero": {0, 0.001, 10},
		// One distinct value: a zero-width range.
		"constant": {0.2, 0.2, 0.2},
		// NaN and infinities are dropped.
		"non-finite": {math.NaN(), 0.1, math.Inf(1), 0.2},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteCDFPlot(&buf, name, "ms", values, values); err != nil {
				t.Fatal(err)
			}
			decodePNG(t, buf.Bytes())
		})
	}
}

func TestWriteCDFPlotErrors(t *testing.T) {
	if err := WriteCDFPlot(&bytes.Buffer{}, "TTFT", "ms", nil, nil); err == nil {
		t.Error("both sides empty: no error")
	}
	if err := WriteCDFPlot(&bytes.Buffer{}, "TTFT", "ms", []float64{math.NaN()}, []float64{}); err == nil {
		t.Error("only NaN: no error")
	}
	if err := WriteCDFPlot(&failingWriter{n: 10}, "TTFT", "ms", []float64{1}, []float64{2}); err == nil {
		t.Error("write error not returned")
	}
}

func TestCDFPoints(t *testing.T) {
	got := cdfPoints([]float64{1, 2, 2, 4})
	want := plotter.XYs{{X: 1, Y: 0}, {X: 1, Y: 0.25}, {X: 2, Y: 0.5}, {X: 2, Y: 0.75}, {X: 4, Y: 1}}
	if len(got) != len(want) {
		t.Fatalf("cdfPoints = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestSortedFinite(t *testing.T) {
	got := sortedFinite([]float64{0.003, math.NaN(), 0.001, math.Inf(-1), 0.002}, 1000)
	want := []float64{1, 2, 3}
	if len(got) != len(want) {
		t.Fatalf("sortedFinite = %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("sortedFinite = %v, want %v", got, want)
		}
	}
}

func TestWriteSeriesPlot(t *testing.T) {
	times := []float64{0, 1, 2, 3, 4}
	series := []Series{
		{Name: "running, predicted", X: times, Y: []float64{0, 4, 8, 8, 2}},
		{Name: "running, measured", X: times, Y: []float64{0, 5, 8, 7, 3}},
		{Name: "waiting, predicted", X: times, Y: []float64{0, 0, 3, 1, 0}},
		{Name: "waiting, measured", X: times, Y: []float64{0, 1, 2, 2, 0}},
		{Name: "empty, left out", X: nil, Y: nil},
	}
	var buf bytes.Buffer
	if err := WriteSeriesPlot(&buf, "Running and waiting", "requests", series); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, buf.Bytes())
	for _, c := range []color.RGBA{predictedColor, measuredColor, darken(predictedColor, 0.4), darken(measuredColor, 0.45)} {
		if !hasColor(img, c) {
			t.Errorf("no line in %v", c)
		}
	}
}

func TestWriteSeriesPlotAllZero(t *testing.T) {
	// No preemptions on either side: a flat line at 0, still a plot.
	var buf bytes.Buffer
	s := []Series{{Name: "predicted", X: []float64{0, 1}, Y: []float64{0, 0}}}
	if err := WriteSeriesPlot(&buf, "Preemptions", "preemptions", s); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, buf.Bytes())
}

func TestWriteSeriesPlotErrors(t *testing.T) {
	err := WriteSeriesPlot(&bytes.Buffer{}, "KV", "%", []Series{{Name: "predicted", X: []float64{0, 1}, Y: []float64{1}}})
	if err == nil || !strings.Contains(err.Error(), "predicted") {
		t.Errorf("mismatched lengths: error %v, want one naming the series", err)
	}
	if err := WriteSeriesPlot(&bytes.Buffer{}, "KV", "%", []Series{{Name: "predicted"}}); err == nil {
		t.Error("no points: no error")
	}
	if err := WriteSeriesPlot(&bytes.Buffer{}, "KV", "%", nil); err == nil {
		t.Error("no series: no error")
	}
	s := []Series{{Name: "measured", X: []float64{0, 1}, Y: []float64{1, 2}}}
	if err := WriteSeriesPlot(&failingWriter{n: 10}, "KV", "%", s); err == nil {
		t.Error("write error not returned")
	}
}

func TestSeriesSide(t *testing.T) {
	for name, want := range map[string]string{
		"predicted": "predicted", "running, Predicted": "predicted",
		"measured": "measured", "waiting, measured": "measured",
		"baseline": "",
	} {
		if got := seriesSide(name); got != want {
			t.Errorf("seriesSide(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestWriteXYPlotBand: a series with Lo and Hi is drawn over a band in
// its colour, translucent on the white background; without them, none.
func TestWriteXYPlotBand(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	// Pixels of the band's colour: a band fills thousands; a line's
	// antialiased edges alone a few.
	blend := func(c color.RGBA) func(image.Image) int {
		return func(img image.Image) int {
			n := 0
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					p := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
					near := func(v, ch uint8) bool {
						want := 255 - (255-float64(ch))*45/255
						return math.Abs(float64(v)-want) <= 2
					}
					if near(p.R, c.R) && near(p.G, c.G) && near(p.B, c.B) && p != (color.RGBA{255, 255, 255, 255}) {
						n++
					}
				}
			}
			return n
		}
	}(predictedColor)
	for _, banded := range []bool{true, false} {
		s := Series{Name: "tok/s, predicted", X: x, Y: []float64{10, 20, 30, 35}}
		if banded {
			s.Lo, s.Hi = []float64{8, 16, 24, 28}, []float64{13, 26, 39, 46}
		}
		var buf bytes.Buffer
		if err := WriteXYPlot(&buf, "band", "load", "tok/s", []Series{s}); err != nil {
			t.Fatal(err)
		}
		n := blend(decodePNG(t, buf.Bytes()))
		t.Logf("banded %v: %d pixels of the band's colour", banded, n)
		if (n > 5000) != banded {
			t.Errorf("banded %v: %d pixels of the band's colour", banded, n)
		}
	}
}
