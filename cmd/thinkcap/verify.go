package main

import (
	"github.com/spf13/cobra"
	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"

	"github.com/thinkcap/thinkcap/verify"
)

type verifyOptions struct {
	dep       deploymentFlags
	check     verify.Options
	tolerance string // parsed into check's Tolerances
	output    string
}

func newVerifyCmd() *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:   "verify RUN_DIR",
		Short: "Compare a load test with the simulator's prediction of it",
		Long: `verify reads a load test's run directory (results.jsonl, timeline.csv,
metadata.json, summary.json), replays exactly the requests the server received
(their sent times and the token counts it reported) through the simulator
configured like that server, and prints prediction and measurement side by
side with the error: throughput, TTFT, TTFA, TPOT, ITL and E2E, KV usage,
running and waiting peaks, preemptions.

The server's KV block count, block size, cache dtype, prefix caching and
max_model_len come from the run (vllm:cache_config_info, /v1/models); the
deployment flags (simulate's) say what the run cannot: --gpu, -tp, --model
when the served name is not a known Hugging Face id, --step-model. A flag you
set wins over the run. With speculative decoding the measured acceptance
length is replayed and shown beside the assumed one.

Each checked metric passes when |predicted − measured| ≤ its bound:
tolerance × |measured| plus a small absolute slack (20 ms for request
latencies, 1 ms for per-token ones, a point of KV usage, a request or two for
counts), the latencies' slack stretched by an emulator's time scale. The
table's "tolerance" and "bound" columns and the JSON's "bound" show exactly
the bound tested. A metric one side did not measure (KV usage never scraped)
is "no data": neither a pass nor a failure.

The verdict is "pass", "fail", or "no data" when fewer than --min-requests
measured requests succeeded or no checked metric was measured; the exit
status is 1 unless it is "pass". A run that ended early (interrupted, aborted,
killed) is verified on what it recorded, with a note saying so.`,
		Example: `  thinkcap verify run1 --gpu h100-sxm
  thinkcap verify run1 --gpu h100-sxm --step-model calibration.yaml --tolerance ttft_p50=20%,tpot_mean=10% --report run1.html
  thinkcap verify run1 --gpu h200 -tp 2 -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd, &o, args[0]) },
	}
	fs := cmd.Flags()
	o.dep.register(fs)
	fs.StringVar(&o.tolerance, "tolerance", "", "pass/fail bounds, e.g. ttft_p50=20%,tpot_mean=10%,preemptions=off ('none' clears the defaults)")
	fs.IntVar(&o.check.MinRequests, "min-requests", verify.DefaultMinRequests, "fewest successful measured requests a verdict rests on (fewer: verdict \"no data\", exit 1)")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	fs.StringVar(&o.check.Report, "report", "", "write a self-contained HTML report (tables and plots) to this file")
	fs.StringVar(&o.check.PlotDir, "plot-dir", "", "write the report's plots as PNG files into this directory")
	return cmd
}

func runVerify(cmd *cobra.Command, o *verifyOptions, dir string) error {
	if err := o.parse(); err != nil {
		return err
	}
	out, err := o.check.Verify(dir, verifyDeployment(cmd, &o.dep))
	if err != nil {
		return err
	}
	if err := writeOutput(cmd.OutOrStdout(), o.output, out, verify.WriteTable); err != nil {
		return err
	}
	return out.Verdict()
}

// verifyDeployment is what the deployment flags say about a run's server.
func verifyDeployment(cmd *cobra.Command, f *deploymentFlags) verify.Deployment {
	return verify.Deployment{Options: f.options(), Catalog: f.catalog, ModelGiven: cmd.Flags().Changed("model")}
}

// parse reads --tolerance into the options and checks every flag before
// the run is read, reporting each problem.
func (o *verifyOptions) parse() error {
	var problems inputerr.List
	problems.Add(checkOutput(o.output))
	tol, err := analysis.ParseTolerances(o.tolerance)
	problems.Field("Tolerances", err)
	o.check.Tolerances = tol
	problems.Add(o.check.Validate())
	problems.Add(o.dep.validate())
	return problems.Err()
}
