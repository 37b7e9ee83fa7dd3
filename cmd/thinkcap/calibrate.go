package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/fidelity"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/progress"
	"github.com/thinkcap/thinkcap/verify"
)

type calibrateOptions struct {
	dep    deploymentFlags
	fit    []string
	file   calibrate.File // --out, --write-anyway
	output string
	corpus string   // --corpus: fit per GPU generation on the measurement corpus instead
	hold   []string // --hold: with --corpus, coefficients kept at the profile's
}

func newCalibrateCmd() *cobra.Command {
	var o calibrateOptions
	cmd := &cobra.Command{
		Use:   "calibrate RUN_DIR...",
		Short: "Fit the step-time coefficients to measured load tests",
		Long: `calibrate replays load-test run directories through the simulator (set up
like the server, as verify does) and fits the step-time coefficients so that
every measured request's time to first token and decode span (first token to
last) match. A latency is a sum of engine steps, and a step's time is linear
in the coefficients' parameters (1/efficiency, overheads), so each iteration
is a least-squares fit on relative errors given the batches the replay put
each request through, repeated until the coefficients settle. A constant API
overhead per run is fitted beside them on TTFT and reported, not written.

It writes a --step-model file that simulate, size, serve and verify accept,
and reports the error (MAPE) before and after on data the fit did not see:
each run predicted by a fit of the others, or, from one run, its odd requests
by a fit of its even ones. When that error does not fall (the TPOT and E2E
errors, what the fit targets: the geometric mean over the held-out sets of
the error after over the error before), calibrate warns, writes no file and
exits 1: the coefficients it started from predict better.
--write-anyway writes it regardless. The coefficients fitted are written to
4 significant digits, the most the fit determines (it stops when no
parameter moves by 0.1%).

Runs that ended early (interrupted, aborted, killed) are used as far as
they go, with a note.

With --corpus DIR (and no run directories) it fits the coefficients per GPU
generation on the measurement corpus of published vLLM runs instead (the
same replays as thinkcap fidelity, re-simulated until the coefficients
settle), prints the fits and the corpus scoreboard, and writes them to --out
(default thinkcap-step-fit.yaml) as a profiles file that --profiles loads:
every built-in GPU, and any of yours without a step block, takes its
generation's fit. thinkcap's own fit is profiles/data/step-fit.yaml, refitted
by make refit when the corpus grows.`,
		Example: `  thinkcap calibrate run1 run2 run3 --gpu h100-sxm --out h100-qwen3-8b.yaml
  thinkcap verify run4 --gpu h100-sxm --step-model h100-qwen3-8b.yaml
  thinkcap calibrate --corpus testdata/measured --out my-fit.yaml
  thinkcap simulate --profiles my-fit.yaml ...`,
		Args: o.args,
		RunE: func(cmd *cobra.Command, args []string) error { return runCalibrate(cmd, &o, args) },
	}
	fs := cmd.Flags()
	o.dep.register(fs)
	fs.StringSliceVar(&o.fit, "fit", calibrate.DefaultFit, "coefficients to fit (the others stay as the GPU profile and --step-model have them)")
	fs.StringVar(&o.file.Path, "out", "thinkcap-calibration.yaml", "the --step-model file to write")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	fs.BoolVar(&o.file.Anyway, "write-anyway", false, "write --out even when the calibration does not improve the held-out error")
	fs.StringVar(&o.corpus, "corpus", "", "fit per GPU generation on this directory of corpus records (testdata/measured) instead of run directories")
	fs.StringSliceVar(&o.hold, "hold", calibrate.DefaultHold, "with --corpus: coefficients kept at the GPU profile's value")
	return cmd
}

// args are run directories, or none with --corpus.
func (o *calibrateOptions) args(cmd *cobra.Command, args []string) error {
	if o.corpus == "" {
		return cobra.MinimumNArgs(1)(cmd, args)
	}
	if len(args) > 0 {
		return inputerr.Errorf("--corpus fits the corpus: give no run directories (got %d)", len(args))
	}
	return nil
}

// runCalibrateCorpus fits the corpus (--corpus) and writes the fits.
func runCalibrateCorpus(cmd *cobra.Command, o *calibrateOptions) error {
	var problems inputerr.List
	problems.Add(calibrate.CheckHold(o.hold))
	for _, f := range []string{"fit", "write-anyway", "step-model"} {
		if cmd.Flags().Changed(f) {
			problems.Add(fmt.Errorf("--%s does not apply with --corpus (every coefficient is fitted per generation)", f))
		}
	}
	if err := problems.Err(); err != nil {
		return err
	}
	out := o.file.Path
	if !cmd.Flags().Changed("out") {
		out = "thinkcap-step-fit.yaml"
	}
	cat, err := o.dep.catalog()
	if err != nil {
		return err
	}
	bar := progress.New(cmd.ErrOrStderr(), "calibrate").Counting("replays")
	sb, err := fidelity.Calibrate(fidelity.Options{Corpus: o.corpus, Catalog: cat, Progress: bar.Update, Hold: o.hold})
	bar.Done()
	if err != nil {
		return err
	}
	if err := fidelity.WriteStepFits(out, sb, o.corpus); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "thinkcap: wrote %s (use with --profiles %s)\n", out, out)
	return writeOutput(cmd.OutOrStdout(), o.output, sb, func(w io.Writer, sb *fidelity.Scoreboard) error {
		return fidelity.WriteTable(w, sb, false)
	})
}

func runCalibrate(cmd *cobra.Command, o *calibrateOptions, dirs []string) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	if o.corpus != "" {
		return runCalibrateCorpus(cmd, o)
	}
	if cmd.Flags().Changed("hold") {
		return inputerr.New(fmt.Errorf("--hold applies with --corpus only (with run directories, --fit names what is fitted)"))
	}
	cfgs, runs, err := verifyDeployment(cmd, &o.dep).LoadConfigured(dirs)
	if err != nil {
		return err
	}
	bar := progress.New(cmd.ErrOrStderr(), "calibrate").Counting("fits")
	c, err := calibrate.Calibrate(verify.Observations(cfgs, runs), o.fit, bar.Update)
	bar.Done()
	if err != nil {
		return err
	}
	if err := o.file.Write(c, cfgs[0], dirs); err != nil {
		return err
	}
	if c.Warning != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", c.Warning)
	}
	if err := writeOutput(cmd.OutOrStdout(), o.output, c, o.file.WriteTable); err != nil {
		return err
	}
	return o.file.Verdict()
}
