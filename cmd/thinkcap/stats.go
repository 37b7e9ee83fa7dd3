package main

import (
	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report"
)

type statsOptions struct {
	log         logFlags
	tpotS       float64
	concurrency int
	output      string
}

func newStatsCmd() *cobra.Command {
	var o statsOptions
	cmd := &cobra.Command{
		Use:   "stats LOG",
		Short: "Think, answer and total tokens per class of a request log, with the capacity view",
		Long: `stats summarises a request log per class (effort mode × task category, as the
log names them) and overall: think, answer and total (think + answer) tokens as
mean, p50, p90, p99 and max; the share of generated tokens spent thinking; the
capacity view (seconds per request at p50/p90/p99 = total × tpot,
sustainable req/s = concurrency / (mean total × tpot)); and, when the log has
finish reasons, how often requests hit max_tokens and how often they were cut
inside the thinking (finish_reason length with no answer token: an unclosed
<think>).

LOG may also be a run's results.jsonl (loadtest, simulate --results): the ok
records are summarised as requests and the others counted by status.`,
		Example: `  thinkcap stats requests.jsonl
  thinkcap stats thinkcap-loadtest-20261201-220000/results.jsonl
  thinkcap stats requests.csv.gz --tpot 0.02 --concurrency 64 -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runStats(cmd, args[0], &o) },
	}
	fs := cmd.Flags()
	o.log.register(fs)
	fs.Float64Var(&o.tpotS, "tpot", logstats.DefaultTPOTS, "seconds per output token for the capacity view")
	fs.IntVar(&o.concurrency, "concurrency", logstats.DefaultConcurrency, "requests decoding at once for the capacity view")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	return cmd
}

func runStats(cmd *cobra.Command, path string, o *statsOptions) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	opts, err := logstats.NewStatsOptions(o.tpotS, o.concurrency)
	if err != nil {
		return inputerr.New(err)
	}
	acc := logstats.NewStatsAccumulator(opts)
	if err := acc.AddLog(path, o.log.options(), cmd.ErrOrStderr()); err != nil {
		return inputerr.New(err)
	}
	rep := acc.Result()
	return writeOutput(cmd.OutOrStdout(), o.output, &rep, report.WriteStatsTable)
}
