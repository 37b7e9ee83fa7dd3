package fidelity

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// Point is one corpus record as the scoreboard sees it: its deployment,
// the simulator's prediction and the metrics compared.
type Point struct {
	Record     *Record
	Deployment string
	Generation string // the GPU's (profiles.GPU.Generation), "" when skipped
	Skip       string // why the record is not replayed ("" when it is)
	Pred       Predicted
	Pairs      map[string]Pair // measured beside predicted, per metric
	CV         map[string]Pair // predicted by coefficients fitted without the deployment
	cfg        sim.Config
}

// excluded says why a metric of the point is left out of the fit and the
// scoreboard ("" when it is not): a TTFT the source flags as a
// measurement spike, or one faster than the GPUs can compute (cacheHit).
func (p *Point) excluded(metric string) string {
	if metric != MetricTTFT {
		return ""
	}
	if strings.Contains(strings.ToLower(p.Record.Notes), "spike") {
		return "TTFT spike flagged by the source"
	}
	return p.cacheHit()
}

// cacheHit says why the point's TTFT must have come from the prefix cache
// ("" when it need not have): it is below the prefill's compute floor
// (sim.PrefillFloorSeconds) for the shortest prompt, and, for a burst of
// N prompts sent at once, below (N+1)/2 floors, the least mean when each
// prompt's prefill waits for the ones computed before it. A record that
// declares its shared prefix or repeated prompts is replayed with them and
// is not judged here. Such a TTFT measures a cache the replay cannot know
// of (a server that kept the same seeded prompts from an earlier run).
func (p *Point) cacheHit() string {
	r := p.Record
	if p.Skip != "" || r.Workload.PrefixLen > 0 || r.Workload.DistinctPrompts > 0 {
		return ""
	}
	if r.Workload.NumPrompts == 1 && sendsTestRun(r.Workload.Client) && !p.cfg.DisablePrefixCaching {
		return "a single prompt the client had sent before as its initial test run: served from the prefix cache"
	}
	ttft := r.Measured.TTFT.Mean
	if ttft <= 0 {
		ttft = r.Measured.TTFT.Median
	}
	in := r.Workload.InputLen.Min
	if in <= 0 {
		in = meanLen(r.Workload.InputLen)
	}
	if ttft <= 0 || in <= 0 {
		return ""
	}
	floor := sim.PrefillFloorSeconds(&p.cfg, in) * 1e3
	if r.RequestRate < 0 && r.Workload.NumPrompts > 1 {
		floor *= float64(r.Workload.NumPrompts+1) / 2
	}
	if ttft >= floor {
		return ""
	}
	return fmt.Sprintf("TTFT %.0f ms below the prefill's compute floor of %.0f ms: prompts from the prefix cache", ttft, floor)
}

// sendsTestRun reports whether a client sends its first prompt once
// before the measured run: `vllm bench serve` and benchmark_serving.py
// start with "an initial single prompt test run" of input_requests[0]
// (vllm/benchmarks/serve.py, benchmarks/benchmark_serving.py), so with
// prefix caching on that prompt is in the cache when the run sends it.
func sendsTestRun(client string) bool {
	c := strings.ToLower(client)
	return strings.Contains(c, "benchmark_serving") || strings.Contains(c, "vllm bench serve")
}

// corpus is the records ready to replay.
type corpus struct {
	points        []*Point
	workers       int
	perDeployment map[string]int // replayable points per deployment
	hold          []string       // coefficients the fit keeps at the profile's
}

func newCorpus(cat *profiles.Catalog, recs []Record, workers int) *corpus {
	c := &corpus{workers: workers}
	if c.workers <= 0 {
		c.workers = runtime.GOMAXPROCS(0)
	}
	for i := range recs {
		r := &recs[i]
		p := &Point{Record: r, Deployment: r.Deployment()}
		p.cfg, p.Skip = config(cat, r)
		if p.Skip == "" {
			p.Generation = p.cfg.GPU.Generation
			if p.Generation == "" {
				p.Generation = p.cfg.GPU.Name
			}
		}
		c.points = append(c.points, p)
	}
	c.perDeployment = map[string]int{}
	for _, p := range c.points {
		if p.Skip == "" {
			c.perDeployment[p.Deployment]++
		}
	}
	return c
}

// replayable is the indices of the points that can be replayed.
func (c *corpus) replayable() []int {
	var out []int
	for i, p := range c.points {
		if p.Skip == "" {
			out = append(out, i)
		}
	}
	return out
}

// generations is the generations of the replayable points, sorted.
func (c *corpus) generations() []string {
	var gens []string
	for _, i := range c.replayable() {
		if g := c.points[i].Generation; !slices.Contains(gens, g) {
			gens = append(gens, g)
		}
	}
	slices.Sort(gens)
	return gens
}

// traceAll replays the points idx with the coefficients coef gives each,
// in parallel, and returns their traces (indexed like idx). progress, if
// set, is told of each point done.
func (c *corpus) traceAll(idx []int, coef func(p *Point) profiles.StepCoefficients, progress func()) ([]*Trace, error) {
	out := make([]*Trace, len(idx))
	errs := make([]error, len(idx))
	sem := make(chan struct{}, c.workers)
	var wg sync.WaitGroup
	for j, i := range idx {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			p := c.points[i]
			cfg := p.cfg
			cfg.Step = coef(p)
			tr, err := trace(cfg, p.Record)
			if err != nil {
				errs[j] = fmt.Errorf("%s (%s): %w", p.Record.ID, p.Record.Where(), err)
			}
			out[j] = tr
			if progress != nil {
				progress()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
