package main

import (
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
}

func (f *whatIfFlags) register(fs *pflag.FlagSet) {
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

// apply transforms the requests.
func (f *whatIfFlags) apply(reqs []workload.Request, seed int64) ([]workload.Request, []workload.TransformReport, error) {
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
		dep.model = f.routeModel
	}
	if f.routeGPU != "" {
		dep.gpu = f.routeGPU
	}
	dep.tp, dep.replicas = f.routeTP, f.routeReplicas
	dep.specConfig, dep.acceptance = "", ""
	// vLLM's defaults for the pool's own GPU, not the main pool's settings.
	dep.maxNumSeqs, dep.maxBatched, dep.maxModelLen, dep.blocks, dep.kvMemBytes = 0, 0, 0, 0, 0
	cfg, err := dep.config(cat)
	if err != nil {
		return cfg, fmt.Errorf("route pool: %w", err)
	}
	return cfg, nil
}
