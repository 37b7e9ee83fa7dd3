package main

import (
	"bufio"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/outfile"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report"
)

type curveOptions struct {
	plotPath string
	output   string
}

func newCurveCmd() *cobra.Command {
	var o curveOptions
	cmd := &cobra.Command{
		Use:   "curve EVAL",
		Short: "Accuracy versus thinking budget per category, and the budget to deploy",
		Long: `curve reads an eval run at several thinking budgets (JSONL or CSV rows with
item, category, budget, correct as true/false or 1/0, and total_tokens) and
prints, per category, accuracy, mean tokens and accuracy per 1k tokens at each
budget, with the recommended budget: the knee of accuracy versus mean tokens
found by Kneedle (Satopää et al. 2011: both axes scaled to [0, 1], the knee is
the highest point above the diagonal after which the curve clearly flattens),
or the smallest budget when nothing beats its accuracy. A curve that declines
after its peak (overthinking) never gets a knee past the peak. One still rising
at the largest budget has no knee within the tested budgets: curve says so
(no_knee in JSON) and names that largest, most accurate budget; a larger one
may pay more.

--plot draws accuracy against mean tokens per category as a PNG, knees ringed.`,
		Example: `  thinkcap curve eval.jsonl
  thinkcap curve eval.csv --plot curves.png -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCurve(cmd, args[0], &o) },
	}
	fs := cmd.Flags()
	fs.StringVar(&o.plotPath, "plot", "", "write a PNG of accuracy versus mean tokens per category to this file")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	return cmd
}

func runCurve(cmd *cobra.Command, path string, o *curveOptions) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	rep, err := logstats.ReadCurve(path)
	if err != nil {
		return inputerr.New(err)
	}
	if o.plotPath != "" {
		if err := outfile.Write(o.plotPath, func(w *bufio.Writer) error { return report.WriteCurvePlot(w, &rep) }); err != nil {
			return err
		}
	}
	return writeOutput(cmd.OutOrStdout(), o.output, &rep, report.WriteCurveTable)
}
