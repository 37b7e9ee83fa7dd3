package size

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/thinkcap/thinkcap/report"
)

// WritePlanTable writes the plan: the chosen budgets per category on the
// chosen deployment, then the policies side by side by cost per 1,000
// correct answers.
func WritePlanTable(w io.Writer, p *Plan) error {
	if p == nil {
		return errors.New("write plan: nil plan")
	}
	fmt.Fprintf(w, "thinkcap plan: %s at %.3g req/s\n", strings.Join(p.SLOs, ", "), p.RatePerS)
	if len(p.Unevaluated) > 0 {
		fmt.Fprintf(w, "not in the eval (their thinking as logged, in the cost, not in the correct answers): %s\n", strings.Join(p.Unevaluated, ", "))
	}
	if c := p.Chosen; c != nil {
		fmt.Fprintf(w, "\nchosen: %s on %s, %d replica(s), $%.2f/hour, accuracy %.1f%%, $%.2f per 1,000 correct answers\n\n",
			c.Name, c.Deployment, c.Replicas, c.CostPerHour, 100*c.Accuracy, c.CostPer1KCorrect)
		header := []string{"category", "budget", "accuracy (95% interval)", "eval items", "requests", "think (mean)", "answer (mean)",
			"GPU share", "$/1K correct", "TTFA p50 (s)", "TTFA p99 (s)", "knee budget", "knee $/1K correct"}
		t := report.NewLabeledTable(w, 1, header...)
		for i, r := range c.Categories {
			kneeBudget, kneeCost := "-", "-"
			if p.Knee != nil && i < len(p.Knee.Categories) {
				k := p.Knee.Categories[i]
				kneeBudget, kneeCost = strconv.Itoa(k.Budget), money(k.CostPer1KCorrect)
			}
			if err := t.Append([]string{r.Category, strconv.Itoa(r.Budget),
				fmt.Sprintf("%.1f%% (%.1f-%.1f)", 100*r.Accuracy, 100*r.AccuracyLow, 100*r.AccuracyHigh), strconv.Itoa(r.Items),
				strconv.Itoa(r.Requests), fmt.Sprintf("%.0f", r.ThinkMean), fmt.Sprintf("%.0f", r.AnswerMean),
				fmt.Sprintf("%.1f%%", 100*r.GPUShare), money(r.CostPer1KCorrect),
				fmt.Sprintf("%.1f", r.TTFAP50S), fmt.Sprintf("%.1f", r.TTFAP99S), kneeBudget, kneeCost}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(w, "\nno policy meets the SLOs and the accuracy floors")
	}
	fmt.Fprintln(w)
	t := report.NewLabeledTable(w, 3, "policy", "budgets", "deployment", "replicas", "$/hour", "accuracy", "$/1K correct", "SLOs")
	rows := []Policy{}
	if p.Chosen != nil {
		chosen := *p.Chosen
		chosen.Name = "chosen"
		rows = append(rows, chosen)
	}
	if p.Knee != nil {
		rows = append(rows, *p.Knee)
	}
	rows = append(rows, p.Global...)
	for _, r := range rows {
		slo := "met"
		if !r.Passes {
			slo = "missed"
		}
		if err := t.Append([]string{r.Name, budgetList(&r), orDash(r.Deployment), strconv.Itoa(r.Replicas), money(r.CostPerHour),
			fmt.Sprintf("%.1f%%", 100*r.Accuracy), money(r.CostPer1KCorrect), slo}); err != nil {
			return err
		}
	}
	return t.Render()
}

func budgetList(p *Policy) string {
	var parts []string
	for _, c := range p.Categories {
		parts = append(parts, fmt.Sprintf("%s=%d", c.Category, c.Budget))
	}
	return strings.Join(parts, ",")
}

func money(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) || v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WritePlanPlot draws the frontier: accuracy against dollars per hour for
// every policy tried, with the chosen one, the knee policy and the global
// budgets marked.
func WritePlanPlot(w io.Writer, p *Plan) error {
	pl := plot.New()
	pl.Title.Text = "Accuracy against cost: budgets per category"
	pl.X.Label.Text = "$ per hour (cheapest deployment meeting the SLOs)"
	pl.Y.Label.Text = "accuracy (evaluated categories, traffic-weighted)"
	pl.Legend.Top, pl.Legend.Left = false, false
	pl.Add(plotter.NewGrid())
	points := func(ps []Policy) plotter.XYs {
		var xys plotter.XYs
		for _, q := range ps {
			if q.Passes {
				xys = append(xys, plotter.XY{X: q.CostPerHour, Y: q.Accuracy})
			}
		}
		return xys
	}
	for _, s := range []struct {
		name   string
		xys    plotter.XYs
		c      color.Color
		radius vg.Length
	}{
		{"budgets tried", points(p.Frontier), color.RGBA{150, 150, 150, 255}, 3},
		{"one budget for all", points(p.Global), color.RGBA{31, 119, 180, 255}, 4},
		{"knee per category", points(singleton(p.Knee)), color.RGBA{44, 160, 44, 255}, 6},
		{"chosen", points(singleton(p.Chosen)), color.RGBA{214, 39, 40, 255}, 7},
	} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return fmt.Errorf("plot plan: %w", err)
		}
		sc.Color, sc.Radius = s.c, s.radius
		pl.Add(sc)
		pl.Legend.Add(s.name, sc)
	}
	wt, err := pl.WriterTo(7*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("plot plan: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

func singleton(p *Policy) []Policy {
	if p == nil {
		return nil
	}
	return []Policy{*p}
}

// WritePlanPlotFile writes WritePlanPlot's PNG to path (--plot).
func WritePlanPlotFile(path string, p *Plan) error {
	return writePlotFile(path, func(w io.Writer) error { return WritePlanPlot(w, p) })
}
