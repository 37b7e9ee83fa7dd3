package size

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/thinkcap/thinkcap/report"
)

// Verdict is nil when the plan has a deployment, ErrNoCandidate when none
// met the SLOs at the busiest hour.
func (p *DayPlan) Verdict() error {
	if p.Deployment == nil {
		return ErrNoCandidate
	}
	return nil
}

// MissedHours is the hours in which the autoscaled replay missed an SLO.
func (p *DayPlan) MissedHours() int {
	n := 0
	for _, h := range p.Hours {
		if !h.AutoscaledMet {
			n++
		}
	}
	return n
}

// WriteDayTable writes the plan: the deployment, one row per hour, and the
// day's cost three ways.
func WriteDayTable(w io.Writer, p *DayPlan) error {
	if p == nil {
		return errors.New("write day plan: nil plan")
	}
	if p.Deployment == nil {
		fmt.Fprintf(w, "thinkcap size --by-hour: no candidate meets %s at the busiest hour (hour %d, %d requests)\n",
			strings.Join(p.SLOs, ", "), p.PeakHour, p.Hours[p.PeakHour].Requests)
		return WriteTable(w, p.Peak)
	}
	d := p.Deployment
	a := p.Autoscale
	fmt.Fprintf(w, "thinkcap size --by-hour: %s, chosen at the busiest hour (hour %d, %.3g req/s): %s\n",
		strings.Join(p.SLOs, ", "), p.PeakHour, p.Hours[p.PeakHour].RatePerS, d.Name)
	fmt.Fprintf(w, "autoscaler replayed: %s target %g per ready replica, %d to %d replicas, every %gs, scale-up delay %gs, cool-down %gs\n\n",
		a.Metric, a.Target, a.Min, a.Max, a.IntervalS, a.ScaleUpDelayS, a.CoolDownS)
	header := []string{"hour", "requests", "req/s", "plan replicas", "autoscaled (paid)", "autoscaled (most ready)"}
	header = append(header, p.SLOs...)
	header = append(header, "autoscaled SLOs")
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[len(align)-1] = tw.AlignLeft
	t := report.NewAlignedTable(w, align, header...)
	for _, h := range p.Hours {
		plan := strconv.Itoa(h.Replicas)
		if !h.Passes {
			plan += " (misses)"
		}
		row := []string{strconv.Itoa(h.Hour), strconv.Itoa(h.Requests), fmt.Sprintf("%.3g", h.RatePerS), plan,
			fmt.Sprintf("%.2f", h.AutoscaledMean), strconv.Itoa(h.AutoscaledMax)}
		for _, name := range p.sloKeys() {
			v, ok := h.SLOValues[name]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, fmt.Sprintf("%.0f ms", v*1000))
		}
		verdict := "met"
		if !h.AutoscaledMet {
			verdict = "MISSED"
		}
		if h.Requests == 0 {
			verdict = "-"
		}
		row = append(row, verdict)
		if err := t.Append(row); err != nil {
			return fmt.Errorf("write day plan: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("write day plan: %w", err)
	}
	hours := len(p.Hours)
	span := p.SpanS / HourS
	save := func(c float64) string {
		if p.FixedCost <= 0 {
			return ""
		}
		return fmt.Sprintf(" (%+.0f%%)", 100*(c/p.FixedCost-1))
	}
	_, err := fmt.Fprintf(w, "\ncost over %.1f hours at $%.2f per GPU-hour, %d GPU(s) a replica:\n"+
		"  fixed fleet of %d replicas (the most in any hour) $%.2f\n"+
		"  hourly plan (each hour's fewest replicas)        $%.2f%s\n"+
		"  autoscaled, as replayed                          $%.2f%s, SLOs missed in %d of %d hours\n",
		span, p.PricePerGPUHour, p.GPUsPerReplica, p.FixedReplicas, p.FixedCost,
		p.PlanCost, save(p.PlanCost), p.AutoscaledCost, save(p.AutoscaledCost), p.MissedHours(), hours)
	return err
}

// sloKeys are the SLOs' names in SLOValues, in the order given.
func (p *DayPlan) sloKeys() []string {
	var keys []string
	for _, s := range p.SLOs {
		name, _, _ := strings.Cut(s, "=")
		keys = append(keys, name)
	}
	return keys
}

// WriteDayPlot draws the day: the load (requests per second, right scale
// folded onto replicas by the peak), the hourly plan's replicas, the
// autoscaled fleet paid for, and the hours the autoscaled fleet missed an
// SLO marked on the time axis.
func WriteDayPlot(w io.Writer, p *DayPlan) error {
	if p == nil || p.Deployment == nil {
		return errors.New("plot day plan: no deployment")
	}
	pl := plot.New()
	pl.Title.Text = "Replicas over the day: " + p.Deployment.Name
	pl.X.Label.Text = "hour"
	pl.Y.Label.Text = "replicas"
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Add(plotter.NewGrid())
	peakRate := 0.0
	for _, h := range p.Hours {
		peakRate = max(peakRate, h.RatePerS)
	}
	scale := float64(max(p.FixedReplicas, 1)) / max(peakRate, 1e-9)
	var load, plan plotter.XYs
	for _, h := range p.Hours {
		x0, x1 := float64(h.Hour), float64(h.Hour+1)
		load = append(load, plotter.XY{X: x0, Y: h.RatePerS * scale}, plotter.XY{X: x1, Y: h.RatePerS * scale})
		plan = append(plan, plotter.XY{X: x0, Y: float64(h.Replicas)}, plotter.XY{X: x1, Y: float64(h.Replicas)})
	}
	var fleet plotter.XYs
	for i, s := range p.Scaling {
		y := float64(s.Ready + s.Starting + s.Draining)
		if i > 0 {
			fleet = append(fleet, plotter.XY{X: s.TimeS / HourS, Y: fleet[len(fleet)-1].Y})
		}
		fleet = append(fleet, plotter.XY{X: s.TimeS / HourS, Y: y})
	}
	if n := len(fleet); n > 0 {
		fleet = append(fleet, plotter.XY{X: float64(len(p.Hours)), Y: fleet[n-1].Y})
	}
	for _, l := range []struct {
		name  string
		xys   plotter.XYs
		color color.Color
		dash  bool
	}{
		{fmt.Sprintf("load (req/s × %.3g: the busiest hour at its replicas)", scale), load, color.RGBA{150, 150, 150, 255}, true},
		{"hourly plan", plan, color.RGBA{31, 119, 180, 255}, false},
		{"autoscaled (paid)", fleet, color.RGBA{255, 127, 14, 255}, false},
	} {
		line, err := plotter.NewLine(l.xys)
		if err != nil {
			return fmt.Errorf("plot day plan: %w", err)
		}
		line.Color = l.color
		line.Width = vg.Points(1.5)
		if l.dash {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		pl.Add(line)
		pl.Legend.Add(l.name, line)
	}
	var missed plotter.XYs
	for _, h := range p.Hours {
		if !h.AutoscaledMet && h.Requests > 0 {
			missed = append(missed, plotter.XY{X: float64(h.Hour) + 0.5, Y: 0})
		}
	}
	if len(missed) > 0 {
		sc, err := plotter.NewScatter(missed)
		if err != nil {
			return fmt.Errorf("plot day plan: %w", err)
		}
		sc.Color = color.RGBA{214, 39, 40, 255}
		sc.Radius = vg.Points(4)
		pl.Add(sc)
		pl.Legend.Add("hour the autoscaled fleet missed an SLO", sc)
	}
	top := float64(p.FixedReplicas)
	for _, xy := range fleet {
		top = max(top, xy.Y)
	}
	pl.Y.Min, pl.Y.Max = 0, top*1.4+0.5 // room for the legend above the lines
	wt, err := pl.WriterTo(9*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("plot day plan: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// WriteDayPlotFile writes WriteDayPlot's PNG to path (--plot).
func WriteDayPlotFile(path string, p *DayPlan) error {
	return writePlotFile(path, func(w io.Writer) error { return WriteDayPlot(w, p) })
}
