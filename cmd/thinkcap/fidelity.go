package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/fidelity"
	"github.com/thinkcap/thinkcap/internal/progress"
)

type fidelityOptions struct {
	corpus, profiles, output, plot string
	modelError                     string
	rows                           bool
}

func newFidelityCmd() *cobra.Command {
	var o fidelityOptions
	cmd := &cobra.Command{
		Use:   "fidelity",
		Short: "Replay the measurement corpus of real vLLM runs and score the model",
		Long: `fidelity replays every load point of the measurement corpus (real vLLM
serving runs published with their deployment, workload and load: one record
per point in --corpus, testdata/measured/SCHEMA.md) through the simulator,
closed loop at the measured concurrency or open loop at the measured rate,
with the source's lengths, and prints predicted beside measured: the mean
absolute relative error of TPOT (or ITL), TTFT and output throughput overall,
per regime (concurrency, decode- or prefill-heavy, dense or MoE, TP, GPU,
weight format, source) and per deployment, in-sample and cross-validated
(each deployment predicted by coefficients fitted without it). Records it
cannot replay (no profile for the model or GPU, an architecture thinkcap does
not model) are counted with the reason.`,
		Example: `  thinkcap fidelity
  thinkcap fidelity --plot fidelity.png -o json > scoreboard.json
  thinkcap calibrate --corpus testdata/measured --out profiles/data/step-fit.yaml   # refit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFidelity(cmd, &o) },
	}
	fs := cmd.Flags()
	fs.StringVar(&o.corpus, "corpus", "testdata/measured", "directory of corpus records (*.jsonl)")
	fs.StringVar(&o.profiles, "profiles", "", "extra GPU/model profiles or step fits: a YAML file or a directory of them")
	fs.StringVarP(&o.output, "output", "o", "table", "table, json or markdown (the scoreboard's tables, as make fidelity writes docs/fidelity-scoreboard.md)")
	fs.StringVar(&o.plot, "plot", "", "write predicted against measured (log-log, one colour per GPU) as a PNG")
	fs.BoolVar(&o.rows, "rows", false, "print every point")
	fs.StringVar(&o.modelError, "model-error", "", "write the cross-validated residuals' quantiles per metric and regime (the intervals' model part) to this YAML file, as profiles/data/model-error.yaml")
	return cmd
}

// runFidelity replays the corpus, writes the files asked for and prints
// the scoreboard.
func runFidelity(cmd *cobra.Command, o *fidelityOptions) error {
	if o.output != "markdown" {
		if err := checkOutput(o.output); err != nil {
			return err
		}
	}
	dep := deploymentFlags{profilesPath: o.profiles}
	cat, err := dep.catalog()
	if err != nil {
		return err
	}
	bar := progress.New(cmd.ErrOrStderr(), "fidelity").Counting("replays")
	sb, err := fidelity.Run(fidelity.Options{Corpus: o.corpus, Catalog: cat, Progress: bar.Update})
	bar.Done()
	if err != nil {
		return err
	}
	if o.modelError != "" {
		if err := fidelity.WriteModelError(o.modelError, sb, o.corpus); err != nil {
			return err
		}
	}
	if o.plot != "" {
		if err := fidelity.WritePlotFile(o.plot, sb); err != nil {
			return err
		}
	}
	if o.output == "markdown" {
		return fidelity.WriteMarkdown(cmd.OutOrStdout(), sb)
	}
	return writeOutput(cmd.OutOrStdout(), o.output, sb, func(w io.Writer, sb *fidelity.Scoreboard) error {
		return fidelity.WriteTable(w, sb, o.rows)
	})
}
