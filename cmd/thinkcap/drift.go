package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/analysis"
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
	fs.Float64Var(&o.thresholdPct, "threshold", 100*analysis.DefaultDriftThreshold, "alert when mean thinking tokens rise by more than this many percent")
	fs.IntVar(&o.minCount, "min-count", analysis.DefaultDriftMinCount, "fewest records a class needs in each log to alert")
	fs.Float64Var(&o.accuracyTolPts, "accuracy-tolerance", 100*analysis.DefaultDriftAccuracyTolerance, "accuracy rise, in percentage points, that still counts as flat")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	return cmd
}

func runDrift(cmd *cobra.Command, basePath, newPath string, o *driftOptions) error {
	if err := checkTableOrJSON(o.output); err != nil {
		return err
	}
	var errs []error
	if !(o.thresholdPct >= 0) || math.IsInf(o.thresholdPct, 0) {
		errs = append(errs, fmt.Errorf("--threshold must be a non-negative percentage, got %g", o.thresholdPct))
	}
	if o.minCount < 0 {
		errs = append(errs, fmt.Errorf("--min-count must not be negative, got %d", o.minCount))
	}
	if !(o.accuracyTolPts >= 0 && o.accuracyTolPts <= 100) {
		errs = append(errs, fmt.Errorf("--accuracy-tolerance must be between 0 and 100 points, got %g", o.accuracyTolPts))
	}
	if err := errors.Join(errs...); err != nil {
		return badInput(err)
	}
	opts := analysis.DriftOptions{
		Threshold:         o.thresholdPct / 100,
		MinCount:          o.minCount,
		AccuracyTolerance: o.accuracyTolPts / 100,
	}
	base, next := analysis.NewDriftLog(), analysis.NewDriftLog()
	if err := o.log.each(basePath, cmd.ErrOrStderr(), base.Add); err != nil {
		return err
	}
	if err := o.log.each(newPath, cmd.ErrOrStderr(), next.Add); err != nil {
		return err
	}
	rep := analysis.CompareDrift(base, next, opts)
	out := cmd.OutOrStdout()
	var err error
	if o.output == "json" {
		err = writeJSON(out, rep)
	} else {
		err = analysis.WriteDriftTable(out, &rep)
	}
	if err != nil {
		return err
	}
	if n := len(rep.Alerts); n > 0 {
		// Not bad input: the check ran and failed, exit code 1.
		return fmt.Errorf("drift: %d cost regression alert(s); first: %s", n, rep.Alerts[0].Message)
	}
	return nil
}
