package fidelity

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/thinkcap/thinkcap/calibrate"
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
	CVFamily   map[string]Pair // ... without any point of the model's family (profiles.Model.Lineage)
	CVSource   map[string]Pair // ... without any point of the record's source
	// Held are the pairs of the metrics an exclusion rule leaves out
	// (exclusion): not scored, but kept to say what counting them gives.
	Held map[string]Pair
	cfg  sim.Config
}

// excluded says why a metric of the point is left out of the fit and the
// scoreboard ("" when it is not), in the point's own figures.
func (p *Point) excluded(metric string) string {
	_, why := p.exclusion(metric)
	return why
}

// exclusion is the rule (RuleBelowFloor, RuleTestRunCached: the
// metric-exclusion rules of exclusion.go) that leaves a metric of the
// point out of the fit and the scoreboard, and why in the point's own
// figures; both "" when none does. Only a TTFT is ever left out, and only
// when it cannot have been computed by the replayed deployment: a rule
// here must rest on a physical floor or on what the source itself says
// or ran, never on how far the prediction is from the measurement. (A
// TTFT is not left out for being far from its sweep's neighbours: a
// curator's outlier flag is not the source's word, and a spike measured
// is a spike a user may meet.)
func (p *Point) exclusion(metric string) (rule, why string) {
	if metric != MetricTTFT {
		return "", ""
	}
	return p.cacheHit()
}

// cacheHit says why the point's TTFT must have come from the prefix cache
// ("" when it need not have), by one of two rules. RuleBelowFloor, a
// physical floor: the TTFT is below the prefill's compute floor
// (sim.PrefillFloorSeconds: the linear layers' FLOPs at the tensor cores'
// peak) for the shortest prompt, and, for a burst of N prompts sent at
// once, below (N+1)/2 floors, the least mean when each prompt's prefill
// waits for the ones computed before it. RuleTestRunCached, what the
// source's client ran: a run of one prompt by a client that first sends
// that same prompt as its initial test run, with prefix caching on. A
// record that declares its shared prefix or repeated prompts is replayed
// with them and is not judged here. Such a TTFT measures a cache the
// replay cannot know of (a server that kept the same seeded prompts from
// an earlier run).
func (p *Point) cacheHit() (rule, why string) {
	r := p.Record
	if p.Skip != "" || r.Workload.PrefixLen > 0 || r.Workload.DistinctPrompts > 0 {
		return "", ""
	}
	if r.Workload.NumPrompts == 1 && sendsTestRun(r.Workload.Client) && !p.cfg.DisablePrefixCaching {
		return RuleTestRunCached, "a single prompt the client had sent before as its initial test run: served from the prefix cache"
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
		return "", ""
	}
	floor := sim.PrefillFloorSeconds(&p.cfg, in) * 1e3
	if r.RequestRate < 0 && r.Workload.NumPrompts > 1 {
		floor *= float64(r.Workload.NumPrompts+1) / 2
	}
	if ttft >= floor {
		return "", ""
	}
	return RuleBelowFloor, fmt.Sprintf("TTFT %.0f ms below the prefill's compute floor of %.0f ms: prompts from the prefix cache", ttft, floor)
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
	points  []*Point
	workers int
	hold    []string // coefficients the fit keeps at the profile's
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

// observations are the replayable points as calibrate fits them, in the
// points' order (indexed like replayable): each with its deployment,
// generation, the measured figures the fit may use (a TTFT excluded is
// left at 0) and a replay with its gradient.
func (c *corpus) observations() []calibrate.Observation {
	var obs []calibrate.Observation
	for _, i := range c.replayable() {
		p := c.points[i]
		m := measured(p.Record)
		if p.excluded(MetricTTFT) != "" {
			m.TTFT = Stat{}
		}
		cfg := p.cfg
		obs = append(obs, calibrate.Observation{
			Name: fmt.Sprintf("%s (%s)", p.Record.ID, p.Record.Where()), Config: cfg,
			Deployment: p.Deployment, Generation: p.Generation, Source: p.Record.Source,
			Aggregates: m, Weights: calibrate.AggregateWeights,
			Replay: func(step profiles.StepCoefficients) (*calibrate.Trace, error) {
				cfg := cfg
				cfg.Step = step
				return trace(cfg, p.Record)
			},
			Simulate: func(step profiles.StepCoefficients) (calibrate.Aggregates, error) {
				cfg := cfg
				cfg.Step = step
				return replay(cfg, p.Record)
			},
		})
	}
	return obs
}
