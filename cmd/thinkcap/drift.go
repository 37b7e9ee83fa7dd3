package main

import (
	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report"
)

type driftOptions struct {
	log            logFlags
	thresholdPct   float64
	minCount       int
	accuracyTolPts float64
	output         string
}

func newDriftCmd() *cobra.Command {
	var o driftOptions
	cmd := &cobra.Command{
		Use:   "drift BASE NEW",
		Short: "Compare thinking length and accuracy between two logs; exit 1 on a cost regression",
		Long: `drift compares a new request log with a base log, per class (effort mode ×
task category) and overall: count, mean and p99 thinking tokens in each and
their change, a two-sample Kolmogorov–Smirnov test on thinking tokens
(statistic D and its asymptotic p-value, with effective n = n·m/(n+m)), and
accuracy when records carry "correct".

It alerts, and exits 1, when mean thinking tokens rise by more than
--threshold percent in a class with at least --min-count records in each log
(or overall) while accuracy is flat (up by no more than --accuracy-tolerance
points) or the logs carry no accuracy at all: thinking that grows without
buying anything is a cost regression, and should page someone like a latency
regression would.`,
		Example: `  thinkcap drift last-week.jsonl today.jsonl
  thinkcap drift base.jsonl new.jsonl --threshold 25 --min-count 100 -o json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runDrift(cmd, args[0], args[1], &o) },
	}
	fs := cmd.Flags()
	o.log.register(fs)
	fs.Float64Var(&o.thresholdPct, "threshold", 100*logstats.DefaultDriftThreshold, "alert when mean thinking tokens rise by more than this many percent")
	fs.IntVar(&o.minCount, "min-count", logstats.DefaultDriftMinCount, "fewest records a class needs in each log to alert")
	fs.Float64Var(&o.accuracyTolPts, "accuracy-tolerance", 100*logstats.DefaultDriftAccuracyTolerance, "accuracy rise, in percentage points, that still counts as flat")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	return cmd
}

func runDrift(cmd *cobra.Command, basePath, newPath string, o *driftOptions) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	opts, err := logstats.NewDriftOptions(o.thresholdPct, o.minCount, o.accuracyTolPts)
	if err != nil {
		return inputerr.New(err)
	}
	base, next := logstats.NewDriftLog(), logstats.NewDriftLog()
	if err := o.log.each(basePath, cmd.ErrOrStderr(), base.Add); err != nil {
		return err
	}
	if err := o.log.each(newPath, cmd.ErrOrStderr(), next.Add); err != nil {
		return err
	}
	rep := logstats.CompareDrift(base, next, opts)
	if err := writeOutput(cmd.OutOrStdout(), o.output, &rep, report.WriteDriftTable); err != nil {
		return err
	}
	return rep.Verdict()
}
