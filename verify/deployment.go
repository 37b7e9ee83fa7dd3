package verify

import (
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// Deployment is what the deployment flags say about a run's server:
// Options as given, Catalog loads the profiles (with --profiles), and
// ModelGiven says --model was set; unset, the model is the run's served
// model.
type Deployment struct {
	Options    sim.DeploymentOptions
	Catalog    func() (*profiles.Catalog, error)
	ModelGiven bool
}

// Load reads the run directory and the deployment the flags describe for
// it, in that order after the flags' own check. Every error but the
// catalog's is bad input (an inputerr.Error); the catalog's is returned as it is.
func (d Deployment) Load(dir string) (sim.Config, *Run, error) {
	if err := d.Options.Validate(); err != nil { // the flags before the run is read
		return sim.Config{}, nil, inputerr.New(err)
	}
	run, err := LoadRun(dir)
	if err != nil {
		return sim.Config{}, nil, inputerr.New(err)
	}
	cat, err := d.Catalog()
	if err != nil {
		return sim.Config{}, nil, err
	}
	opts := d.Options
	if !d.ModelGiven {
		if _, err := cat.Model(run.Meta.Model); err != nil {
			return sim.Config{}, nil, inputerr.Errorf("%s: the run's model %q has no profile: pass %s (see thinkcap profiles)", dir, run.Meta.Model, inputerr.Name("Model"))
		}
		opts.Model = run.Meta.Model
	}
	cfg, err := opts.Config(cat)
	if err != nil {
		return cfg, nil, inputerr.New(err)
	}
	return cfg, run, nil
}

// explicit says whether the user set the field (none when Options.Given
// is nil).
func (d Deployment) explicit(field string) bool {
	return d.Options.Given != nil && d.Options.Given(field)
}

// LoadConfigured loads each run directory (Load) with its deployment set
// up like the run's server (Configure), as calibrate fits them.
func (d Deployment) LoadConfigured(dirs []string) ([]sim.Config, []*Run, error) {
	var cfgs []sim.Config
	var runs []*Run
	for _, dir := range dirs {
		cfg, run, err := d.Load(dir)
		if err != nil {
			return nil, nil, err
		}
		if _, err := Configure(&cfg, run, d.explicit); err != nil {
			return nil, nil, inputerr.At(dir, 0, err)
		}
		cfgs, runs = append(cfgs, cfg), append(runs, run)
	}
	return cfgs, runs, nil
}

// Verify checks the options, loads the run in dir with d (Load), verifies
// the prediction of it (the package's Verify, the flags d's Options set
// winning over the run) and writes the report and plots asked for. Errors
// of the user's input are inputerr.Errors.
func (o *Options) Verify(dir string, d Deployment) (*Outcome, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	tol := o.tolerances()
	cfg, run, err := d.Load(dir)
	if err != nil {
		return nil, err
	}
	out, err := Verify(cfg, run, d.explicit, tol, o.MinRequests)
	if err != nil {
		return nil, inputerr.New(err)
	}
	return out, o.WriteFiles(out)
}
