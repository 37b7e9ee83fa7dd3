package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/progress"
	"github.com/thinkcap/thinkcap/scenario"
	"github.com/thinkcap/thinkcap/size"
	"github.com/thinkcap/thinkcap/workload"
)

type sizeOptions struct {
	dep      deploymentFlags // the settings every candidate shares
	traffic  trafficFlags
	whatIf   whatIfFlags
	q        size.Query // size's own lists, SLOs and prices
	output   string
	plotPath string
	byHour   bool
	scale    autoscaleFlags
	// confidence and seeds: size --confidence (0: point estimates).
	confidence float64
	seeds      int
}

// sizeVaried are the deployment flags size takes as lists (its own), and
// the route-pool flags it does not take: a sized pool is the one pool.
var sizeVaried = map[string]bool{
	"model": true, "gpu": true, "tensor-parallel-size": true, "pipeline-parallel-size": true, "kv-cache-dtype": true,
	"speculative-config": true, "max-num-seqs": true, "replicas": true, "router": true,
	"route": true, "route-model": true, "route-gpu": true, "route-tensor-parallel-size": true, "route-replicas": true,
}

func newSizeCmd() *cobra.Command {
	var o sizeOptions
	cmd := &cobra.Command{
		Use:   "size",
		Short: "Find the cheapest vLLM deployment that serves the traffic within the SLOs",
		Long: `size simulates every combination of the candidate lists (models × GPUs × TP
× PP × KV cache dtype × speculative configs × max_num_seqs) on the traffic and finds
for each the fewest replicas that meet every SLO and the preemption limit, and
the maximum rate one replica sustains. It ranks the passing deployments by cost
per hour (GPUs, TP × PP per replica, × price; at one cost, the most requests a replica
sustains first) and shows FP8 KV and speculative variants against their
baselines. Exit status 1 when no candidate passes.

--by-hour plans a day of traffic instead: the deployment chosen at the busiest
hour, each hour's fewest replicas, an autoscaler (HPA's rule on KV usage or
running requests, a scale-up delay, a cool-down) replayed over the whole day
with the SLOs judged hour by hour, and the day's cost for a fixed fleet, the
hourly plan and the autoscaled fleet.`,
		Example: `  thinkcap size --slo ttft_p99=2s,tpot_p99=60ms --gpus h100-sxm,h200 --tp 1,2 --kv-cache-dtype auto,fp8
  thinkcap size --workload requests.jsonl --rate 4 --model qwen3-14b,qwen3-32b --slo ttfa_p99=30s,e2e_p99=120s \
      --speculative-config 'off,{"method":"eagle3","model":"RedHatAI/Qwen3-14B-speculator.eagle3","num_speculative_tokens":3}' --price h100-sxm=2.5 -o json
  thinkcap size --by-hour --workload day.jsonl --arrival day-shaped --rate 3 --requests 250000 \
      --slo ttft_p99=2s,tpot_p99=60ms --model qwen3-14b --gpus h100-sxm --scale-up-delay 3m --plot day.png`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSize(cmd, &o) },
	}
	o.register(cmd.Flags(), true)
	cmd.Flags().StringVar(&o.plotPath, "plot", "", "write the capacity curves (first SLO against rate per replica) as PNG to this file; with --by-hour, the replicas over the day")
	return cmd
}

// prepare checks every flag before any work (size's own lists are checked
// by o.q.Candidates), then builds the candidates, the traffic with its
// what-ifs, and the search's options.
func (o *sizeOptions) prepare(cmd *cobra.Command) ([]size.Candidate, []workload.Request, size.Options, error) {
	if o.traffic.concurrency() != 0 {
		return nil, nil, size.Options{}, inputerr.New(errors.New("--concurrency: size searches open-loop traffic, give a rate"))
	}
	if err := errors.Join(o.dep.checkValues(), o.traffic.validate(), o.whatIf.validate(), o.scale.validate(cmd.Flags(), o.byHour), o.checkConfidence(cmd)); err != nil {
		return nil, nil, size.Options{}, inputerr.New(err)
	}
	opts, err := o.q.Options()
	if err != nil {
		return nil, nil, opts, inputerr.New(err)
	}
	cat, err := o.dep.catalog()
	if err != nil {
		return nil, nil, opts, err
	}
	o.q.Shared = o.dep.options()
	cands, err := o.q.Candidates(cat)
	if err != nil {
		return nil, nil, opts, inputerr.New(err)
	}
	reqs, err := o.traffic.load(cat, o.dep.seed, cmd.ErrOrStderr())
	if err != nil {
		return nil, nil, opts, err
	}
	if reqs, _, err = o.whatIf.apply(reqs, o.dep.seed); err != nil {
		return nil, nil, opts, err
	}
	opts.ModelError = cat.ModelError
	if o.confidence != 0 {
		opts.Confidence = &size.Confidence{Level: o.confidence, Seeds: o.seeds,
			Redraw: func(draw int) ([]workload.Request, error) {
				t := o.traffic.options()
				reqs, err := t.LoadDraw(cat, uint64(o.dep.seed), draw, io.Discard)
				if err != nil {
					return nil, err
				}
				w := o.whatIf.options()
				reqs, _, err = w.Apply(reqs, workload.DrawSeed(uint64(o.dep.seed), draw))
				return reqs, err
			}}
	}
	return cands, reqs, opts, nil
}

