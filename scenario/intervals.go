package scenario

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// DefaultConfidence is the intervals' confidence when none is asked.
const DefaultConfidence = 0.9

// DefaultSeeds is how many draws of the traffic a run's intervals come
// from when the run is small enough (AutoSeedsMaxRequests): the run itself
// and 19 redraws, whose minimum and maximum hold a 20th draw with 90%
// probability (analysis.PredictionInterval).
const DefaultSeeds = 20

// AutoSeedsMaxRequests is the largest run redrawn by default: beyond it a
// run takes one seed (its intervals the model's alone) unless --seeds
// asks for more, since chance's spread shrinks as a run grows while its
// cost grows with it.
const AutoSeedsMaxRequests = 20000

// autoSeeds is --seeds 0's draws for a run of n requests.
func autoSeeds(n int) int {
	if n <= AutoSeedsMaxRequests {
		return DefaultSeeds
	}
	return 1
}

// Regime is where a run lies among the measurement corpus's slices,
// which decides the model error its figures take.
type Regime struct {
	Concurrency string // profiles.ConcurrencyRegime of the mean running per replica
	Phase       string // profiles.PhaseRegime of the mean prompt and output
	Generation  string // the GPU's generation (profiles.GPU.Generation)
	// Saturated: the servers set the throughput (a closed loop, or an
	// open loop with a queue: half a request waiting per replica on
	// average), so the model's error bears on it; an open loop that keeps
	// up has the offered rate's throughput whatever the model says.
	Saturated bool
	// OpenLoop: KV usage follows E2E (Little's law: in flight = rate ×
	// time in the system), so it takes E2E's model error.
	OpenLoop bool
}

func (r Regime) String() string { return "concurrency " + r.Concurrency + ", " + r.Phase }

// RegimeOf is the run's regime: its mean running and waiting requests per
// replica, the traffic's mean prompt and output, whether it was a closed
// loop, and its GPU's generation.
func RegimeOf(s *analysis.Summary, replicas int, meanPrompt, meanOutput float64, closedLoop bool, generation string) Regime {
	r := Regime{
		Concurrency: profiles.ConcurrencyRegime(s.Running.Mean / float64(max(replicas, 1))),
		Phase:       profiles.PhaseRegime(meanPrompt, meanOutput),
		Generation:  generation,
		OpenLoop:    !closedLoop,
	}
	r.Saturated = closedLoop || s.Waiting.Mean/float64(max(replicas, 1)) >= 0.5
	return r
}

// FigureMetric is the corpus metric whose error a latency takes: TPOT's
// for the decode gaps, TTFT's for the first token and the queue, and for
// TTFA and E2E whichever of the two makes most of their mean (decode for a
// reasoning model's thinking, the first token for a short answer).
func FigureMetric(name string, l *analysis.Latencies) string {
	switch name {
	case "tpot", "itl":
		return "tpot"
	case "ttft", "queue":
		return "ttft"
	}
	if l.TTFT.Mean*2 > l.E2E.Mean {
		return "ttft"
	}
	return "tpot"
}

