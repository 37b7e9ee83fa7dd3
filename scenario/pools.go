package scenario

import (
	"errors"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Pool is one pool of replicas and the traffic routed to it. A cluster of
// pools (a thinking pool and a non-thinking one behind a router, say) runs
// each pool on its own: the router decided beforehand who goes where.
type Pool struct {
	Name     string // in the summary's pools; the results of the first pool carry none
	Config   sim.Config
	Requests []workload.Request
}

// PoolsOptions control a run of pools.
type PoolsOptions struct {
	// Options is every pool's run; its Progress is replaced by StartPool's.
	sim.Options
	// StartPool, if set, is called as each pool's run starts; it returns the
	// run's Progress and a function called when the run ends.
	StartPool func(pool string) (progress func(done, total int), end func())
}

// PoolsReport is what a run of pools produced.
type PoolsReport struct {
	Pools   []Pool
	Reports []*sim.Report // by pool
	// Results are every pool's in pool order, each labelled with its pool
	// (the first's unlabelled, as a run of one pool) and with replicas
	// numbered across pools: the second pool's follow the first's. Empty
	// with Options.DiscardResults; Options.Sink sees them so labelled.
	Results  []workload.Result
	Timeline []sim.TimelineSample // the same replica numbering
}

// RunPools simulates each pool and merges the results and timelines.
func RunPools(pools []Pool, opt PoolsOptions) (*PoolsReport, error) {
	if len(pools) == 0 {
		return nil, errors.New("sim: no pool to run")
	}
	out := &PoolsReport{Pools: pools}
	replicas := 0
	for i, p := range pools {
		run := opt.Options
		if sink := opt.Sink; sink != nil {
			// Labelled as the merged results are below.
			name, offset, first := p.Name, replicas, i == 0
			run.Sink = func(r *workload.Result) {
				x := *r
				x.Replica += offset
				if x.Pool = name; first {
					x.Pool = ""
				}
				sink(&x)
			}
		}
		end := func() {}
		if opt.StartPool != nil {
			run.Progress, end = opt.StartPool(p.Name)
		}
		rep, err := sim.Run(p.Config, p.Requests, run)
		end()
		if err != nil {
			return nil, err
		}
		out.Reports = append(out.Reports, rep)
		for _, r := range rep.Results {
			r.Pool = p.Name
			if i == 0 {
				r.Pool = ""
			}
			r.Replica += replicas
			out.Results = append(out.Results, r)
		}
		for _, t := range rep.Timeline {
			t.Replica += replicas
			out.Timeline = append(out.Timeline, t)
		}
		replicas += p.Config.Replicas
	}
	return out, nil
}

// Summary is the summary JSON of the run: one pool's report's, or for
// several every request together, with the first pool's deployment, and
// each pool on its own.
func (r *PoolsReport) Summary() analysis.Summary {
	if len(r.Reports) == 1 {
		return r.Reports[0].Summary()
	}
	var duration float64
	for _, rep := range r.Reports {
		duration = max(duration, rep.DurationS)
	}
	var s analysis.Summary
	if r.Reports[0].Accumulator() != nil {
		var acc analysis.Accumulator
		for _, rep := range r.Reports {
			acc.Merge(rep.Accumulator())
		}
		s = acc.Summary("simulation", duration)
	} else {
		s = analysis.Summarize("simulation", r.Results, duration)
	}
	main := r.Reports[0].Summary()
	s.Config, s.Capacity = main.Config, main.Capacity
	var preemptions int64
	s.Preemptions = &preemptions
	for i, rep := range r.Reports {
		ps := rep.Summary()
		ps.Pool = r.Pools[i].Name
		preemptions += *ps.Preemptions
		s.Running.Mean += ps.Running.Mean
		s.Running.Peak += ps.Running.Peak
		s.Waiting.Mean += ps.Waiting.Mean
		s.Waiting.Peak += ps.Waiting.Peak
		s.Pools = append(s.Pools, ps)
	}
	// KV usage and ITL differ per pool's hardware: the top level shows the
	// main pool's; each pool has its own below.
	s.KVUsage, s.LatencyS.ITL = main.KVUsage, main.LatencyS.ITL
	return s
}
