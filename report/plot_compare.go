package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/thinkcap/thinkcap/report/numfmt"
)

// Size of the prediction-versus-measurement plots: small enough that a
// report embeds several one after another, large enough to read a tail.
const (
	comparePlotWidth  = 7 * vg.Inch
	comparePlotHeight = 4 * vg.Inch
)

// The two sides keep their colours in every plot, so that a reader who
// has learnt "orange is the model" on the first plot can read the rest
// without the legend. Predicted lines are also dashed: they stay apart
// from the measured ones in greyscale and where the two overlap.
var (
	predictedColor = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff} // orange
	measuredColor  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff} // blue
	otherColor     = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff} // grey
	predictedDash  = []vg.Length{vg.Points(6), vg.Points(3)}
	// A side's second quantity in one plot (waiting beside running) is
	// drawn darker, and dotted when predicted.
	predictedDashAlt = []vg.Length{vg.Points(2), vg.Points(2)}
)

// log10Span is the number of decades above which a CDF's x axis turns
// logarithmic: latencies with a long tail (queueing) squash the body of a
// linear plot into its first pixels.
const log10Span = 2

// WriteCDFPlot draws the empirical CDFs of a predicted and a measured
// sample as a PNG: value on x, fraction of the sample at or below it on y,
// one step line per side. With unit "ms" the values are seconds and print
// as milliseconds; any other unit only labels the axis. Non-finite values
// are dropped; a side with no values is left out of the plot, and an error
// is returned when both are empty.
func WriteCDFPlot(w io.Writer, title, unit string, predicted, measured []float64) error {
	scale := 1.0
	if unit == "ms" {
		scale = 1000
	}
	pred, meas := sortedFinite(predicted, scale), sortedFinite(measured, scale)
	if len(pred) == 0 && len(meas) == 0 {
		return fmt.Errorf("plot %s: no values", title)
	}

	p := newComparePlot(title)
	p.X.Label.Text = unit
	p.X.Tick.Marker = plainTicks
	if unit == "ms" {
		p.X.Label.Text = "milliseconds"
	}
	p.Y.Label.Text = "fraction of requests at or below"
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = percentTicks{}
	// A CDF rises to the top right; the bottom right is usually free.
	p.Legend.Top = false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(8)

	// Measured first, so that the dashed prediction is drawn over it and
	// both stay visible where they coincide; the legend lists the
	// prediction first, as the other plots do.
	lines := map[string]*plotter.Line{}
	for _, side := range []struct {
		name   string
		values []float64
	}{{"measured", meas}, {"predicted", pred}} {
		if len(side.values) == 0 {
			continue
		}
		line, err := plotter.NewLine(cdfPoints(side.values))
		if err != nil {
			return fmt.Errorf("plot %s: %s: %w", title, side.name, err)
		}
		line.StepStyle = plotter.PostStep
		styleLine(line, side.name, 0)
		p.Add(line)
		lines[side.name] = line
	}
	for _, name := range []string{"predicted", "measured"} {
		if line := lines[name]; line != nil {
			p.Legend.Add(name, line)
		}
	}

	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range [][]float64{pred, meas} {
		if len(v) > 0 {
			lo, hi = min(lo, v[0]), max(hi, v[len(v)-1])
		}
	}
	if lo > 0 && math.Log10(hi/lo) > log10Span {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = decadeTicks
	}
	return writePNG(w, p, "plot "+title)
}

// sortedFinite returns the finite values times scale, sorted.
func sortedFinite(values []float64, scale float64) []float64 {
	out := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v*scale)
		}
	}
	slices.Sort(out)
	return out
}

// cdfPoints are the corners of a sorted sample's empirical CDF for a
// post-step line: it starts at 0 at the smallest value and steps up by 1/n
// at each value, reaching 1 at the largest.
func cdfPoints(sorted []float64) plotter.XYs {
	n := float64(len(sorted))
	xys := make(plotter.XYs, 0, len(sorted)+1)
	xys = append(xys, plotter.XY{X: sorted[0], Y: 0})
	for i, v := range sorted {
		xys = append(xys, plotter.XY{X: v, Y: float64(i+1) / n})
	}
	return xys
}

// Series is one line of a time-series plot: X in seconds, Y in the plot's
// unit. A name containing "predicted" or "measured" gives the line that
// side's colour and dash, so that the legend and the style agree.
type Series struct {
	Name string
	X, Y []float64
	// Lo and Hi, when set (as long as X), are Y's interval at each X,
	// drawn as a shaded band under the line; NaN leaves a point out.
	Lo, Hi []float64
}

// WriteSeriesPlot draws series against time as a PNG, one line each, with
// a legend. The y axis starts at 0: every quantity plotted is a count or a
// usage. Non-finite points (no data) are dropped; series without points
// are left out; an error is returned when
// none has any, or when a series' X and Y differ in length.
func WriteSeriesPlot(w io.Writer, title, yLabel string, series []Series) error {
	return WriteXYPlot(w, title, "time (s)", yLabel, series)
}

