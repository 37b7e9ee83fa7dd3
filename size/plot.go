package size

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/scenario"
)

// WritePlot draws the capacity curves as a PNG: for each passing candidate,
// the first SLO's statistic against the rate one replica serves, from the
// rate search's own runs, in the band of its interval from the step
// model's measured error, with the SLO as a horizontal line. Runs stopped
// early measured a lower bound only and are left out: the curve shows
// complete runs, and the search's failures beyond its last point are what
// the max rate per replica says.
func WritePlot(w io.Writer, res *Result, slo analysis.SLO) error {
	r := res
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
	banded := false
	for _, o := range r.Candidates {
		var xys, upper, lower plotter.XYs
		for _, pt := range o.Curve {
			if pt.Complete {
				xys = append(xys, plotter.XY{X: pt.RatePerS, Y: pt.ValueS})
				maxX, maxY = max(maxX, pt.RatePerS), max(maxY, pt.ValueS)
				if pt.HiS > 0 {
					upper = append(upper, plotter.XY{X: pt.RatePerS, Y: pt.HiS})
					lower = append(lower, plotter.XY{X: pt.RatePerS, Y: pt.LoS})
				}
			}
		}
		if len(xys) == 0 {
			continue
		}
		if len(upper) > 1 {
			// The model's interval as a band under the curve.
			slices.Reverse(lower)
			band, err := plotter.NewPolygon(append(upper, lower...))
			if err != nil {
				return fmt.Errorf("plot capacity curves: %s: %w", o.Name, err)
			}
			cr, cg, cb, _ := plotutil.Color(n).RGBA()
			band.Color = color.NRGBA{R: uint8(cr >> 8), G: uint8(cg >> 8), B: uint8(cb >> 8), A: 50}
			band.LineStyle.Width = 0
			p.Add(band)
			if !banded {
				banded = true
				p.Legend.Add(fmt.Sprintf("%.0f%% interval (model error)", 100*bandLevel(res)), band)
			}
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

// bandLevel is the confidence the curves' bands are drawn at.
func bandLevel(r *Result) float64 {
	if r.Confidence > 0 {
		return r.Confidence
	}
	return scenario.DefaultConfidence
}
