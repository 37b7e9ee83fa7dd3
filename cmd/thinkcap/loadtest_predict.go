package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
	"github.com/thinkcap/thinkcap/workload"
)

// predictFlags are loadtest's --predict and the deployment flags the
// prediction needs beyond what the server says about itself (simulate's,
// with --model-profile for the model: --model is the served name).
type predictFlags struct {
	enabled   bool
	dep       deploymentFlags
	tolerance string
	tol       map[string]float64 // parsed by config, before any load
	minReqs   int
	flags     *pflag.FlagSet
}

// predictShared are the deployment flags loadtest already has for itself.
var predictShared = map[string]bool{"model": true, "profiles": true, "seed": true}

func (p *predictFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&p.enabled, "predict", false, "print the simulator's prediction before sending load and verify it at the end (exit 1 outside --tolerance)")
	fs.StringVar(&p.tolerance, "tolerance", "", "with --predict: verify's pass/fail bounds, e.g. ttft_p50=20%,tpot_mean=10%")
	fs.IntVar(&p.minReqs, "min-requests", verify.DefaultMinRequests, "with --predict: fewest successful measured requests the verdict rests on (fewer: \"no data\", exit 1)")
	deps := pflag.NewFlagSet("deployment", pflag.ContinueOnError)
	p.dep.register(deps)
	deps.VisitAll(func(f *pflag.Flag) {
		if !predictShared[f.Name] {
			f.Usage = "with --predict: " + f.Usage
			fs.AddFlag(f)
		}
	})
	fs.StringVar(&p.dep.model, "model-profile", "", "with --predict: the model's profile or Hugging Face id (default: the served --model)")
	p.flags = fs
}

// validate checks the prediction's flags whether or not --predict is given:
// a malformed value is always bad input. Without --predict the flags would
// change nothing, so a flag given is refused rather than silently ignored.
func (p *predictFlags) validate() error {
	var errs []error
	tol, err := analysis.ParseTolerances(p.tolerance)
	if err != nil {
		errs = append(errs, fmt.Errorf("--tolerance: %w", err))
	}
	p.tol = tol
	errs = append(errs, p.dep.validate())
	if p.minReqs < 0 {
		errs = append(errs, fmt.Errorf("--min-requests %d: must be 0 or more", p.minReqs))
	}
	if !p.enabled {
		var only []string
		for _, name := range []string{"tolerance", "model-profile", "min-requests"} {
			if p.flags.Changed(name) {
				only = append(only, "--"+name)
			}
		}
		p.dep.set.VisitAll(func(f *pflag.Flag) {
			if f.Changed && !predictShared[f.Name] {
				only = append(only, "--"+f.Name)
			}
		})
		if len(only) > 0 {
			verb := "matters"
			if len(only) > 1 {
				verb = "matter"
			}
			errs = append(errs, fmt.Errorf("%s only %s with --predict (the prediction's deployment and bounds): add --predict or leave it out",
				strings.Join(only, ", "), verb))
		}
	}
	return badInput(errors.Join(errs...))
}

// explicit maps verify's flag names onto loadtest's.
func (p *predictFlags) explicit(name string) bool {
	if name == "model" {
		name = "model-profile"
	}
	return p.flags.Changed(name)
}

// config is the deployment to predict: the flags, the server's cache
// config and context length (a scrape before the load), as verify sets it
// up.
func (p *predictFlags) config(ctx context.Context, o *loadtestOptions, meta *loadgen.Metadata, apiKey string) (sim.Config, *verify.Run, error) {
	if err := p.validate(); err != nil {
		return sim.Config{}, nil, err
	}
	p.dep.profilesPath = o.profilesPath // loadtest's --profiles, for verifyRun too
	dep := p.dep
	if dep.model == "" {
		dep.model = o.model
	}
	cat, err := dep.catalog()
	if err != nil {
		return sim.Config{}, nil, err
	}
	if _, err := cat.Model(dep.model); err != nil {
		return sim.Config{}, nil, badInput(fmt.Errorf("--predict: the served model %q has no profile: pass --model-profile (see thinkcap profiles)", dep.model))
	}
	cfg, err := dep.config(cat)
	if err != nil {
		return sim.Config{}, nil, err
	}
	server := &verify.Run{Meta: *meta, TimeScale: loadgen.EmulatorTimeScale(meta.ServerVersion)}
	if s, err := loadgen.NewScraper(loadgen.ScraperConfig{URL: o.url, APIKey: apiKey}).Scrape(ctx); err == nil {
		server.Meta.CacheConfig = s.CacheConfig
	}
	return cfg, server, nil
}

// printPrediction simulates the planned requests on the server's
// deployment and prints the summary, before any load is sent.
func (p *predictFlags) printPrediction(w io.Writer, cfg sim.Config, server *verify.Run, reqs []workload.Request, concurrency int) error {
	setup, err := verify.Configure(&cfg, server, p.explicit)
	if err != nil {
		return badInput(fmt.Errorf("--predict: %w", err))
	}
	planned := append([]workload.Request(nil), reqs...)
	for i := range planned {
		planned[i].ArrivalS *= server.TimeScale // the server's clock
	}
	rep, err := sim.Run(cfg, planned, sim.Options{Concurrency: concurrency})
	if err != nil {
		return badInput(fmt.Errorf("--predict: %w", err))
	}
	s := rep.Summary()
	s.Kind = "prediction"
	fmt.Fprintln(w, "thinkcap loadtest --predict: the simulator's prediction of this load test, before it runs")
	if server.TimeScale != 1 {
		fmt.Fprintf(w, "(an emulator at time scale %g: times are its server time)\n", server.TimeScale)
	}
	for _, n := range setup.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	fmt.Fprintln(w)
	if err := analysis.WriteTable(w, &s); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// verifyRun compares the finished run with the prediction and prints the
// comparison; it fails when a check does, or when too little was measured
// to check ("no data").
func (p *predictFlags) verifyRun(cmd *cobra.Command, dir string) error {
	out, err := verifyRun(p.dep, p.dep.model != "", p.explicit, dir, p.tol, p.minReqs)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintln(w)
	if err := writeVerifyTable(w, out); err != nil {
		return err
	}
	return outsideTolerance(&out.Comparison)
}
