package scenario

import (
	"fmt"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// RouteOptions are the routing what-if: a router sends a class or a
// fraction of the requests to a separate non-thinking pool.
type RouteOptions struct {
	Route              string // --route: workload.Route's rule; "" no routing
	Model, GPU         string // --route-model, --route-gpu; "": the main pool's
	TensorParallelSize int    // --route-tensor-parallel-size
	Replicas           int    // --route-replicas
	// Given reports whether the user set a field (by its name as errors
	// name it, e.g. "Route.Model"); nil: none was.
	Given func(field string) bool
}

// Validate checks the options before any traffic is read: every problem,
// each naming its field ("Route.Replicas": the command shows its flag). An
// option that changes nothing without a route is refused rather than
// ignored.
func (o *RouteOptions) Validate() error {
	var problems inputerr.List
	if o.Route != "" {
		_, _, err := workload.Route(nil, o.Route, 0)
		problems.Add(err)
	}
	// The route pool's size, bounded as vLLM bounds -tp (CheckFlag).
	for _, r := range []struct {
		field, bound string
		v            int
	}{{"Route.TensorParallelSize", "tensor-parallel-size", o.TensorParallelSize}, {"Route.Replicas", "replicas", o.Replicas}} {
		problems.Field(r.field, sim.CheckFlag(r.bound, float64(r.v)))
	}
	if o.Route == "" && o.Given != nil {
		for _, field := range []string{"Route.Model", "Route.GPU", "Route.TensorParallelSize", "Route.Replicas"} {
			if o.Given(field) {
				problems.Fieldf(field, "only matters with %s", inputerr.Name("Route"))
			}
		}
	}
	return problems.Err()
}

// Pools are the pools the requests run on: the main deployment alone, or
// with --route the main one ("thinking") and the route pool ("route"),
// each with the requests the router sends it. main is dep's Config.
func (o *RouteOptions) Pools(cat *profiles.Catalog, dep sim.DeploymentOptions, main sim.Config, reqs []workload.Request) ([]Pool, error) {
	if o.Route == "" {
		return []Pool{{Config: main, Requests: reqs}}, nil
	}
	kept, routed, err := workload.Route(reqs, o.Route, uint64(dep.Engine.Seed))
	if err != nil {
		return nil, err
	}
	rcfg, err := o.config(cat, dep)
	if err != nil {
		return nil, err
	}
	rcfg.TimelineIntervalS = main.TimelineIntervalS
	return []Pool{{Name: "thinking", Config: main, Requests: kept}, {Name: "route", Config: rcfg, Requests: routed}}, nil
}

// config is the route pool's deployment: the main one's options with the
// pool's model, GPU and size.
func (o *RouteOptions) config(cat *profiles.Catalog, dep sim.DeploymentOptions) (sim.Config, error) {
	if o.Model != "" {
		if _, err := cat.Model(o.Model); err != nil {
			return sim.Config{}, fmt.Errorf("--route-model: %w", err)
		}
		dep.Model = o.Model
	}
	if o.GPU != "" {
		if _, err := cat.GPU(o.GPU); err != nil {
			return sim.Config{}, fmt.Errorf("--route-gpu: %w", err)
		}
		dep.GPU = o.GPU
	}
	e := &dep.Engine
	e.TensorParallelSize, e.Replicas = o.TensorParallelSize, o.Replicas
	// The pool's values below are not the user's flags: the main pool's
	// were validated as given, the pool's size by Validate.
	dep.Given = nil
	dep.SpeculativeConfig, dep.Acceptance = "", ""
	// vLLM's defaults for the pool's own GPU, not the main pool's settings.
	e.MaxNumSeqs, e.MaxNumBatchedTokens, e.MaxModelLen, e.NumGPUBlocksOverride, e.KVCacheMemoryBytes = 0, 0, 0, 0, 0
	cfg, err := dep.Config(cat)
	if err != nil {
		return cfg, fmt.Errorf("route pool: %w", err)
	}
	return cfg, nil
}
