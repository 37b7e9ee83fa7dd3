package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/progress"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/size"
)

// planOptions are plan's flags: size's, the eval and the accuracy floors.
type planOptions struct {
	size        sizeOptions
	eval        string
	minAccuracy string
}

func newPlanCmd() *cobra.Command {
	var o planOptions
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Choose each category's thinking budget and the deployment by cost per correct answer",
		Long: `plan joins the accuracy curve with sizing: for the traffic's task categories it
takes each budget's accuracy from an eval run at several budgets (curve's input),
caps each category's thinking at its budget (forced closure), finds with size's
search the cheapest deployment meeting the SLOs, and chooses the budgets and the
deployment together by cost per correct answer (price per hour over the correct
answers an hour brings). A budget is tried only when the eval can tell its
accuracy from every smaller budget's (their 95% intervals do not overlap), and
never below a category's --min-accuracy. The plan is shown beside one budget per
category at the curve's knee and one budget for all. Exit status 1 when no
policy meets the SLOs and floors.`,
		Example: `  thinkcap plan --workload testdata/production.jsonl --speedup 24 --eval testdata/eval.jsonl \
      --model qwen3-8b --gpus h100-sxm --slo ttfa_p99=60s,tpot_p99=50ms --min-accuracy math=0.8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd, &o) },
	}
	o.size.register(cmd.Flags(), false)
	cmd.Flags().StringVar(&o.eval, "eval", "", "the eval run at several thinking budgets (curve's input: category, budget, correct, total_tokens)")
	cmd.Flags().StringVar(&o.minAccuracy, "min-accuracy", "", "accuracy floors per category, e.g. math=0.8,rag=0.9")
	cmd.Flags().StringVar(&o.size.plotPath, "plot", "", "write the frontier of accuracy against dollars per hour as PNG to this file")
	return cmd
}

func runPlan(cmd *cobra.Command, o *planOptions) error {
	so := &o.size
	var problems inputerr.List
	problems.Add(checkOutput(so.output))
	if o.eval == "" {
		problems.Add(errors.New("--eval is required: the accuracy of each category at each budget"))
	}
	floors, err := size.ParseFloors(o.minAccuracy)
	problems.Add(err)
	if err := problems.Err(); err != nil {
		return err
	}
	cands, reqs, opts, err := so.prepare(cmd)
	if err != nil {
		return err
	}
	curves, err := logstats.ReadCurve(o.eval)
	if err != nil {
		return inputerr.New(err)
	}
	bar := progress.New(cmd.ErrOrStderr(), "planning").Counting("candidates")
	opts.Progress = bar.Update
	plan, err := size.PlanBudgets(cands, reqs, curves, size.PlanOptions{Options: opts, MinAccuracy: floors})
	bar.Done()
	if err != nil {
		return inputerr.New(err)
	}
	if o.size.plotPath != "" && plan.Chosen != nil {
		if err := size.WritePlanPlotFile(o.size.plotPath, plan); err != nil {
			return err
		}
	}
	if err := writeOutput(cmd.OutOrStdout(), so.output, plan, size.WritePlanTable); err != nil {
		return err
	}
	return plan.Verdict()
}
