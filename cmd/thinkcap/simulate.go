package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/outfile"
	"github.com/thinkcap/thinkcap/internal/progress"
	"github.com/thinkcap/thinkcap/scenario"
	"github.com/thinkcap/thinkcap/sim"
)

// simulateOptions are simulate's flags. simulate is the command to copy:
// flags into the package's options, one call, the output.
type simulateOptions struct {
	dep              deploymentFlags
	traffic          trafficFlags
	whatIf           whatIfFlags
	output           string
	resultsPath      string
	timelinePath     string
	timelineInterval float64
	seeds            int
	confidence       float64
	slo              string
}

func newSimulateCmd() *cobra.Command {
	var o simulateOptions
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate a vLLM deployment on logged or synthetic traffic",
		Long: `simulate runs a discrete-event model of vLLM's V1 engine (KV block pool,
continuous-batching scheduler, chunked prefill, preemption by recompute, prefix
caching, speculative decoding) for each replica, on a log of requests or on
synthetic traffic, and reports what users would see (TTFT, time to first answer
token, TPOT, ITL, E2E) and what the servers did (KV usage, queue, preemptions).

With no traffic flags it runs the embedded default: Qwen3-8B on one H100 with
three effort modes mixed 70/25/5 (low: no thinking; medium: a 1,024-token
thinking budget; high: 4,096).`,
		Example: `  thinkcap simulate
  thinkcap simulate --model qwen3-14b --gpu h100-sxm --requests 5000 --rate 1.5 \
      --prompt-tokens lognormal:p50=800,p99=6000 --think-tokens lognormal:p50=1500,p99=12000,max=30000
  thinkcap simulate --workload requests.jsonl --kv-cache-dtype fp8 --results results.jsonl -o json
  thinkcap simulate --rate 2 --slo ttft_p99=2s,tpot_p50=50ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd, &o) },
	}
	fs := cmd.Flags()
	o.dep.register(fs)
	o.traffic.register(fs)
	o.whatIf.register(fs)
	fs.StringVarP(&o.output, "output", "o", "table", "table or json (the summary JSON, docs/formats.md)")
	fs.StringVar(&o.resultsPath, "results", "", "write per-request result records (JSONL) to this file")
	fs.StringVar(&o.timelinePath, "timeline", "", "write KV usage, running, waiting and preemptions over time (CSV) to this file")
	fs.Float64Var(&o.timelineInterval, "timeline-interval", 1, "simulated seconds between timeline samples")
	fs.IntVar(&o.seeds, "seeds", 0, fmt.Sprintf("draws of the traffic the intervals' chance part comes from (synthetic traffic regenerated, a log resampled by blocks of time); 0: %d for runs of up to %d requests, 1 beyond", scenario.DefaultSeeds, scenario.AutoSeedsMaxRequests))
	fs.Float64Var(&o.confidence, "confidence", scenario.DefaultConfidence, "the intervals' confidence, from 0.5 to 0.98: chance over --seeds draws and the step model's measured error on real vLLM runs")
	fs.StringVar(&o.slo, "slo", "", "SLOs to check the prediction against, e.g. ttft_p99=2s,tpot_p50=50ms (as size takes them: metrics ttft, ttfa, tpot, e2e; stats mean, p50, p90, p99); a missed one exits 1")
	return cmd
}

// options are the flags as the simulator's options; progress bars and the
// log reader's warnings go to errOut.
func (o *simulateOptions) options(errOut io.Writer) scenario.Options {
	return scenario.Options{
		Deployment: o.dep.options(), Traffic: o.traffic.options(),
		WhatIf: o.whatIf.options(), Route: o.whatIf.routeOptions(),
		TimelineIntervalS: o.timelineInterval, Timeline: o.timelinePath != "", Warn: errOut,
		Seeds: o.seeds, Confidence: o.confidence,
		StartDraws: func(draws int) (func(done, total int), func()) {
			bar := progress.New(errOut, fmt.Sprintf("redrawing the traffic %d times", draws))
			return bar.Update, bar.Done
		},
		StartPool: func(pool string) (func(done, total int), func()) {
			bar := progress.New(errOut, "simulating "+pool)
			return bar.Update, bar.Done
		},
	}
}

func runSimulate(cmd *cobra.Command, o *simulateOptions) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	opts, err := o.parse(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	cat, err := o.dep.catalog()
	if err != nil {
		return err
	}
	var results *resultsFile
	if o.resultsPath != "" {
		// Streamed as requests finish: no result is kept in memory.
		if results, err = createResultsFile(o.resultsPath); err != nil {
			return err
		}
		opts.Results = results.write
	}
	run, err := scenario.Simulate(cat, opts)
	if err != nil {
		results.discard()
		return inputerr.New(err)
	}
	if err := results.close(); err != nil {
		return err
	}
	if cv := run.Summary.OutsideCorpus; cv != nil {
		for _, why := range cv.Unmeasured {
			fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", why)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", cv.Expect)
	}
	if o.timelinePath != "" {
		if err := outfile.Write(o.timelinePath, func(f *bufio.Writer) error { return sim.WriteTimelineCSV(f, run.Timeline) }); err != nil {
			return err
		}
	}
	if err := writeOutput(cmd.OutOrStdout(), o.output, run.Summary, scenario.WriteSummaryTable); err != nil {
		return err
	}
	return analysis.MissedSLOs(run.Summary.SLOs)
}

// parse reads --slo into the options and checks every flag before any
// work, so that each bad one is named at once.
func (o *simulateOptions) parse(errOut io.Writer) (scenario.Options, error) {
	opts := o.options(errOut)
	var problems inputerr.List
	_, unparsed := o.whatIf.parse()
	problems.Add(unparsed)
	if o.slo != "" {
		slos, err := analysis.ParseSLOs(o.slo)
		problems.Field("SLOs", err)
		opts.SLOs = slos
	}
	problems.Add(opts.Validate())
	_, unparsed = o.traffic.parse()
	problems.Add(unparsed)
	return opts, problems.Err()
}
