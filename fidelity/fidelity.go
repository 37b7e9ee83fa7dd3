package fidelity

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
)

// Options say which corpus to replay and how.
type Options struct {
	Corpus  string            // --corpus: a directory of *.jsonl records
	Catalog *profiles.Catalog // the profiles (their step coefficients are the model judged)
	Workers int               // parallel replays; 0: GOMAXPROCS
	// Progress, if set, is told of replays done out of those planned; it
	// is called from one goroutine at a time.
	Progress func(done, total int)
	// Hold names the coefficients the fit keeps at the GPU profile's value
	// (calibrate --hold; nil: calibrate.DefaultHold).
	Hold []string
}

// Validate reports every problem of the options, each naming its field.
func (o *Options) Validate() error {
	var problems inputerr.List
	if o.Corpus == "" {
		problems.Field("Corpus", errors.New("no corpus directory given"))
	}
	if o.Workers < 0 {
		problems.Add(fmt.Errorf("workers must be 0 (GOMAXPROCS) or more, got %d", o.Workers))
	}
	problems.Add(calibrate.CheckHold(o.Hold))
	return problems.Err()
}

// Run replays every record of the corpus with the profiles' coefficients
// and scores them, in-sample and cross-validated: each deployment predicted
// again by coefficients fitted on its generation's other deployments
// (around the profiles' coefficients), or on the other generations when
// it is its generation's only one.
func Run(o Options) (*Scoreboard, error) {
	c, err := o.corpus()
	if err != nil {
		return nil, err
	}
	obs := c.observations()
	fit := calibrate.NewAggregateFit(obs, c.hold, c.workers, o.progress(2*len(obs)))
	groups, fallback, err := fit.AtProfiles()
	if err != nil {
		return nil, err
	}
	if err := c.score(fit, groups, fallback); err != nil {
		return nil, err
	}
	return c.scoreboard(), nil
}

// Calibrate fits the step coefficients per GPU generation on the corpus
// (calibrate.AggregateFit: from the profiles' coefficients as the prior)
// and on every point together (the fallback for a generation without
// points), then scores the corpus with them, cross-validated as Run does.
func Calibrate(o Options) (*Scoreboard, error) {
	c, err := o.corpus()
	if err != nil {
		return nil, err
	}
	obs := c.observations()
	fit := calibrate.NewAggregateFit(obs, c.hold, c.workers, o.progress((calibrate.FitIterations+4)*len(obs)))
	groups, fallback, err := fit.Fit()
	if err != nil {
		return nil, err
	}
	if err := c.score(fit, groups, fallback); err != nil {
		return nil, err
	}
	sb := c.scoreboard()
	for _, g := range append(groups, fallback) {
		f := c.fitOf(g)
		f.CVTPOT, f.CVTTFT = sb.CVMAPE[MetricTPOT], sb.CVMAPE[MetricTTFT]
		for _, r := range sb.Regimes {
			if r.Kind == "generation" && r.Name == g.Name {
				f.CVTPOT, f.CVTTFT = r.CVMAPE[MetricTPOT], r.CVMAPE[MetricTTFT]
			}
		}
		sb.Fits = append(sb.Fits, f)
	}
	return sb, nil
}

// score sets the points' predictions from the groups' last replays and
// their cross-validated pairs.
func (c *corpus) score(fit *calibrate.AggregateFit, groups []*calibrate.Group, fallback *calibrate.Group) error {
	points := c.replayable()
	for _, g := range groups {
		for _, i := range g.Obs {
			p, tr := c.points[points[i]], g.Traces[i]
			p.Pred = tr.Pred
			p.Pairs, p.Held = map[string]Pair{}, map[string]Pair{}
			for m, pr := range pairs(p.Record, &tr.Pred) {
				if p.excluded(m) == "" {
					p.Pairs[m] = pr
				} else {
					p.Held[m] = pr
				}
			}
		}
	}
	cv, err := fit.CrossValidate(groups, fallback)
	if err != nil {
		return err
	}
	for i, pairs := range cv {
		c.points[points[i]].CV = pairs
	}
	for _, by := range []struct {
		key func(*Point) string
		set func(*Point, map[string]Pair)
	}{
		{func(p *Point) string { return p.cfg.Model.Lineage() }, func(p *Point, m map[string]Pair) { p.CVFamily = m }},
		{func(p *Point) string { return p.Record.Source }, func(p *Point, m map[string]Pair) { p.CVSource = m }},
	} {
		cv, err := fit.CrossValidateBy(groups, fallback, func(i int) string { return by.key(c.points[points[i]]) })
		if err != nil {
			return err
		}
		for i, pairs := range cv {
			by.set(c.points[points[i]], pairs)
		}
	}
	return nil
}

