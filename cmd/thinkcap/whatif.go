package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// whatIfFlags are the composable what-if transforms of the traffic.
type whatIfFlags struct {
	thinkBudget   int
	policy        string
	effort        string
	escalate      float64
	route         string
	routeModel    string
	routeGPU      string
	routeTP       int
	routeReplicas int
	set           *pflag.FlagSet // where the flags were registered: which were given
}

func (f *whatIfFlags) register(fs *pflag.FlagSet) {
	f.set = fs
	fs.IntVar(&f.thinkBudget, "think-budget", 0, "cap thinking at N tokens (see --budget-policy)")
	fs.StringVar(&f.policy, "budget-policy", workload.PolicyForcedClosure, "forced-closure (cap, close, answer in full), truncate (hard output cap: the answer is lost) or two-phase (a second call with prompt + trace)")
	fs.StringVar(&f.effort, "effort", "", "effort modes to think/answer budgets, e.g. low=0/512,medium=1024/768,high=4096/1024 (think 0: thinking off)")
	fs.Float64Var(&f.escalate, "escalate", 0, "fraction of low-mode requests that fail a verifier and are retried at high effort")
	fs.StringVar(&f.route, "route", "", "send a class or a fraction to a separate non-thinking pool: low, mode=low, category=extraction or 0.7")
	fs.StringVar(&f.routeModel, "route-model", "", "the route pool's model (default: --model with thinking off)")
	fs.StringVar(&f.routeGPU, "route-gpu", "", "the route pool's GPU (default: --gpu)")
	fs.IntVar(&f.routeTP, "route-tensor-parallel-size", 1, "the route pool's GPUs per replica")
	fs.IntVar(&f.routeReplicas, "route-replicas", 1, "the route pool's replicas")
}

// validate checks the what-if flags before any traffic is read: every
// problem, as bad input. A flag that changes nothing without another is
// refused rather than ignored.
func (f *whatIfFlags) validate() error {
	given := func(name string) bool { return f.set != nil && f.set.Changed(name) }
	var errs []error
	if given("think-budget") && f.thinkBudget < 1 {
		// 0 would be "no budget" and change nothing: thinking off is an effort mode.
		errs = append(errs, fmt.Errorf("--think-budget must be at least 1 token, got %d (for thinking off use --effort, e.g. low=0/512)", f.thinkBudget))
	}
	if given("budget-policy") && !given("think-budget") {
		errs = append(errs, errors.New("--budget-policy only matters with --think-budget"))
	}
	if !(f.escalate >= 0 && f.escalate <= 1) {
		errs = append(errs, fmt.Errorf("--escalate must be a fraction in [0, 1], got %g", f.escalate))
	}
	w := workload.WhatIf{ThinkBudget: max(f.thinkBudget, 0), BudgetPolicy: f.policy}
	if f.effort != "" {
		if _, err := workload.ParseEffort(f.effort); err != nil {
			errs = append(errs, err)
		}
	}
	if err := w.Validate(); err != nil {
		errs = append(errs, err)
	}
	if f.route != "" {
		if _, _, err := workload.Route(nil, f.route, 0); err != nil {
			errs = append(errs, err)
		}
	}
	// The route pool's size, bounded as vLLM bounds -tp (sim.CheckFlag).
	for _, r := range []struct {
		flag, bound string
		v           int
	}{{"route-tensor-parallel-size", "tensor-parallel-size", f.routeTP}, {"route-replicas", "replicas", f.routeReplicas}} {
		if err := sim.CheckFlag(r.bound, float64(r.v)); err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", r.flag, err))
		}
	}
	if f.route == "" {
		for _, name := range []string{"route-model", "route-gpu", "route-tensor-parallel-size", "route-replicas"} {
			if given(name) {
				errs = append(errs, fmt.Errorf("--%s only matters with --route", name))
			}
		}
	}
	return badInput(errors.Join(errs...))
}

// apply transforms the requests.
func (f *whatIfFlags) apply(reqs []workload.Request, seed int64) ([]workload.Request, []workload.TransformReport, error) {
	if err := f.validate(); err != nil {
		return nil, nil, err
	}
	w := workload.WhatIf{ThinkBudget: f.thinkBudget, BudgetPolicy: f.policy, Escalate: f.escalate, Seed: uint64(seed)}
	if f.effort != "" {
		var err error
		if w.Effort, err = workload.ParseEffort(f.effort); err != nil {
			return nil, nil, badInput(err)
		}
	}
	if err := w.Validate(); err != nil {
		return nil, nil, badInput(err)
	}
	if !w.Active() {
		return reqs, nil, nil
	}
	out, reports, err := w.Apply(reqs)
	return out, reports, badInput(err)
}

// routeConfig is the route pool's deployment: the main one's flags with
// the pool's model, GPU and size.
func (f *whatIfFlags) routeConfig(dep deploymentFlags, cat *profiles.Catalog) (sim.Config, error) {
	if f.routeModel != "" {
		if _, err := cat.Model(f.routeModel); err != nil {
			return sim.Config{}, badInput(fmt.Errorf("--route-model: %w", err))
		}
		dep.model = f.routeModel
	}
	if f.routeGPU != "" {
		if _, err := cat.GPU(f.routeGPU); err != nil {
			return sim.Config{}, badInput(fmt.Errorf("--route-gpu: %w", err))
		}
		dep.gpu = f.routeGPU
	}
	dep.tp, dep.replicas = f.routeTP, f.routeReplicas
	// The pool's values below are not the user's flags: the main pool's
	// were validated as given, the pool's size by validate.
	dep.set = nil
	dep.specConfig, dep.acceptance = "", ""
	// vLLM's defaults for the pool's own GPU, not the main pool's settings.
	dep.maxNumSeqs, dep.maxBatched, dep.maxModelLen, dep.blocks, dep.kvMemBytes = 0, 0, 0, 0, 0
	cfg, err := dep.config(cat)
	if err != nil {
		return cfg, fmt.Errorf("route pool: %w", err)
	}
	return cfg, nil
}
