package calibrate

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/thinkcap/thinkcap/profiles"
)

// AggregateFit fits the step coefficients per GPU generation to
// observations of aggregates (a corpus of published benchmarks): each
// point is replayed (Observation.Replay), its metrics' errors linearised
// around the replay (aggregateRows), the rows solved, and the points
// replayed again at the new coefficients until they settle (settle).
type AggregateFit struct {
	obs []Observation
	// hold are the coefficients kept at the profile's.
	hold    []string
	workers int
	// progress, if set, is told of each replay done, from any goroutine.
	progress      func()
	perDeployment map[string]int // points per deployment
	// Settings are the fit's hyperparameters (DefaultFitSettings).
	Settings FitSettings
	// LinearOnly makes the cross-validations predict every held-out point
	// by its linear model, never by a new simulation: the hyperparameter
	// selection's approximation (SelectSettings), seconds instead of minutes.
	LinearOnly bool
	// weights are pointWeights' at the SourceCap weightsFor.
	weights    []float64
	weightsFor float64
}

// NewAggregateFit sets up a fit to obs, keeping hold at the profiles'
// values (nil: DefaultHold), replaying on workers goroutines (0:
// GOMAXPROCS) and telling progress of each replay.
func NewAggregateFit(obs []Observation, hold []string, workers int, progress func()) *AggregateFit {
	f := &AggregateFit{obs: obs, hold: hold, workers: workers, progress: progress, perDeployment: map[string]int{}, Settings: DefaultFitSettings}
	if f.hold == nil {
		f.hold = DefaultHold
	}
	if f.workers <= 0 {
		f.workers = runtime.GOMAXPROCS(0)
	}
	for _, o := range obs {
		f.perDeployment[o.Deployment]++
	}
	return f
}

// FitIterations bounds the re-simulations of a generation's fit;
// fitConverged is the largest relative move of a prediction at which it
// stops. A fit replays every point at most FitIterations+4 times (the
// generation's, the fallback's two and the cross-validation's).
const (
	FitIterations = 8
	fitConverged  = 0.002
)

// FallbackName is the fit of every generation's points together: the
// coefficients of a GPU whose generation the corpus has no measurement of.
const FallbackName = profiles.FallbackGeneration

// Prior is a GPU's profile coefficients, before any corpus fit.
func Prior(g profiles.GPU) profiles.StepCoefficients {
	if g.StepPrior != (profiles.StepCoefficients{}) {
		return g.StepPrior
	}
	return g.Step
}

// Group is the points of one generation (or all of them) being fitted.
type Group struct {
	Name string
	// Obs are the group's points, as indices into the observations.
	Obs   []int
	x     []float64
	prior []float64
	free  []bool
	rows  []aggregateRow // at x, from the last traces
	// Traces are the points' last replays, by observation index.
	Traces map[int]*Trace
}

// Step is the group's fitted coefficients, over base.
func (g *Group) Step(base profiles.StepCoefficients) profiles.StepCoefficients {
	return WithParams(base, g.x)
}

// generations is the observations' generations, sorted.
func (f *AggregateFit) generations() []string {
	var gens []string
	for _, o := range f.obs {
		if !slices.Contains(gens, o.Generation) {
			gens = append(gens, o.Generation)
		}
	}
	slices.Sort(gens)
	return gens
}

// ofGeneration is the indices of the observations of gen.
func (f *AggregateFit) ofGeneration(gen string) []int {
	var idx []int
	for i, o := range f.obs {
		if o.Generation == gen {
			idx = append(idx, i)
		}
	}
	return idx
}

