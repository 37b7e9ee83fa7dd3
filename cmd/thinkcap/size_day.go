package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/progress"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/size"
	"github.com/thinkcap/thinkcap/workload"
)

// autoscaleFlags are the autoscaler `size --by-hour` replays, in the terms
// of Kubernetes' HorizontalPodAutoscaler.
type autoscaleFlags struct {
	min      int
	metric   string
	target   float64
	interval time.Duration
	delay    time.Duration
	coolDown time.Duration
}

func (f *autoscaleFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.min, "min-replicas", 1, "--by-hour: the autoscaler's fewest replicas (and the plan's for an empty hour)")
	fs.StringVar(&f.metric, "autoscale-metric", sim.ScaleOnKV, "--by-hour: what the autoscaler reads per ready replica: kv (vllm:kv_cache_usage_perc) or running (requests running and waiting)")
	fs.Float64Var(&f.target, "autoscale-target", 0.7, "--by-hour: the metric's target per replica (kv: a fraction; running: requests)")
	fs.DurationVar(&f.interval, "autoscale-interval", 15*time.Second, "--by-hour: how often the autoscaler reads the metric (HPA's sync period)")
	fs.DurationVar(&f.delay, "scale-up-delay", 3*time.Minute, "--by-hour: from a replica asked for to its first request: weights loaded, CUDA graphs captured")
	fs.DurationVar(&f.coolDown, "cool-down", 5*time.Minute, "--by-hour: a scale-down takes the most replicas desired over this window (HPA's stabilisation window)")
}

// autoscaleFlagNames are the flags register adds.
var autoscaleFlagNames = []string{"min-replicas", "autoscale-metric", "autoscale-target", "autoscale-interval", "scale-up-delay", "cool-down"}

// validate checks the flags; without --by-hour, giving any is an error.
func (f *autoscaleFlags) validate(fs *pflag.FlagSet, byHour bool) error {
	if !byHour {
		var errs []error
		for _, name := range autoscaleFlagNames {
			if fs.Changed(name) {
				errs = append(errs, fmt.Errorf("--%s applies to --by-hour's autoscaler: give --by-hour", name))
			}
		}
		return errors.Join(errs...)
	}
	p := f.policy(1 << 30)
	return p.Validate()
}

func (f *autoscaleFlags) policy(maxReplicas int) sim.Autoscale {
	return sim.Autoscale{
		Min: f.min, Max: maxReplicas, Metric: f.metric, Target: f.target,
		IntervalS: f.interval.Seconds(), ScaleUpDelayS: f.delay.Seconds(), CoolDownS: f.coolDown.Seconds(),
	}
}

// runSizeByHour is `size --by-hour`.
func runSizeByHour(cmd *cobra.Command, o *sizeOptions, cands []size.Candidate, reqs []workload.Request, opts size.Options) error {
	policy := o.scale.policy(0) // Max: twice the plan's peak, within --max-replicas
	bar := progress.New(cmd.ErrOrStderr(), "sizing the busiest hour").Counting("candidates")
	opts.Progress = bar.Update
	plan, err := size.PlanDay(cands, reqs, size.DayOptions{Options: opts, Autoscale: policy})
	bar.Done()
	if err != nil {
		return inputerr.New(err)
	}
	if o.plotPath != "" && plan.Deployment != nil {
		if err := size.WriteDayPlotFile(o.plotPath, plan); err != nil {
			return err
		}
	}
	if err := writeOutput(cmd.OutOrStdout(), o.output, plan, size.WriteDayTable); err != nil {
		return err
	}
	if err := plan.Verdict(); err != nil {
		return err
	}
	if n := plan.MissedHours(); n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: the autoscaled fleet missed an SLO in %d of %d hours, where queues built while replicas started or after a scale-down: a shorter --scale-up-delay, a lower --autoscale-target, a longer --cool-down or more --min-replicas buys them back\n", n, len(plan.Hours))
	}
	return nil
}
