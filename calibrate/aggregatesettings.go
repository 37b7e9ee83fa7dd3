package calibrate

import (
	"math"
	"slices"
)

// FitSettings are the hyperparameters of a fit to aggregates: how hard
// each fit is pulled towards what it shrinks to, how robust it is to
// outliers and how much one source may weigh. DefaultFitSettings says how
// they were chosen.
type FitSettings struct {
	// Ridge is the pull of the pooled fit (every generation's points
	// together) towards the profiles' coefficients, as a fraction of the
	// rows' total weight per parameter.
	Ridge float64
	// Shrink is the pull of each generation's fit towards the pooled fit,
	// in the same units (added to Ridge, which keeps a coefficient no
	// point sees where it is): a coefficient the generation's points pin down
	// moves away from the pooled value, one they hardly see stays near
	// it, which is what a deployment of a family the generation has no
	// points of meets.
	Shrink float64
	// Tie is the pull of each coefficient towards its parent
	// (Param.Parent; Solver.Tie).
	Tie float64
	// HuberDelta and HuberPasses: Solver's.
	HuberDelta  float64
	HuberPasses int
	// SourceCap is the largest share of the fit's total weight the points
	// of one source may have together (0: no cap): a source over it has its
	// points' weights scaled down until it holds exactly the cap.
	SourceCap float64
}

// DefaultFitSettings are the hyperparameters calibrate and fidelity fit
// with. They were chosen offline by leave-one-model-family-out
// cross-validation on the corpus (TestSelectFitSettings over a grid, each
// setting refitted and cross-validated on the points' linear models; the
// table is in docs/step-model.md), never by the in-sample error alone: the
// least family-out error, weighted as the fit weighs the metrics (TPOT 1,
// TTFT 0.75, saturated throughput 2), among the settings that keep every
// in-sample error within a point of the unpulled fit's and the
// leave-one-deployment-out TPOT within half a point (what the corpus's
// own deployments are promised). That is shrink 0.001, tie 0.003 and a
// Huber band of 10% (a stronger shrink or tie lowered the family-out
// error little more and cost the in-sample TTFT or throughput a point or
// more), and no source cap
// (capping inferencex at half the weight raised the family-out error in
// every cell of the grid, TPOT by 0.5 to 2.5 points: the sources it would
// give weight to hold few families, the capped one most of them). Ridge
// stays at 1e-4, the least pull that keeps a coefficient no point sees
// where the profile put it.
var DefaultFitSettings = FitSettings{Ridge: 1e-4, Shrink: 0.001, Tie: 0.003, HuberDelta: 0.1, HuberPasses: 4, SourceCap: 0}

// solver is the settings' least squares at ridge (Ridge for the pooled
// fit, Shrink for a generation's).
func (s FitSettings) solver(ridge float64) Solver {
	return Solver{Ridge: ridge, Tie: s.Tie, Physical: true, HuberDelta: s.HuberDelta, HuberPasses: s.HuberPasses}
}

// solvePooled solves the pooled fit on rows (all generations' rows, or
// those left by a cross-validation), from g.x, pulled towards g.prior
// (the profiles' coefficients).
func (f *AggregateFit) solvePooled(rows []aggregateRow, g *Group) ([]float64, error) {
	return f.Settings.solver(f.Settings.Ridge).Solve(f.equations(rows), g.x, g.prior, g.free)
}

// solveGroup solves generation g's fit on rows from g.x, pulled towards
// the pooled fit's coefficients pooled.
func (f *AggregateFit) solveGroup(rows []aggregateRow, g *Group, pooled []float64) ([]float64, error) {
	return f.Settings.solver(f.Settings.Ridge+f.Settings.Shrink).Solve(f.equations(rows), g.x, g.shrinkPrior(pooled), g.free)
}

// shrinkPrior is what g's fit is pulled towards: the pooled fit's value
// of every coefficient g fits (the profile's where the pooled fit has
// none), g's profile prior for the others.
func (g *Group) shrinkPrior(pooled []float64) []float64 {
	p := slices.Clone(g.prior)
	for k := range p {
		if g.free[k] && !(Params[k].Inverse() && pooled[k] == 0) {
			p[k] = pooled[k]
		}
	}
	return p
}

// equations are the rows as the solver takes them, each weighted by its
// point's weight (pointWeight) times its metric's.
func (f *AggregateFit) equations(rows []aggregateRow) []Row {
	w := f.pointWeights()
	eqs := make([]Row, len(rows))
	for i := range rows {
		eqs[i] = rows[i].Row
		eqs[i].W *= w[rows[i].obs]
	}
	return eqs
}

// pointWeights is each observation's weight in a fit. A long sweep of one
// deployment must not outvote the others: a deployment's points weigh
// 1/√n each, so its weight grows with its evidence but no faster than its
// square root. Then a source whose points together hold more than
// Settings.SourceCap of the total has them scaled down to the cap.
func (f *AggregateFit) pointWeights() []float64 {
	if f.weights != nil && f.weightsFor == f.Settings.SourceCap {
		return f.weights
	}
	w := make([]float64, len(f.obs))
	bySource := map[string]float64{}
	total := 0.0
	for i, o := range f.obs {
		w[i] = 1 / math.Sqrt(float64(f.perDeployment[o.Deployment]))
		bySource[o.Source] += w[i]
		total += w[i]
	}
	if c := f.Settings.SourceCap; c > 0 && c < 1 && len(bySource) > 1 {
		// Scaling one source down raises the others' shares: a few rounds
		// bring every source to the cap or under it.
		for range 8 {
			scale := map[string]float64{}
			for src, ws := range bySource {
				if ws > c*total {
					scale[src] = c * (total - ws) / ((1 - c) * ws)
				}
			}
			if len(scale) == 0 {
				break
			}
			total = 0
			for i, o := range f.obs {
				if s, ok := scale[o.Source]; ok {
					w[i] *= s
				}
				total += w[i]
			}
			for src, s := range scale {
				bySource[src] *= s
			}
		}
	}
	f.weights, f.weightsFor = w, f.Settings.SourceCap
	return w
}