// register adds size's flags to fs; plan takes them without --by-hour's.
func (o *sizeOptions) register(fs *pflag.FlagSet, byHour bool) {
	// The shared deployment and what-if flags, less those size varies.
	shared := pflag.NewFlagSet("shared", pflag.ContinueOnError)
	o.dep.register(shared)
	o.whatIf.register(shared)
	shared.VisitAll(func(f *pflag.Flag) {
		if !sizeVaried[f.Name] {
			fs.AddFlag(f)
		}
	})
	o.traffic.register(fs)
	fs.StringSliceVar(&o.q.Models, "model", []string{"qwen3-8b"}, "model profiles or Hugging Face ids to try (a list)")
	fs.StringSliceVar(&o.q.GPUs, "gpus", []string{"h100-sxm"}, "GPU profiles to try, e.g. h100-sxm,h200,b200")
	fs.IntSliceVar(&o.q.TP, "tp", []int{1}, "tensor-parallel sizes to try, e.g. 1,2,4,8")
	fs.IntSliceVar(&o.q.PP, "pp", []int{1}, "pipeline-parallel sizes to try, e.g. 1,2 (a replica takes TP × PP GPUs)")
	fs.StringSliceVar(&o.q.KVCacheDtypes, "kv-cache-dtype", []string{"auto"}, "KV cache dtypes to try, e.g. auto,fp8")
	fs.StringVar(&o.q.Speculative, "speculative-config", "off", `speculative configs to try: off or vLLM's JSON, comma-separated, e.g. 'off,{"method":"eagle3","model":"RedHatAI/Qwen3-14B-speculator.eagle3","num_speculative_tokens":3}'`)
	fs.IntSliceVar(&o.q.MaxNumSeqs, "max-num-seqs", nil, "max_num_seqs values to try (default: vLLM's for each GPU)")
	fs.StringVar(&o.q.SLO, "slo", "", "latency SLOs, e.g. ttft_p99=2s,ttfa_p99=30s,e2e_p99=120s,tpot_p99=60ms (metrics ttft, ttfa, tpot, e2e; stats mean, p50, p90, p99)")
	fs.Float64Var(&o.q.MaxPreemptionRate, "max-preemption-rate", 0, "preemptions per request allowed (0: none under peak load)")
	fs.IntVar(&o.q.MaxReplicas, "max-replicas", size.DefaultMaxReplicas, "most replicas to try per candidate")
	fs.StringSliceVar(&o.q.Prices, "price", nil, "USD per GPU-hour over the profiles', e.g. h100-sxm=2.5,h200=3.2")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	if !byHour {
		return
	}
	fs.Float64Var(&o.confidence, "confidence", 0, "hold every SLO at the pessimistic edge of its interval at this confidence (e.g. 0.9: chance over --seeds draws of the traffic and the step model's measured error on real vLLM runs), and show what the point estimate would have bought; 0: point estimates")
	fs.IntVar(&o.seeds, "seeds", 0, fmt.Sprintf("draws of the traffic behind --confidence's intervals (0: %d)", scenario.DefaultSeeds))
	fs.BoolVar(&o.byHour, "by-hour", false, "plan a day of traffic hour by hour: the deployment chosen at the busiest hour, each hour's fewest replicas, an autoscaler replayed over the day, and the day's cost three ways")
	o.scale.register(fs)
}

func runSize(cmd *cobra.Command, o *sizeOptions) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	cands, reqs, opts, err := o.prepare(cmd)
	if err != nil {
		return err
	}
	if o.byHour {
		return runSizeByHour(cmd, o, cands, reqs, opts)
	}
	bar := progress.New(cmd.ErrOrStderr(), "sizing").Counting("candidates")
	opts.Progress = bar.Update
	res, err := size.Search(cands, reqs, opts)
	bar.Done()
	if err != nil {
		return inputerr.New(err)
	}
	if why := res.OutsideCorpus(); why != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", why)
	}
	if o.plotPath != "" {
		if err := size.WritePlotFile(o.plotPath, res, opts.SLOs[0]); err != nil {
			return err
		}
	}
	if err := writeOutput(cmd.OutOrStdout(), o.output, res, size.WriteTable); err != nil {
		return err
	}
	return res.Verdict()
}

// checkConfidence refuses --confidence and --seeds where they cannot
// apply, and out of their ranges.
func (o *sizeOptions) checkConfidence(cmd *cobra.Command) error {
	given := cmd.Flags().Changed
	switch {
	case given("confidence") && !(o.confidence >= 0.5 && o.confidence <= 0.98):
		return fmt.Errorf("--confidence must be from 0.5 to 0.98, got %g", o.confidence)
	case given("seeds") && (o.seeds < 1 || o.seeds > 1000):
		return fmt.Errorf("--seeds must be from 1 to 1000 draws of the traffic, got %d", o.seeds)
	case given("seeds") && !given("confidence"):
		return errors.New("--seeds only matters with --confidence")
	case given("confidence") && o.byHour:
		return errors.New("--confidence sizes one deployment for its SLOs' intervals; --by-hour plans each hour at its point estimate (give one)")
	}
	return nil
}
