package size

import (
	"errors"
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WritePlot draws the capacity curves as a PNG: for each passing candidate,
// the first SLO's statistic against the rate one replica serves, from the
// rate search's own runs, with the SLO as a horizontal line. Runs stopped
// early measured a lower bound only and are left out: the curve shows
// complete runs, and the search's failures beyond its last point are what
// the max rate per replica says.
func WritePlot(w io.Writer, r *Result, slo SLO) error {
	if r == nil {
		return errors.New("plot capacity curves: nil result")
	}
	p := plot.New()
	p.Title.Text = "Capacity curves: " + slo.Name() + " against rate per replica"
	p.X.Label.Text = "requests/s per replica"
	p.Y.Label.Text = slo.Name() + " (s)"
	p.X.Min, p.Y.Min = 0, 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	maxX, maxY, n := 0.0, slo.LimitS*1.2, 0
	for _, o := range r.Candidates {
		var xys plotter.XYs
		for _, pt := range o.Curve {
			if pt.Complete {
				xys = append(xys, plotter.XY{X: pt.RatePerS, Y: pt.ValueS})
				maxX, maxY = max(maxX, pt.RatePerS), max(maxY, pt.ValueS)
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("plot capacity curves: %s: %w", o.Name, err)
		}
		col := plotutil.Color(n)
		line.Color, points.Color, points.Shape = col, col, plotutil.Shape(n)
		line.Width = vg.Points(1.5)
		p.Add(line, points)
		p.Legend.Add(o.Name, line, points)
		n++
	}
	if n == 0 {
		return errors.New("plot capacity curves: no passing candidate has a curve")
	}
	limit, err := plotter.NewLine(plotter.XYs{{X: 0, Y: slo.LimitS}, {X: maxX * 1.05, Y: slo.LimitS}})
	if err != nil {
		return fmt.Errorf("plot capacity curves: %w", err)
	}
	limit.Color = color.Black
	limit.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	p.Add(limit)
	p.Legend.Add("SLO "+slo.String(), limit)
	// Headroom above the SLO line for the legend.
	p.X.Max, p.Y.Max = maxX*1.05, maxY*1.6
	wt, err := p.WriterTo(9*vg.Inch, 6*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("plot capacity curves: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("plot capacity curves: %w", err)
	}
	return nil
}
