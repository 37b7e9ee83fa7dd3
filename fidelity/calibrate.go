package fidelity

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// fallbackName is the fit of every generation's points together: the
// coefficients of a GPU whose generation the corpus has no measurement of.
const fallbackName = profiles.FallbackGeneration

// priorOf is a GPU's profile coefficients, before any corpus fit.
func priorOf(g profiles.GPU) profiles.StepCoefficients {
	if g.StepPrior != (profiles.StepCoefficients{}) {
		return g.StepPrior
	}
	return g.Step
}

// apiServerCPUStartMs is where the fit starts the API server's work per
// request: a few milliseconds of Python a request (GPUStack's 1,000-request
// bursts to gpt-oss-20b on vLLM 0.11 took 4 to 5 s in all, at most 5 ms a
// request).
const apiServerCPUStartMs = 3

// hostSmallAllReduceStart is where the fit starts NCCL's low-latency
// protocol through host memory (sim/allreduce.go): 4% of the one-way
// PCIe link and 5 µs a call, about what the corpus's A100 PCIe TP 2
// decodes show (each token in a decode batch adds 0.4 to 1.0 ms a step
// beyond what TP 1 adds, 1.1 to 1.8 GB/s of all-reduce traffic, while
// their prefills move megabytes at ten times that). From zero the protocol
// would never be the cheaper and the fit could not see it.
const (
	hostSmallAllReduceStartEfficiency = 0.04
	hostSmallAllReduceStartLatencyUs  = 5
)

// fitIterations bounds the re-simulations of a fit; fitConverged is the
// largest relative move of a prediction at which it stops.
const (
	fitIterations = 8
	fitConverged  = 0.002
)

// group is the points of one generation (or all of them) being fitted.
type group struct {
	name  string
	idx   []int // into corpus.points
	x     []float64
	prior []float64
	free  []bool
	rows  []fitRow // at x, from the last traces
	trace map[int]*Trace
}

func (g *group) coef(base profiles.StepCoefficients) profiles.StepCoefficients {
	return calibrate.WithParams(base, g.x)
}