// ModelIntervals are point's figures as intervals at confidence: each
// figure's traffic range (nil: one seed, the point itself) widened by its
// corpus metric's model error in the run's regime. The two are combined
// in log space by quadrature, as independent errors: with q the model's
// ln(measured/predicted) at (1−c)/2, ½, (1+c)/2 and t the traffic range's
// log distance from the point on each side, lo = p·e^(q½ − √((q½−q_lo)² +
// t_lo²)) and hi = p·e^(q½ + √((q_hi−q½)² + t_hi²)). A figure no corpus
// measurement bears on (preemptions; KV usage in a closed loop) keeps its
// traffic range.
func ModelIntervals(point analysis.Summary, traffic *analysis.IntervalSet, seeds int, me *profiles.ModelError, reg Regime, confidence float64) *analysis.Intervals {
	pointSet := analysis.PointIntervals(point)
	if traffic == nil {
		traffic = pointSet
	}
	iv := &analysis.Intervals{Confidence: confidence, Seeds: max(seeds, 1), Model: map[string]analysis.ModelBand{},
		IntervalSet: analysis.IntervalSet{LatencyS: map[string]analysis.StatInterval{}, Throughput: map[string]analysis.Range{}, KVUsage: map[string]analysis.Range{}}}
	if seeds > 1 {
		iv.Traffic = traffic
	}
	band := func(figure, metric, note string) (lo, mid, hi float64, ok bool) {
		lo, mid, hi, cells, ok := me.Band(metric, profiles.ErrorRegime{Concurrency: reg.Concurrency, Phase: reg.Phase, Generation: reg.Generation}, confidence)
		if !ok {
			return 0, 0, 0, false
		}
		cell := cells[0]
		regime := "the whole corpus"
		switch {
		case cell.Concurrency != "" && cell.Phase != "":
			regime = "concurrency " + cell.Concurrency + ", " + cell.Phase
		case cell.Concurrency != "":
			regime = "concurrency " + cell.Concurrency
		case cell.Phase != "":
			regime = cell.Phase
		}
		points := cell.Points
		for _, g := range cells[1:] {
			regime += "; widened to " + g.Generation + "'s"
			points += g.Points
		}
		iv.Model[figure] = analysis.ModelBand{Metric: metric, Regime: regime, Points: points,
			Factor: analysis.Range{math.Exp(lo), math.Exp(hi)}, Note: note}
		return lo, mid, hi, true
	}
	for name, get := range analysis.LatencyFigures {
		st := get(&point)
		lo, mid, hi, ok := band(name, FigureMetric(name, &point.LatencyS), "")
		t := traffic.LatencyS[name]
		nan := math.NaN()
		pv := func(v float64) float64 {
			if st.NoData {
				return nan
			}
			return v
		}
		iv.LatencyS[name] = analysis.StatInterval{
			Mean: Widen(pv(st.Mean), t.Mean, lo, mid, hi, ok), P50: Widen(pv(st.P50), t.P50, lo, mid, hi, ok),
			P90: Widen(pv(st.P90), t.P90, lo, mid, hi, ok), P99: Widen(pv(st.P99), t.P99, lo, mid, hi, ok),
		}
	}
	for name, get := range analysis.ThroughputFigures {
		var lo, mid, hi float64
		ok := false
		if reg.Saturated {
			lo, mid, hi, ok = band("throughput", "throughput", "")
		}
		iv.Throughput[name] = Widen(get(&point), traffic.Throughput[name], lo, mid, hi, ok)
	}
	var lo, mid, hi float64
	ok := false
	if reg.OpenLoop && !point.KVUsage.NoData {
		lo, mid, hi, ok = band("kv_usage", FigureMetric("e2e", &point.LatencyS),
			"E2E's error carried over by Little's law (in flight = rate × time in the system); the corpus has no KV measurement")
	}
	for key, v := range map[string]float64{"mean": point.KVUsage.Mean, "peak": point.KVUsage.Peak} {
		if point.KVUsage.NoData {
			v = math.NaN()
		}
		r := Widen(v, traffic.KVUsage[key], lo, mid, hi, ok)
		r[1] = min(r[1], 1) // a fraction of the pool
		iv.KVUsage[key] = r
	}
	iv.Preemptions = traffic.Preemptions
	return iv
}

// Widen is a figure's interval: its point p, its traffic range t, and
// its model error lo, mid, hi (ln(measured/predicted) at the interval's
// levels and the median; ok false: none) combined as ModelIntervals says.
func Widen(p float64, t analysis.Range, lo, mid, hi float64, ok bool) analysis.Range {
	if math.IsNaN(p) || math.IsNaN(t[0]) {
		return analysis.Range{math.NaN(), math.NaN()}
	}
	if !ok {
		return t
	}
	if p <= 0 || t[0] <= 0 {
		// No log distance from zero: each edge widened by the model.
		return analysis.Range{t[0] * math.Exp(lo), t[1] * math.Exp(hi)}
	}
	tlo, thi := max(math.Log(p/t[0]), 0), max(math.Log(t[1]/p), 0)
	return analysis.Range{p * math.Exp(mid-math.Hypot(mid-lo, tlo)), p * math.Exp(mid+math.Hypot(hi-mid, thi))}
}

