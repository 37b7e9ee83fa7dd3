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
// measurement spike.
func (p *Point) excluded(metric string) string {
	if metric == MetricTTFT && strings.Contains(strings.ToLower(p.Record.Notes), "spike") {
		return "TTFT spike flagged by the source"
	}
	return ""
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
