package scenario

import (
	"io"
	"math"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Options are a what-if simulation as `thinkcap simulate` runs it:
// a deployment, its traffic, the what-if transforms and the routing.
type Options struct {
	Deployment sim.DeploymentOptions
	Traffic    workload.TrafficOptions
	WhatIf     workload.WhatIfOptions
	Route      RouteOptions
	// TimelineIntervalS is the simulated time between timeline samples
	// (--timeline-interval); Timeline records them.
	TimelineIntervalS float64
	Timeline          bool
	Warn              io.Writer // the log reader's warnings
	// StartPool, if set, gives each pool's run its progress (PoolsOptions).
	StartPool func(pool string) (progress func(done, total int), end func())
	// Results, if set, sees each request's result as it finishes, in the
	// order they finish (copy what you keep); no result is kept otherwise,
	// so that a run's memory follows the requests in flight.
	Results func(*workload.Result)
	// Seeds is how many draws of the traffic the intervals come from (the
	// run's own and Seeds−1 redraws: workload.TrafficOptions.LoadDraw); 0
	// is DefaultSeeds for runs of up to AutoSeedsMaxRequests requests and
	// 1 beyond. Confidence is the intervals' (DefaultConfidence is the
	// command's default).
	Seeds      int
	Confidence float64
	// StartDraws, if set, gives the redraws' run its progress.
	StartDraws func(draws int) (progress func(done, total int), end func())
	// SLOs, if any, are checked against the whole run's summary
	// (Summary.SLOs): simulate --slo.
	SLOs []analysis.SLO
}

// Validate checks every option before any work, so that every bad flag is
// named at once: its own, and every problem of the deployment, traffic,
// what-ifs and routing.
func (o *Options) Validate() error {
	var problems inputerr.List
	if !(o.TimelineIntervalS > 0) || math.IsInf(o.TimelineIntervalS, 1) {
		problems.Fieldf("TimelineIntervalS", "must be a positive number of seconds, got %g", o.TimelineIntervalS)
	}
	if o.Seeds < 0 || o.Seeds > 1000 {
		problems.Fieldf("Seeds", "must be 0 (automatic) or from 1 to 1000 draws of the traffic, got %d", o.Seeds)
	}
	if !(o.Confidence >= 0.5 && o.Confidence <= 0.98) {
		problems.Fieldf("Confidence", "must be from 0.5 to 0.98 (the model error's quantiles reach 1%% and 99%%), got %g", o.Confidence)
	}
	for _, err := range []error{o.Deployment.Validate(), o.Traffic.Validate(), o.WhatIf.Validate(), o.Route.Validate()} {
		problems.Add(err)
	}
	return problems.Err()
}

// Simulation is what Simulate produced: the pools' reports and merged
// timeline (no results: Options.Results sees them), and the summary
// JSON with the transforms applied.
type Simulation struct {
	*PoolsReport
	Summary analysis.Summary
}

// Simulate resolves the deployment in cat, loads the traffic, applies the
// what-ifs, splits the requests between the pools and runs them. Every
// error is the options' (bad input).
func Simulate(cat *profiles.Catalog, o Options) (*Simulation, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cfg, err := o.Deployment.Config(cat)
	if err != nil {
		return nil, err
	}
	cfg.TimelineIntervalS = o.TimelineIntervalS
	seed := uint64(o.Deployment.Engine.Seed)
	reqs, err := o.Traffic.Load(cat, seed, o.Warn)
	if err != nil {
		return nil, err
	}
	reqs, transforms, err := o.WhatIf.Apply(reqs, seed)
	if err != nil {
		return nil, err
	}
	pools, err := o.Route.Pools(cat, o.Deployment, cfg, reqs)
	if err != nil {
		return nil, err
	}
	run := sim.Options{Concurrency: o.Traffic.Concurrency, Timeline: o.Timeline, DiscardResults: true}
	run.Sink = o.Results
	rep, err := RunPools(pools, PoolsOptions{Options: run, StartPool: o.StartPool})
	if err != nil {
		return nil, err
	}
	s := rep.Summary()
	s.Transforms = transforms
	out := &Simulation{PoolsReport: rep, Summary: s}
	if err := o.intervals(cat, out, cfg, reqs); err != nil {
		return nil, err
	}
	if len(o.SLOs) > 0 {
		out.Summary.SLOs = analysis.CheckSLOs(&out.Summary, o.SLOs)
	}
	for i, p := range pools {
		// The load the corpus is compared with is one replica's peak.
		peak := rep.Reports[i].RunningPeak / max(p.Config.Replicas, 1)
		out.Summary.OutsideCorpus = mergeCaveats(out.Summary.OutsideCorpus, p.Config.Caveats(peak), p.Name)
	}
	return out, nil
}

// mergeCaveats adds one pool's caveats to those of the pools before it,
// each named by its pool; the expectation is the first pool's (the pools
// of one run share a GPU generation unless routed to several).
func mergeCaveats(all, pool *analysis.Caveats, name string) *analysis.Caveats {
	if pool == nil {
		return all
	}
	if name != "" {
		for i, why := range pool.Unmeasured {
			pool.Unmeasured[i] = "pool " + name + ": " + why
		}
	}
	if all == nil {
		return pool
	}
	all.Unmeasured = append(all.Unmeasured, pool.Unmeasured...)
	return all
}