// all is the indices of every observation.
func (f *AggregateFit) all() []int {
	idx := make([]int, len(f.obs))
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// AtProfiles replays every point at its profile's coefficients and groups
// them by generation, with the fallback group of every row (its
// coefficients the first point's): the scoreboard of the profiles as they
// are.
func (f *AggregateFit) AtProfiles() (groups []*Group, fallback *Group, err error) {
	first := f.obs[0].Config
	all := f.newGroup(FallbackName, f.all(), first.Step, Prior(first.GPU))
	for _, gen := range f.generations() {
		idx := f.ofGeneration(gen)
		cfg := f.obs[idx[0]].Config
		g := f.newGroup(gen, idx, cfg.Step, Prior(cfg.GPU))
		if err := f.retraceWith(g, func(o *Observation) profiles.StepCoefficients { return o.Config.Step }); err != nil {
			return nil, nil, err
		}
		all.rows = append(all.rows, g.rows...)
		groups = append(groups, g)
	}
	return groups, all, nil
}

// Fit fits the step coefficients per generation and on every point
// together (the pooled fit: the fallback for a generation without points,
// and what each generation's fit is pulled towards). Both start from the
// profiles' coefficients; each round replays every generation's points at
// its coefficients, solves the pooled fit on all their rows (pulled
// towards the profiles' coefficients by Settings.Ridge) and then each
// generation on its own rows pulled towards the pooled fit
// (Settings.Shrink), until the predictions stop moving.
func (f *AggregateFit) Fit() (groups []*Group, fallback *Group, err error) {
	for _, gen := range f.generations() {
		idx := f.ofGeneration(gen)
		gpu := f.obs[idx[0]].Config.GPU
		groups = append(groups, f.newGroup(gen, idx, Prior(gpu), Prior(gpu)))
	}
	gpu := f.obs[0].Config.GPU
	pooled := f.newGroup(FallbackName, f.all(), Prior(gpu), Prior(gpu))
	settled := make([]bool, len(groups))
	for it := 0; it < FitIterations && slices.Contains(settled, false); it++ {
		pooled.rows = pooled.rows[:0]
		for k, g := range groups {
			if !settled[k] {
				if err := f.retrace(g); err != nil {
					return nil, nil, fmt.Errorf("fitting %s: %w", g.Name, err)
				}
			}
			pooled.rows = append(pooled.rows, g.rows...)
		}
		if pooled.x, err = f.solvePooled(pooled.rows, pooled); err != nil {
			return nil, nil, err
		}
		for k, g := range groups {
			if settled[k] {
				continue
			}
			x, err := f.solveGroup(g.rows, g, pooled.x)
			if err != nil {
				return nil, nil, fmt.Errorf("fitting %s: %w", g.Name, err)
			}
			if it >= 2 {
				// A step's binding side flips with the coefficients, and the
				// fit can swing between two sets: from the third round on it
				// moves half way, which settles the swing.
				for j := range x {
					x[j] = (x[j] + g.x[j]) / 2
				}
			}
			moved := predictionMove(g.rows, g.x, x)
			if os.Getenv("THINKCAP_FIT_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "fit %s iteration %d: moved %.4f x=%.4g\n", g.Name, it, moved, x)
			}
			g.x, settled[k] = x, moved < fitConverged
		}
	}
	for _, g := range groups {
		if err := f.retrace(g); err != nil {
			return nil, nil, fmt.Errorf("fitting %s: %w", g.Name, err)
		}
	}
	fallback, err = f.fitFallback(groups)
	if err != nil {
		return nil, nil, err
	}
	return groups, fallback, nil
}

// fitFallback fits every point together: the generations' rows solved at
// once, then re-simulated at that fit and solved again.
func (f *AggregateFit) fitFallback(groups []*Group) (*Group, error) {
	gpu := f.obs[0].Config.GPU
	all := f.newGroup(FallbackName, f.all(), Prior(gpu), Prior(gpu))
	for _, g := range groups {
		all.rows = append(all.rows, g.rows...)
	}
	x, err := f.solvePooled(all.rows, all)
	if err != nil {
		return nil, err
	}
	all.x = x
	if err := f.retrace(all); err != nil {
		return nil, err
	}
	if all.x, err = f.solvePooled(all.rows, all); err != nil {
		return nil, err
	}
	return all, nil
}

// retrace replays the group's points at g.x and rebuilds its rows.
func (f *AggregateFit) retrace(g *Group) error {
	return f.retraceWith(g, func(o *Observation) profiles.StepCoefficients { return g.Step(o.Config.GPU.Step) })
}

// retraceWith replays the group's points at the coefficients coef gives
// each and rebuilds the group's rows around them.
func (f *AggregateFit) retraceWith(g *Group, coef func(o *Observation) profiles.StepCoefficients) error {
	trs, err := f.traceAll(g.Obs, coef)
	if err != nil {
		return err
	}
	g.rows = g.rows[:0]
	for j, i := range g.Obs {
		g.Traces[i] = trs[j]
		g.rows = append(g.rows, aggregateRows(i, &f.obs[i], trs[j], ParamsOf(coef(&f.obs[i])))...)
	}
	return nil
}

// traceAll replays the observations idx with the coefficients coef gives
// each, in parallel, and returns their traces (indexed like idx).
func (f *AggregateFit) traceAll(idx []int, coef func(o *Observation) profiles.StepCoefficients) ([]*Trace, error) {
	out, errs := eachParallel(f, idx, func(o *Observation) (*Trace, error) { return o.Replay(coef(o)) })
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// eachParallel runs do on the observations idx, f.workers at a time, and
// returns the results and errors indexed like idx (an error names its point).
func eachParallel[T any](f *AggregateFit, idx []int, do func(o *Observation) (T, error)) ([]T, []error) {
	out := make([]T, len(idx))
	errs := make([]error, len(idx))
	sem := make(chan struct{}, f.workers)
	var wg sync.WaitGroup
	for j, i := range idx {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			o := &f.obs[i]
			res, err := do(o)
			if err != nil {
				errs[j] = fmt.Errorf("%s: %w", o.Name, err)
			}
			out[j] = res
			if f.progress != nil {
				f.progress()
			}
		}()
	}
	wg.Wait()
	return out, errs
}