// newGroup starts a fit of the points idx from their GPUs' profile
// coefficients (prior, the first point's: efficiencies are fractions of
// each GPU's own datasheet, so a generation shares them).
func (c *corpus) newGroup(name string, idx []int, start, prior profiles.StepCoefficients) *group {
	seen := func(uses func(*sim.Config) bool) bool {
		return slices.ContainsFunc(idx, func(i int) bool { return uses(&c.points[i].cfg) })
	}
	viaHost := seen(func(cfg *sim.Config) bool { return cfg.GPU.AllReduceViaHost })
	triton := seen((*sim.Config).TritonAttention)
	mla := seen(func(cfg *sim.Config) bool { return cfg.Model.IsMLA() })
	blockFP8 := seen((*sim.Config).BlockFP8Linear)
	harmony := seen((*sim.Config).HarmonyChat)
	int4 := seen(func(cfg *sim.Config) bool { return cfg.ExpertDtype() == "int4" })
	network := seen((*sim.Config).SpansNodes)
	for _, s := range []*profiles.StepCoefficients{&start, &prior} {
		if s.ExpertBandwidthEfficiency == 0 {
			s.ExpertBandwidthEfficiency = s.WeightBandwidthEfficiency // its meaning when unset
		}
		if s.ExpertComputeEfficiency == 0 {
			s.ExpertComputeEfficiency = s.ComputeEfficiency
		}
		if s.FP8ExpertBandwidthEfficiency == 0 {
			s.FP8ExpertBandwidthEfficiency = s.ExpertBandwidthEfficiency
		}
		if s.FP8ExpertComputeEfficiency == 0 {
			s.FP8ExpertComputeEfficiency = s.ExpertComputeEfficiency
		}
		onlyWhereSeen(viaHost, &s.HostAllReduceEfficiency, s.InterconnectEfficiency)
		onlyWhereSeen(viaHost, &s.HostAllReduceLatencyUs, s.AllReduceLatencyUs)
		onlyWhereSeen(viaHost, &s.HostSmallAllReduceEfficiency, hostSmallAllReduceStartEfficiency)
		onlyWhereSeen(viaHost, &s.HostSmallAllReduceLatencyUs, hostSmallAllReduceStartLatencyUs)
		onlyWhereSeen(triton, &s.TritonAttentionComputeEfficiency, s.AttentionComputeEfficiency)
		onlyWhereSeen(int4, &s.INT4ExpertBandwidthEfficiency, s.ExpertBandwidthEfficiency)
		onlyWhereSeen(int4, &s.INT4ExpertComputeEfficiency, s.ExpertComputeEfficiency)
		onlyWhereSeen(mla, &s.MLALayerOverheadUs, 0)
		onlyWhereSeen(network, &s.NetworkEfficiency, s.InterconnectEfficiency)
		onlyWhereSeen(blockFP8, &s.BlockFP8ComputeEfficiency, s.ComputeEfficiency)
		if s.APIServerCPUMs == 0 {
			// From zero the API server's work never queues and the fit
			// cannot see it: start it where requests in a burst share a
			// few milliseconds each.
			s.APIServerCPUMs = apiServerCPUStartMs
		}
		onlyWhereSeen(harmony, &s.HarmonyAPIServerCPUMs, s.APIServerCPUMs)
	}
	// Overheads whose terms the group's points cannot have: held at 0.
	unseen := map[string]bool{"mla_layer_overhead_us": !mla, "api_server_harmony_cpu_ms": !harmony, "host_all_reduce_latency_us": !viaHost, "host_small_all_reduce_latency_us": !viaHost}
	g := &group{name: name, idx: idx, x: calibrate.ParamsOf(start), prior: calibrate.ParamsOf(prior), free: make([]bool, len(calibrate.Params)), trace: map[int]*Trace{}}
	for k, p := range calibrate.Params {
		// An efficiency of 0 has no term in the model (host_all_reduce_efficiency
		// where no GPU stages its all-reduces through host memory).
		g.free[k] = !slices.Contains(c.hold, p.Key) && !(p.Inverse() && g.prior[k] == 0) && !unseen[p.Key]
		if !g.free[k] {
			g.x[k] = g.prior[k]
		}
	}
	return g
}

// onlyWhereSeen sets a coefficient that only some deployments' points can
// see (host-staged all-reduce, Triton attention, INT4 experts, MLA layers,
// block-scaled FP8, the Harmony renderer, servers linked by a network): 0
// when the group has no such point, which leaves it out of the fit and the
// file, else its value, or unset's (what it means when unset) where it has
// none.
func onlyWhereSeen(seen bool, v *float64, unset float64) {
	switch {
	case !seen:
		*v = 0
	case *v == 0:
		*v = unset
	}
}

// settle re-simulates the group's points at its parameters and refits
// them until the parameters stop moving: the batches, and which side of
// each step's maxima binds, depend on the coefficients.
func (c *corpus) settle(g *group, iterations int, progress func()) error {
	for it := 0; it < iterations; it++ {
		if err := c.retrace(g, progress); err != nil {
			return err
		}
		x, err := solve(g.rows, g.x, g.prior, g.free)
		if err != nil {
			return err
		}
		if it >= 2 {
			// A step's binding side flips with the coefficients, and the
			// fit can swing between two sets: from the third round on it
			// moves half way, which settles the swing.
			for k := range x {
				x[k] = (x[k] + g.x[k]) / 2
			}
		}
		moved := predictionMove(g.rows, g.x, x)
		if os.Getenv("THINKCAP_FIT_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "fit %s iteration %d: moved %.4f x=%.4g\n", g.name, it, moved, x)
		}
		g.x = x
		if moved < fitConverged {
			break
		}
	}
	return c.retrace(g, progress)
}

// retrace replays the group's points at g.x and rebuilds its rows.
func (c *corpus) retrace(g *group, progress func()) error {
	return c.retraceWith(g, func(p *Point) profiles.StepCoefficients { return g.coef(p.cfg.GPU.Step) }, progress)
}

