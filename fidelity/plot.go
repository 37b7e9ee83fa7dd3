package fidelity

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// WritePlot draws predicted against measured as a log-log scatter, one
// colour per GPU: TPOT as circles, TTFT as triangles, the diagonal where
// the model is exact and dotted lines at ±15 %. A PNG.
func WritePlot(w io.Writer, sb *Scoreboard) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("thinkcap fidelity: %d points from %d sources", sb.Points, sb.Sources)
	p.X.Label.Text = "measured (ms)"
	p.Y.Label.Text = "predicted (ms)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true

	var gpus []string
	for _, r := range sb.Rows {
		if !slices.Contains(gpus, r.GPU) {
			gpus = append(gpus, r.GPU)
		}
	}
	slices.Sort(gpus)
	lo, hi := math.Inf(1), math.Inf(-1)
	for gi, gpu := range gpus {
		col := plotutil.Color(gi)
		for _, m := range []string{MetricTPOT, MetricTTFT} {
			var xys plotter.XYs
			for _, r := range sb.Rows {
				if v, ok := r.Metrics[m]; ok && r.GPU == gpu && v.Measured > 0 && v.Predicted > 0 {
					xys = append(xys, plotter.XY{X: v.Measured, Y: v.Predicted})
					lo, hi = min(lo, v.Measured, v.Predicted), max(hi, v.Measured, v.Predicted)
				}
			}
			if len(xys) == 0 {
				continue
			}
			s, err := plotter.NewScatter(xys)
			if err != nil {
				return fmt.Errorf("fidelity plot: %w", err)
			}
			s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			if m == MetricTTFT {
				s.GlyphStyle.Shape = draw.TriangleGlyph{}
			}
			p.Add(s)
			p.Legend.Add(gpu+" "+metricLabels[m], s)
		}
	}
	if math.IsInf(lo, 1) {
		return fmt.Errorf("fidelity plot: no point has a measured and a predicted latency")
	}
	for _, f := range []float64{1, 1.15, 1 / 1.15} {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * f}, {X: hi, Y: hi * f}})
		if err != nil {
			return err
		}
		l.Color = color.Gray{Y: 0x60}
		if f != 1 {
			l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		}
		p.Add(l)
	}
	wt, err := p.WriterTo(8*vg.Inch, 8*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("fidelity plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// WritePlotFile writes WritePlot's PNG to path (--plot).
func WritePlotFile(path string, sb *Scoreboard) error {
	var buf bytes.Buffer
	if err := WritePlot(&buf, sb); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return inputerr.Field("Plot", err)
	}
	return nil
}