func (o *Options) corpus() (*corpus, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	recs, err := ReadCorpus(o.Corpus)
	if err != nil {
		return nil, inputerr.New(err)
	}
	cat := o.Catalog
	if cat == nil {
		if cat, err = profiles.Embedded(); err != nil {
			return nil, err
		}
	}
	c := newCorpus(cat, recs, o.Workers)
	c.hold = o.Hold
	if c.hold == nil {
		c.hold = calibrate.DefaultHold
	}
	if len(c.replayable()) == 0 {
		return nil, inputerr.Fieldf("Corpus", "%s: none of its %d records can be replayed", o.Corpus, len(recs))
	}
	return c, nil
}

// progress is a thread-safe counter over total replays.
func (o *Options) progress(total int) func() {
	var mu sync.Mutex
	done := 0
	return func() {
		if o.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		o.Progress(min(done, total), total)
	}
}

func (c *corpus) scoreboard() *Scoreboard { return score(c.points) }

// fitOf describes a group's fit.
func (c *corpus) fitOf(g *calibrate.Group) profiles.StepFit {
	points := c.replayable()
	idx := make([]int, len(g.Obs))
	for k, i := range g.Obs {
		idx[k] = points[i]
	}
	f := profiles.StepFit{Generation: g.Name, Points: len(idx), Step: g.Step(calibrate.Prior(c.points[idx[0]].cfg.GPU))}
	gpus, deps := map[string]bool{}, map[string]bool{}
	for _, i := range idx {
		gpus[c.points[i].cfg.GPU.Name] = true
		deps[c.points[i].Deployment] = true
	}
	f.GPUs = slices.Sorted(maps.Keys(gpus))
	f.Deployments = len(deps)
	if g.Name != calibrate.FallbackName {
		f.Coverage = c.coverage(idx)
	}
	pts := make([]*Point, len(idx))
	for k, i := range idx {
		pts[k] = c.points[i]
	}
	fam := meanAbsErr(pts, func(p *Point) map[string]Pair { return p.CVFamily })
	f.CVFamilyTPOT, f.CVFamilyTTFT, f.CVFamilyThroughput = fam[MetricTPOT], fam[MetricTTFT], fam[MetricThroughput]
	return f
}

// coverage is, per GPU of the points idx, what they span: the TP sizes,
// dense or MoE, the weight formats, the model families, the GEMM kernels
// and the largest load.
func (c *corpus) coverage(idx []int) []profiles.Coverage {
	by := map[string]*profiles.Coverage{}
	for _, i := range idx {
		p := c.points[i]
		cv := by[p.cfg.GPU.Name]
		if cv == nil {
			cv = &profiles.Coverage{GPU: p.cfg.GPU.Name}
			by[p.cfg.GPU.Name] = cv
		}
		cv.Points++
		if !slices.Contains(cv.TP, p.Record.TP) {
			cv.TP = append(cv.TP, p.Record.TP)
		}
		if a := p.regimeOf("architecture"); !slices.Contains(cv.Architectures, a) {
			cv.Architectures = append(cv.Architectures, a)
		}
		if w := p.cfg.WeightFormat(); !slices.Contains(cv.Weights, w) {
			cv.Weights = append(cv.Weights, w)
		}
		if f := p.cfg.Model.Lineage(); !slices.Contains(cv.Families, f) {
			cv.Families = append(cv.Families, f)
		}
		k := p.cfg.Kernels()
		for _, name := range []string{k.Linear, k.Experts} {
			if name != "" && !slices.Contains(cv.Kernels, name) {
				cv.Kernels = append(cv.Kernels, name)
			}
		}
		cv.MaxConcurrency = max(cv.MaxConcurrency, int(math.Round(p.load())))
	}
	var out []profiles.Coverage
	for _, name := range slices.Sorted(maps.Keys(by)) {
		cv := by[name]
		slices.Sort(cv.TP)
		slices.Sort(cv.Architectures)
		slices.Sort(cv.Weights)
		slices.Sort(cv.Families)
		slices.Sort(cv.Kernels)
		out = append(out, *cv)
	}
	return out
}
