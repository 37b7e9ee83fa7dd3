package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadtest"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
)

// predictFlags are loadtest's --predict and the deployment flags the
// prediction needs beyond what the server says about itself (simulate's,
// with --model-profile for the model: --model is the served name).
type predictFlags struct {
	enabled   bool
	dep       deploymentFlags
	tolerance string
	tol       map[string]float64 // parsed by validate, before any load
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
	return inputerr.New(errors.Join(errs...))
}

// options is the prediction's part of the load test's options, nil
// without --predict; profilesPath is loadtest's --profiles.
func (p *predictFlags) options(profilesPath string) *loadtest.Predict {
	if !p.enabled {
		return nil
	}
	p.dep.profilesPath = profilesPath
	return &loadtest.Predict{Config: p.config, Explicit: given(p.flags), Tolerances: p.tol, MinRequests: p.minReqs}
}

// config is the deployment to predict for the served model: the flags,
// with --model-profile for the model when given.
func (p *predictFlags) config(served string) (sim.Config, error) {
	dep := p.dep
	if dep.model == "" {
		dep.model = served
	}
	cat, err := dep.catalog()
	if err != nil {
		return sim.Config{}, err
	}
	if _, err := cat.Model(dep.model); err != nil {
		return sim.Config{}, inputerr.New(fmt.Errorf("--predict: the served model %q has no profile: pass --model-profile (see thinkcap profiles)", dep.model))
	}
	return dep.config(cat)
}
