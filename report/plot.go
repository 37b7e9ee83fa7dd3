package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"

	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// Size of the curve plot: wide enough for a legend beside the curves of a
// handful of categories, and readable when pasted into a document.
const (
	curvePlotWidth  = 8 * vg.Inch
	curvePlotHeight = 5 * vg.Inch
)

// WriteCurvePlot draws r as a PNG: accuracy against mean tokens per item,
// one line per category with each point labelled by its budget, and the
// knee (the recommended budget) ringed. Mean tokens rather than budget on
// the x axis, because tokens are what is paid for and a budget is only a
// cap: a category that rarely reaches its cap flattens out in x, which is
// the point of the plot. The axis is linear, like the Kneedle computation.
func WriteCurvePlot(w io.Writer, r *logstats.CurveReport) error {
	if r == nil || len(r.Categories) == 0 {
		return errors.New("plot curves: no curves")
	}
	p := plot.New()
	p.Title.Text = "Accuracy versus tokens by thinking budget"
	p.X.Label.Text = "mean tokens per item"
	p.Y.Label.Text = "accuracy"
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = percentTicks{}
	p.X.Min = 0
	p.X.Tick.Marker = tokenTicks
	// Room on the right for the last point's budget label.
	p.X.Max = 1.08 * maxMeanTokens(r)
	// Curves rise to the top left; the bottom right is usually free.
	p.Legend.Top = false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(12), vg.Points(12)
	p.Add(plotter.NewGrid())

	for i := range r.Categories {
		c := &r.Categories[i]
		if err := addCurve(p, c, plotutil.Color(i), plotutil.Shape(i)); err != nil {
			return fmt.Errorf("plot curves: %s: %w", logstats.ClassLabel(c.Category), err)
		}
	}
	// One legend entry explains the rings.
	ring := &plotter.Scatter{GlyphStyle: kneeGlyph(color.Black)}
	p.Legend.Add("knee (recommended budget)", ring)

	wt, err := p.WriterTo(curvePlotWidth, curvePlotHeight, "png")
	if err != nil {
		return fmt.Errorf("plot curves: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("plot curves: %w", err)
	}
	return nil
}

// addCurve adds one category: its line and points, budget labels, and the
// ring around its knee.
func addCurve(p *plot.Plot, c *logstats.CategoryCurve, col color.Color, shape vgdraw.GlyphDrawer) error {
	xys := make(plotter.XYs, len(c.Points))
	budgets := make([]string, len(c.Points))
	for i, pt := range c.Points {
		xys[i] = plotter.XY{X: pt.MeanTokens, Y: pt.Accuracy}
		budgets[i] = strconv.Itoa(pt.Budget)
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	line.Color = col
	line.Width = vg.Points(1.5)
	points.Color = col
	points.Shape = shape
	points.Radius = vg.Points(3)

	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: budgets})
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Color = col
		labels.TextStyle[i].Font.Size = vg.Points(8)
	}
	labels.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(4)}

	knee, err := plotter.NewScatter(plotter.XYs{xys[c.KneeIndex()]})
	if err != nil {
		return err
	}
	knee.GlyphStyle = kneeGlyph(col)

	p.Add(line, points, labels, knee)
	name := logstats.ClassLabel(c.Category)
	p.Legend.Add(fmt.Sprintf("%s (budget %d)", name, c.RecommendedBudget), line, points)
	return nil
}

// maxMeanTokens is the largest x of all curves.
func maxMeanTokens(r *logstats.CurveReport) float64 {
	m := 0.0
	for _, c := range r.Categories {
		for _, p := range c.Points {
			m = max(m, p.MeanTokens)
		}
	}
	return max(m, 1)
}

// tokenTicks are gonum's default ticks labelled as token counts: 2,500
// rather than 2500.00.
var tokenTicks = relabelled{plot.DefaultTicks{}, numfmt.Tokens}

// relabelled are another ticker's ticks with their labels (the labelled
// ones) written by format.
type relabelled struct {
	ticker plot.Ticker
	format func(float64) string
}

// Ticks implements plot.Ticker.
func (r relabelled) Ticks(lo, hi float64) []plot.Tick {
	ticks := r.ticker.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = r.format(ticks[i].Value)
		}
	}
	return ticks
}

// percentTicks labels the accuracy axis in percent, every 20 points with
// unlabelled ticks between.
type percentTicks struct{}

// Ticks implements plot.Ticker.
func (percentTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for i := 0; i <= 10; i++ {
		v := float64(i) / 10
		if v < lo || v > hi {
			continue
		}
		t := plot.Tick{Value: v}
		if i%2 == 0 {
			t.Label = strconv.Itoa(10*i) + "%"
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// kneeGlyph is the ring drawn around a knee.
func kneeGlyph(col color.Color) vgdraw.GlyphStyle {
	return vgdraw.GlyphStyle{Color: col, Radius: vg.Points(8), Shape: vgdraw.RingGlyph{}}
}