// WriteXYPlot is WriteSeriesPlot against any x: a sweep's offered load.
func WriteXYPlot(w io.Writer, title, xLabel, yLabel string, series []Series) error {
	p := newComparePlot(title)
	p.X.Label.Text = xLabel
	p.X.Tick.Marker = plainTicks
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), -vg.Points(4)

	yMax := 0.0
	perSide := map[string]int{} // lines so far per side, for their shade
	// Predicted lines go on top: dashed over solid, both stay visible
	// where the prediction is right and the lines coincide.
	var under, over []plot.Plotter
	for _, s := range series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plot %s: series %q has %d times and %d values", title, s.Name, len(s.X), len(s.Y))
		}
		// A point with no value (a metric a scrape did not have) is left
		// out: the line joins its neighbours rather than dropping to 0.
		xys := make(plotter.XYs, 0, len(s.X))
		for i := range s.X {
			if isFinite(s.X[i]) && isFinite(s.Y[i]) {
				xys = append(xys, plotter.XY{X: s.X[i], Y: s.Y[i]})
				yMax = max(yMax, s.Y[i])
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("plot %s: series %q: %w", title, s.Name, err)
		}
		side := seriesSide(s.Name)
		styleLine(line, side, perSide[side])
		perSide[side]++
		if band, err := seriesBand(s, line.Color); err != nil {
			return fmt.Errorf("plot %s: series %q: %w", title, s.Name, err)
		} else if band != nil {
			under = append([]plot.Plotter{band}, under...)
			for i := range s.Hi {
				if isFinite(s.Hi[i]) && isFinite(s.X[i]) {
					yMax = max(yMax, s.Hi[i])
				}
			}
		}
		if side == "predicted" {
			over = append(over, line)
		} else {
			under = append(under, line)
		}
		p.Legend.Add(s.Name, line)
	}
	drawn := len(under) + len(over)
	if drawn == 0 {
		return fmt.Errorf("plot %s: no points", title)
	}
	p.Add(under...)
	p.Add(over...)
	// Headroom above the data for the legend, about a tenth of the
	// height per entry, so that it does not cover the peaks.
	p.Y.Min = 0
	p.Y.Max = max(yMax, 1) * (1 + 0.12*float64(drawn))
	p.Y.Tick.Marker = plainTicks
	return writePNG(w, p, "plot "+title)
}

// seriesSide is "predicted", "measured" or "" as the series name says.
func seriesSide(name string) string {
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "predicted"):
		return "predicted"
	case strings.Contains(lower, "measured"):
		return "measured"
	}
	return ""
}

// styleLine gives a line its side's colour and dash; nth > 0 marks a
// side's second quantity in the same plot, drawn darker (and dotted when
// predicted) so that the two stay apart.
func styleLine(line *plotter.Line, side string, nth int) {
	line.Width = vg.Points(1.5)
	switch side {
	case "predicted":
		line.Color = predictedColor
		line.Dashes = predictedDash
		if nth > 0 {
			line.Color = darken(predictedColor, 0.4)
			line.Dashes = predictedDashAlt
		}
	case "measured":
		line.Color = measuredColor
		if nth > 0 {
			line.Color = darken(measuredColor, 0.45)
		}
	default:
		line.Color = otherColor
	}
}

// darken moves an opaque colour the given fraction of the way to black.
func darken(c color.RGBA, fraction float64) color.RGBA {
	f := func(v uint8) uint8 { return uint8(math.Round(float64(v) * (1 - fraction))) }
	return color.RGBA{R: f(c.R), G: f(c.G), B: f(c.B), A: c.A}
}

// decadeTicks are gonum's log ticks labelled without exponents and with
// thousands separators: 10,000 rather than 1e+04.
var decadeTicks = relabelled{plot.LogTicks{Prec: -1}, plainNumber}

// plainTicks are gonum's default ticks labelled as short as the value
// allows, with thousands separators: 5 and 2.5 rather than 5.00 and 2.50
// (counts), 1,000 rather than 1000.
var plainTicks = relabelled{plot.DefaultTicks{}, plainNumber}

// plainNumber prints a tick value in the fewest digits that round-trip,
// grouped by thousands; rounding to 1e-9 first hides the float error of
// tick arithmetic (0.30000000000000004).
func plainNumber(v float64) string {
	v = math.Round(v*1e9) / 1e9
	if v == 0 {
		return "0" // also -0
	}
	return numfmt.GroupThousands(strconv.FormatFloat(v, 'f', -1, 64))
}

// newComparePlot is a plot with the comparison plots' common look.
func newComparePlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())
	return p
}

// writePNG renders p at the comparison plots' size.
func writePNG(w io.Writer, p *plot.Plot, what string) error {
	wt, err := p.WriterTo(comparePlotWidth, comparePlotHeight, "png")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// seriesBand is a series' interval as a translucent polygon in its
// line's colour, or nil without one (fewer than two points with both
// edges).
func seriesBand(s Series, c color.Color) (*plotter.Polygon, error) {
	if len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X) {
		return nil, nil
	}
	var upper, lower plotter.XYs
	for i := range s.X {
		if isFinite(s.X[i]) && isFinite(s.Lo[i]) && isFinite(s.Hi[i]) {
			upper = append(upper, plotter.XY{X: s.X[i], Y: s.Hi[i]})
			lower = append(lower, plotter.XY{X: s.X[i], Y: s.Lo[i]})
		}
	}
	if len(upper) < 2 {
		return nil, nil
	}
	slices.Reverse(lower)
	band, err := plotter.NewPolygon(append(upper, lower...))
	if err != nil {
		return nil, err
	}
	r, g, b, _ := c.RGBA()
	band.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 45}
	band.LineStyle.Width = 0
	return band, nil
}
