package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
)

type calibrateOptions struct {
	dep         deploymentFlags
	fit         []string
	out         string
	output      string
	writeAnyway bool
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
they go, with a note.`,
		Example: `  thinkcap calibrate run1 run2 run3 --gpu h100-sxm --out h100-qwen3-8b.yaml
  thinkcap verify run4 --gpu h100-sxm --step-model h100-qwen3-8b.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCalibrate(cmd, &o, args) },
	}
	fs := cmd.Flags()
	o.dep.register(fs)
	fs.StringSliceVar(&o.fit, "fit", verify.DefaultFit, "coefficients to fit (the others stay as the GPU profile and --step-model have them)")
	fs.StringVar(&o.out, "out", "thinkcap-calibration.yaml", "the --step-model file to write")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	fs.BoolVar(&o.writeAnyway, "write-anyway", false, "write --out even when the calibration does not improve the held-out error")
	return cmd
}

func runCalibrate(cmd *cobra.Command, o *calibrateOptions, dirs []string) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	var cfgs []sim.Config
	var runs []*verify.Run
	for _, dir := range dirs {
		cfg, run, err := runConfig(o.dep, cmd.Flags().Changed("model"), dir)
		if err != nil {
			return err
		}
		if _, err := verify.Configure(&cfg, run, cmd.Flags().Changed); err != nil {
			return badInput(fmt.Errorf("%s: %w", dir, err))
		}
		cfgs, runs = append(cfgs, cfg), append(runs, run)
	}
	bar := newProgress(cmd.ErrOrStderr(), "calibrate")
	if bar != nil {
		bar.unit = "fits"
	}
	c, err := verify.Calibrate(cfgs, runs, o.fit, bar.update)
	bar.done()
	if err != nil {
		if strings.HasPrefix(err.Error(), "--fit") {
			return badInput(err)
		}
		return err
	}
	bases := make([]string, len(dirs))
	for i, d := range dirs {
		bases[i] = filepath.Base(d)
	}
	head := fmt.Sprintf("thinkcap calibrate, %s: step-time coefficients of %s on %s, fitted to %s.\nUse with --step-model in simulate, size, serve and verify.",
		time.Now().UTC().Format("2006-01-02"), cfgs[0].Model.Name, cfgs[0].GPU.Name, strings.Join(bases, ", "))
	write := c.Improved || o.writeAnyway
	if write {
		data, err := profiles.EncodeStepCoefficients(c.After, head)
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.out, data, 0o644); err != nil {
			return badInput(fmt.Errorf("--out: %w", err))
		}
	}
	w := cmd.OutOrStdout()
	if c.Warning != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", c.Warning)
	}
	if o.output == "json" {
		if err := writeJSON(w, c); err != nil {
			return err
		}
	} else {
		for _, n := range c.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		if err := verify.WriteCalibrationTable(w, c); err != nil {
			return err
		}
		if write {
			fmt.Fprintf(w, "\nwrote %s: pass it as --step-model to simulate, size, serve and verify\n", o.out)
		}
	}
	if !write {
		return fmt.Errorf("calibration not written to %s: it does not improve the held-out error (--write-anyway writes it)", o.out)
	}
	return nil
}
