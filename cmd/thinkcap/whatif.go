package main

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/scenario"
	"github.com/thinkcap/thinkcap/workload"
)

// whatIfFlags are the composable what-if transforms of the traffic.
type whatIfFlags struct {
	thinkBudget   int
	policy        string
	effort        string
	escalate      float64
	history       string
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
	fs.StringVar(&f.history, "history", "", "how a session's later turns carry the earlier ones: strip-traces (the chat templates' default: thinking dropped), keep-traces, answers-only, summary=N[@T] (the history replaced by N tokens from turn T, 3 by default)")
	fs.StringVar(&f.route, "route", "", "send a class or a fraction to a separate non-thinking pool: low, mode=low, category=extraction or 0.7")
	fs.StringVar(&f.routeModel, "route-model", "", "the route pool's model (default: --model with thinking off)")
	fs.StringVar(&f.routeGPU, "route-gpu", "", "the route pool's GPU (default: --gpu)")
	fs.IntVar(&f.routeTP, "route-tensor-parallel-size", 1, "the route pool's GPUs per replica")
	fs.IntVar(&f.routeReplicas, "route-replicas", 1, "the route pool's replicas")
}

// options are the transform flags as workload's what-if options; what
// does not parse is left out (validate reports it).
func (f *whatIfFlags) options() workload.WhatIfOptions {
	o, _ := f.parse()
	return o
}

// parse reads --effort and --history into workload's what-if options,
// reporting both when both are bad.
func (f *whatIfFlags) parse() (workload.WhatIfOptions, error) {
	o := workload.WhatIfOptions{
		ThinkBudget: f.thinkBudget, BudgetPolicy: f.policy, Escalate: f.escalate,
		Given: given(f.set),
	}
	var problems inputerr.List
	if f.effort != "" {
		effort, err := workload.ParseEffort(f.effort)
		problems.Add(err)
		o.Effort = effort
	}
	history, err := workload.ParseHistory(f.history)
	problems.Add(err)
	o.History = history
	return o, problems.Err()
}

// routeOptions are the --route flags as the simulator's route options.
func (f *whatIfFlags) routeOptions() scenario.RouteOptions {
	return scenario.RouteOptions{
		Route: f.route, Model: f.routeModel, GPU: f.routeGPU,
		TensorParallelSize: f.routeTP, Replicas: f.routeReplicas, Given: given(f.set),
	}
}

// validate checks the what-if flags before any traffic is read: every
// problem, as bad input.
func (f *whatIfFlags) validate() error {
	w, err := f.parse()
	r := f.routeOptions()
	return inputerr.New(errors.Join(err, w.Validate(), r.Validate()))
}

// apply transforms the requests; errors are bad input.
func (f *whatIfFlags) apply(reqs []workload.Request, seed int64) ([]workload.Request, []workload.TransformReport, error) {
	if err := f.validate(); err != nil {
		return nil, nil, err
	}
	w := f.options()
	out, reports, err := w.Apply(reqs, uint64(seed))
	return out, reports, inputerr.New(err)
}