// retraceWith replays the group's points at the coefficients coef gives
// each and rebuilds the group's rows around them.
func (c *corpus) retraceWith(g *group, coef func(p *Point) profiles.StepCoefficients, progress func()) error {
	trs, err := c.traceAll(g.idx, coef, progress)
	if err != nil {
		return err
	}
	g.rows = g.rows[:0]
	for j, i := range g.idx {
		g.trace[i] = trs[j]
		rows := rowsOf(i, c.points[i], trs[j], calibrate.ParamsOf(coef(c.points[i])))
		// A long sweep of one deployment must not outvote the others: a
		// deployment's points weigh 1/√n each, so its weight grows with
		// its evidence but no faster than its square root.
		w := 1 / math.Sqrt(float64(c.perDeployment[c.points[i].Deployment]))
		for k := range rows {
			rows[k].W *= w
		}
		g.rows = append(g.rows, rows...)
	}
	return nil
}

// predictionMove is how far the fit's move from x to y shifts the
// predictions: the mean relative change over the rows' linear models. A
// parameter the points hardly see can swing without moving a prediction,
// and a point whose step sits on a roofline's kink can jump while the rest
// stay: convergence is judged on what the fit is for, the predictions as
// a whole.
func predictionMove(rows []fitRow, x, y []float64) float64 {
	if len(rows) == 0 {
		return 0
	}
	m := 0.0
	for i := range rows {
		d := 0.0
		for k := range x {
			d += rows[i].A[k] * (y[k] - x[k])
		}
		m += math.Abs(d)
	}
	return m / float64(len(rows))
}

func maxMove(a, b []float64) float64 {
	m := 0.0
	for k := range a {
		d := math.Abs(b[k] - a[k])
		if a[k] != 0 {
			d /= math.Abs(a[k])
		}
		m = max(m, d)
	}
	return m
}

// linearCV is the largest relative move of a parameter for which a
// cross-validated prediction comes from the points' linear models (their
// rows) rather than a new simulation: well inside the range in which the
// batches the traces saw still hold.
const linearCV = 0.05

// crossValidate predicts every deployment of the group by coefficients
// fitted without it (the group's rows less the deployment's, solved from
// the group's fit); a deployment alone in its generation is predicted by
// the others (fallback: the rows of every other generation). The
// prediction is the points' linear model when the coefficients moved
// little, else a new simulation. It sets each point's CV pairs.
func (c *corpus) crossValidate(groups []*group, fallback *group, progress func()) error {
	for _, g := range groups {
		deps := map[string]bool{}
		for _, i := range g.idx {
			deps[c.points[i].Deployment] = true
		}
		for _, d := range slices.Sorted(maps.Keys(deps)) {
			src := g
			if len(deps) == 1 {
				src = fallback
			}
			var train []fitRow
			for _, r := range src.rows {
				if c.points[r.point].Deployment != d {
					train = append(train, r)
				}
			}
			x, err := solve(train, src.x, g.prior, g.free)
			if err != nil {
				return err
			}
			var idx []int
			for _, i := range g.idx {
				if c.points[i].Deployment == d {
					idx = append(idx, i)
					c.points[i].CV = map[string]Pair{}
				}
			}
			if src == g && maxMove(g.x, x) < linearCV {
				for _, r := range g.rows {
					if c.points[r.point].Deployment == d {
						c.points[r.point].CV[r.metric] = r.at(x)
					}
				}
				continue
			}
			trs, err := c.traceAll(idx, func(p *Point) profiles.StepCoefficients { return calibrate.WithParams(p.cfg.GPU.Step, x) }, progress)
			if err != nil {
				return err
			}
			for k, i := range idx {
				p := c.points[i]
				for m, pr := range pairs(p.Record, &trs[k].Pred) {
					if p.excluded(m) == "" {
						p.CV[m] = pr
					}
				}
			}
		}
	}
	return nil
}
