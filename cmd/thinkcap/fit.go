package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report"
)

type fitOptions struct {
	log    logFlags
	output string
	fit    logstats.ProfileFit // --name, --spike-min-mass, --report
}

func newFitCmd() *cobra.Command {
	var o fitOptions
	cmd := &cobra.Command{
		Use:   "fit LOG",
		Short: "Fit a traffic profile (classes, shares, token distributions) to a request log",
		Long: `fit turns a request log into a traffic profile that simulate can generate from.
Each (effort mode × task category) of the log becomes a class with its share of
the requests; its prompt, think and answer tokens are each fitted with a
lognormal, a gamma (both by maximum likelihood) and a 21-point quantile table,
and the one closest to the log by Kolmogorov–Smirnov distance is kept (the
table only when it is clearly closer). Before fitting, a value that holds at
least --spike-min-mass of the requests at the log's maximum (requests cut at
max_tokens or a thinking budget) or at 0 (thinking off) is kept as a spike of
its own.

The profile is YAML with a top-level traffic: list, as --profiles reads it;
comments above each distribution give its fit. The report lists, per class
and field, the spikes, the chosen family and every candidate's distance.
Without -o the YAML goes to stdout and the report to stderr.`,
		Example: `  thinkcap fit requests.jsonl -o profile.yaml
  thinkcap simulate --profiles profile.yaml --traffic requests --rate 5
  thinkcap fit requests.csv.gz --name prod --report json -o prod.yaml > fit.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runFit(cmd, args[0], &o) },
	}
	fs := cmd.Flags()
	o.log.register(fs)
	fs.StringVarP(&o.output, "output", "o", "", "write the profile YAML to this file (default: stdout, with the report on stderr)")
	fs.StringVar(&o.fit.Name, "name", "", "traffic profile name (default: the log's file name without extensions)")
	fs.Float64Var(&o.fit.SpikeMinMass, "spike-min-mass", logstats.DefaultSpikeMinMass,
		"share of the requests at the maximum or at 0 that makes a spike (1 turns spikes off)")
	fs.StringVar(&o.fit.Report, "report", "table", "fit report: table or json")
	return cmd
}

func runFit(cmd *cobra.Command, path string, o *fitOptions) error {
	if err := o.fit.Validate(); err != nil {
		return inputerr.New(err)
	}
	var fitter logstats.TrafficFitter
	if err := o.log.each(path, cmd.ErrOrStderr(), fitter.Add); err != nil {
		return err
	}
	rep, data, err := o.fit.Profile(&fitter, path)
	if err != nil {
		return err
	}
	// The profile to -o and the report to stdout, else the profile to
	// stdout and the report to stderr.
	yamlOut, reportOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if o.output != "" {
		if err := os.WriteFile(o.output, data, 0o644); err != nil {
			return inputerr.New(fmt.Errorf("-o: %w", err))
		}
		reportOut = cmd.OutOrStdout()
	} else if _, err := yamlOut.Write(data); err != nil {
		return err
	}
	return writeOutput(reportOut, o.fit.Report, &rep, report.WriteFitTable)
}