// intervals runs the redraws of the traffic, Seeds−1 of them in
// parallel, each summarised and discarded, and gives the run's summary its
// intervals: the redraws' spread widened by the model's error.
func (o *Options) intervals(cat *profiles.Catalog, run *Simulation, cfg sim.Config, reqs []workload.Request) error {
	seeds, conf := o.Seeds, o.Confidence
	if seeds == 0 {
		seeds = autoSeeds(len(reqs))
	}
	runs := []analysis.Summary{run.Summary}
	if seeds > 1 {
		more, err := o.redraw(cat, cfg, seeds-1)
		if err != nil {
			return err
		}
		runs = append(runs, more...)
	}
	var traffic *analysis.IntervalSet
	if seeds > 1 {
		traffic = analysis.TrafficIntervals(runs, conf)
	}
	replicas := 0
	for _, p := range run.Pools {
		replicas += max(p.Config.Replicas, 1)
	}
	prompt, output := TrafficMeans(reqs)
	reg := RegimeOf(&run.Summary, replicas, prompt, output, o.Traffic.Concurrency > 0, cfg.GPU.Generation)
	run.Summary.Intervals = ModelIntervals(run.Summary, traffic, seeds, cat.ModelError, reg, conf)
	return nil
}

// redraw runs the deployment on n redraws of the traffic (draws 1..n).
func (o *Options) redraw(cat *profiles.Catalog, cfg sim.Config, n int) ([]analysis.Summary, error) {
	progress, end := func(int, int) {}, func() {}
	if o.StartDraws != nil {
		progress, end = o.StartDraws(n)
	}
	defer end()
	out := make([]analysis.Summary, n)
	errs := make([]error, n)
	var mu sync.Mutex
	done := 0
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[k], errs[k] = o.runDraw(cat, cfg, k+1)
			mu.Lock()
			done++
			progress(done, n)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// runDraw is one redraw's summary: the traffic drawn again, the
// what-ifs, routing and the engine's own chance (sampling, speculative
// acceptance) seeded by it.
func (o *Options) runDraw(cat *profiles.Catalog, cfg sim.Config, draw int) (analysis.Summary, error) {
	seed := workload.DrawSeed(uint64(o.Deployment.Engine.Seed), draw)
	reqs, err := o.Traffic.LoadDraw(cat, uint64(o.Deployment.Engine.Seed), draw, io.Discard)
	if err != nil {
		return analysis.Summary{}, fmt.Errorf("draw %d of the traffic: %w", draw, err)
	}
	if reqs, _, err = o.WhatIf.Apply(reqs, seed); err != nil {
		return analysis.Summary{}, fmt.Errorf("draw %d of the traffic: %w", draw, err)
	}
	dep := o.Deployment
	dep.Engine.Seed = int64(seed)
	cfg.Seed = int64(seed)
	pools, err := o.Route.Pools(cat, dep, cfg, reqs)
	if err != nil {
		return analysis.Summary{}, fmt.Errorf("draw %d of the traffic: %w", draw, err)
	}
	rep, err := RunPools(pools, PoolsOptions{Options: sim.Options{Concurrency: o.Traffic.Concurrency, DiscardResults: true}})
	if err != nil {
		return analysis.Summary{}, fmt.Errorf("draw %d of the traffic: %w", draw, err)
	}
	return rep.Summary(), nil
}

// TrafficMeans are the requests' mean prompt and output (thinking and
// answer) tokens.
func TrafficMeans(reqs []workload.Request) (prompt, output float64) {
	for i := range reqs {
		prompt += float64(reqs[i].PromptTokens)
		output += float64(reqs[i].ThinkTokens + reqs[i].AnswerTokens)
	}
	if n := float64(len(reqs)); n > 0 {
		prompt, output = prompt/n, output/n
	}
	return prompt, output
}
