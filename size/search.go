package size

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/scenario"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Defaults of Options.
const (
	DefaultMaxReplicas = 64
	// DefaultRateTolerance stops the rate bisection when the bracket is
	// within 5%: finer than the simulator's own accuracy.
	DefaultRateTolerance = 0.05
	// Bracketing steps of the rate search before it gives up: 2^10 below or
	// 2^8 above the first guess.
	rateStepsDown = 10
	rateStepsUp   = 8
)

// Options of a search.
type Options struct {
	SLOs []analysis.SLO
	// MaxPreemptionRate is the preemptions per request allowed (0: none; a
	// preemption recomputes a request's thinking, so a healthy deployment
	// keeps the counter at zero under peak load).
	MaxPreemptionRate float64
	MaxReplicas       int                // default DefaultMaxReplicas
	Prices            map[string]float64 // USD per GPU-hour by GPU name, over the profiles'
	Workers           int                // default runtime.NumCPU()
	RateTolerance     float64            // default DefaultRateTolerance
	// Progress, if set, is called with candidates done (from any worker,
	// one call at a time).
	Progress func(done, total int)
	// Confidence, if set with a level, sizes each candidate for the SLOs
	// at its intervals' pessimistic edge (confidence.go).
	Confidence *Confidence
	// ModelError is the step model's measured error on real vLLM runs
	// (profiles.Catalog.ModelError): Confidence's model part and the
	// capacity curves' bands; nil: neither.
	ModelError *profiles.ModelError
}

// Validate reports every problem with the options, each naming its field.
func (o Options) Validate() error { return o.validate(true) }

// validate is Validate, leaving out the SLOs' absence unless needSLOs.
func (o Options) validate(needSLOs bool) error {
	var problems inputerr.List
	if needSLOs && len(o.SLOs) == 0 {
		problems.Field("SLO", errors.New("at least one SLO is needed"))
	}
	if math.IsNaN(o.MaxPreemptionRate) || o.MaxPreemptionRate < 0 {
		problems.Fieldf("MaxPreemptionRate", "must be at least 0, got %g", o.MaxPreemptionRate)
	}
	if o.MaxReplicas < 0 { // 0: DefaultMaxReplicas
		problems.Fieldf("MaxReplicas", "must be at least 1, got %d", o.MaxReplicas)
	}
	for _, gpu := range slices.Sorted(maps.Keys(o.Prices)) {
		if p := o.Prices[gpu]; math.IsNaN(p) || p <= 0 {
			problems.Field("Prices", fmt.Errorf("%s=%g: a price must be positive", gpu, p))
		}
	}
	if o.RateTolerance < 0 {
		problems.Add(fmt.Errorf("rate tolerance must be positive, got %g", o.RateTolerance))
	}
	problems.Add(o.Confidence.validate())
	return problems.Err()
}

func (o *Options) defaults() {
	if o.MaxReplicas == 0 {
		o.MaxReplicas = DefaultMaxReplicas
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.RateTolerance == 0 {
		o.RateTolerance = DefaultRateTolerance
	}
}

// Result is a finished search: every candidate's outcome, ranked (see
// Rank), and the cheapest passing one.
type Result struct {
	Best       *Outcome  `json:"best"`
	Candidates []Outcome `json:"candidates"`
	// Traffic the costs are computed at.
	RatePerS         float64  `json:"rate_per_s"`
	OutputTokensPerS float64  `json:"output_tokens_per_s"`
	SLOs             []string `json:"slos"`
	// Confidence is the level the SLOs were held at (the pessimistic
	// edge of each one's interval); absent for point estimates.
	Confidence float64 `json:"confidence,omitempty"`
}

// OutsideCorpus is the warning, one line a sentence, when the best
// candidate, or any candidate, lies outside the measurement corpus; ""
// when none does.
func (r *Result) OutsideCorpus() string {
	n := 0
	var first *analysis.Caveats
	for i := range r.Candidates {
		if cv := r.Candidates[i].OutsideCorpus; cv != nil {
			n++
			first = cmp.Or(first, cv)
		}
	}
	switch {
	case r.Best != nil && r.Best.OutsideCorpus != nil:
		cv := r.Best.OutsideCorpus
		return fmt.Sprintf("%d of %d candidates lie outside the fidelity corpus (outside_corpus in -o json), the chosen one (%s) among them:\n  %s\n  %s",
			n, len(r.Candidates), r.Best.Name, strings.Join(cv.Unmeasured, "\n  "), cv.Expect)
	case n > 0:
		return fmt.Sprintf("%d of %d candidates lie outside the fidelity corpus (outside_corpus in -o json); for them %s", n, len(r.Candidates), first.Expect)
	}
	return ""
}

// Search evaluates every candidate on the requests, in parallel, and ranks
// them. It fails only on bad options or traffic; a candidate that cannot be
// deployed or never meets the SLOs is an outcome that does not pass.
func Search(cands []Candidate, reqs []workload.Request, opt Options) (*Result, error) {
	opt.defaults()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, errors.New("size: no requests")
	}
	for _, c := range cands {
		if price(c, opt.Prices) <= 0 {
			return nil, inputerr.Field("Prices", fmt.Errorf("no price for gpu %s: give %s %s=USD_PER_HOUR", c.Config.GPU.Name, inputerr.Name("Prices"), c.Config.GPU.Name))
		}
	}
	t := newTrafficInfo(reqs)
	shared := newMemo()
	outs := make([]Outcome, len(cands))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(opt.Workers, max(len(cands), 1)) {
		wg.Go(func() {
			for i := range jobs {
				// Each candidate writes only its own slot: the result is
				// the same whatever the scheduling of the workers.
				outs[i] = evaluate(cands[i], reqs, t, &opt, shared)
				if opt.Progress != nil {
					mu.Lock()
					done++
					opt.Progress(done, len(cands))
					mu.Unlock()
				}
			}
		})
	}
	for i := range cands {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	res := &Result{RatePerS: t.ratePerS, OutputTokensPerS: t.outputTokensPerS}
	if opt.Confidence != nil {
		res.Confidence = opt.Confidence.Level
	}
	for _, s := range opt.SLOs {
		res.SLOs = append(res.SLOs, s.String())
	}
	res.Candidates = Rank(outs)
	if len(res.Candidates) > 0 && res.Candidates[0].Passes {
		best := res.Candidates[0]
		res.Best = &best
	}
	return res, nil
}

// trafficInfo is what the search needs to know about the traffic.
type trafficInfo struct {
	ratePerS         float64 // the log's mean rate (0 when it has none)
	outputTokensPerS float64 // at that rate
}

func newTrafficInfo(reqs []workload.Request) trafficInfo {
	var t trafficInfo
	rate, err := workload.LogRate(reqs)
	if err != nil {
		return t // all at once: no rate to bisect around or to price at
	}
	var out float64
	roots := 0
	for i := range reqs {
		out += float64(reqs[i].OutputTokens())
		if reqs[i].After == "" {
			roots++
		}
	}
	// LogRate counts the arrival process's requests; follow-ups add their
	// tokens on top of each of them.
	t.ratePerS = rate
	t.outputTokensPerS = rate * out / float64(max(roots, 1))
	return t
}

func price(c Candidate, prices map[string]float64) float64 {
	if p, ok := prices[c.Config.GPU.Name]; ok {
		return p
	}
	return c.Config.GPU.PricePerHour
}

// evaluate finds the candidate's fewest passing replicas and its maximum
// rate per replica.
func evaluate(c Candidate, reqs []workload.Request, t trafficInfo, opt *Options, shared *memo) Outcome {
	o := newOutcome(c)
	if c.Err != nil {
		o.Error = c.Err.Error()
		o.Failed = []string{"deploy"}
		return o
	}
	cfg := c.Config
	capacity, err := sim.ComputeCapacity(&cfg)
	if err != nil {
		o.Error = err.Error()
		o.Failed = []string{"deploy"}
		return o
	}
	o.NumGPUBlocks, o.KVCacheTokens = capacity.NumGPUBlocks, capacity.KVCacheTokens
	// Least-requests routing: adding a replica then only ever takes load
	// off the others, which the replica bisection relies on.
	cfg.Router = "least-requests"
	if workload.HasSessions(reqs) {
		// The same for a session's first turn; its later turns go where
		// the previous one's blocks are, as a session-aware gateway sends them.
		cfg.Router = sim.RouterSessionAffinity
	}
	if failed, err := latencyFloor(&cfg, reqs, opt.SLOs); err != nil || len(failed) > 0 {
		if err != nil {
			o.Error, o.Failed = err.Error(), []string{"simulate"}
		} else {
			o.Error, o.Failed = floorError(failed), failed
		}
		return o
	}
	rn := &runner{cfg: cfg, blocks: capacity.NumGPUBlocks, opt: opt, memo: shared}
	r, m, err := fewestReplicas(rn, reqs)
	if err != nil {
		o.Error = err.Error()
		o.Failed = []string{"simulate"}
		return o
	}
	o.setMeasurement(r, m)
	o.cost(price(c, opt.Prices), t.outputTokensPerS)
	if o.Passes && opt.Confidence != nil && opt.Confidence.Level > 0 {
		pointReplicas, pointCost := r, o.CostPerHour
		n, mc, edges, failed, err := confident(rn, reqs, r, t)
		if err != nil {
			o.Error, o.Failed, o.Passes = err.Error(), []string{"simulate"}, false
			return o
		}
		o.setMeasurement(n, mc)
		o.cost(price(c, opt.Prices), t.outputTokensPerS)
		extra := o.CostPerHour - pointCost
		o.PointReplicas, o.Edges, o.ConfidenceCostPerHour = &pointReplicas, edges, &extra
		if len(failed) > 0 || !mc.Passes() {
			o.Passes = false
			o.Failed = slices.Clone(mc.Failed)
			for _, f := range failed {
				o.Failed = append(o.Failed, fmt.Sprintf("%s at %.0f%%", f, 100*opt.Confidence.Level))
			}
		}
		r = pointReplicas
	}
	if o.Passes && t.ratePerS > 0 {
		o.MaxRatePerReplica, o.Curve, err = maxRate(rn, reqs, t.ratePerS/float64(r))
		if err != nil {
			o.Error = err.Error()
		}
	}
	return o
}

// run simulates cfg on reqs, stopping at the first certain failure.
func run(cfg sim.Config, reqs []workload.Request, opt *Options) (Measurement, error) {
	m, _, err := runPeak(cfg, reqs, opt)
	return m, err
}

func runPeak(cfg sim.Config, reqs []workload.Request, opt *Options) (Measurement, int, error) {
	j := newJudge(opt.SLOs, len(reqs), opt.MaxPreemptionRate)
	rep, err := sim.Run(cfg, reqs, sim.Options{OnResult: j.observe})
	if err != nil {
		return Measurement{}, 0, err
	}
	return measure(rep, opt.SLOs, opt.MaxPreemptionRate), rep.RunningPeak, nil
}

// runner runs one candidate's simulations through the shared memo.
type runner struct {
	cfg    sim.Config
	blocks int
	opt    *Options
	memo   *memo
}

// at runs the candidate with replicas on reqs, rescaled to ratePerS (0:
// as given).
func (r *runner) at(replicas int, reqs []workload.Request, ratePerS float64) (Measurement, error) {
	cfg := r.cfg
	cfg.Replicas = replicas
	key := newMemoKey(&cfg, r.blocks, ratePerS)
	if m, ok := r.memo.get(key, cfg.MaxNumSeqs); ok {
		return m, nil
	}
	m, peak, err := runPeak(cfg, reqs, r.opt)
	if err != nil {
		return m, err
	}
	// RunningPeak is exact per replica and the cap is per replica.
	r.memo.put(key, cfg.MaxNumSeqs, peak, m)
	return m, nil
}

// fewestReplicas doubles the replicas until the traffic passes, then
// bisects between the last failing and the first passing count. It returns
// the passing count and its measurement, or the last count tried and the
// failing measurement there.
//
// The doubling also ends when the failure no longer depends on load:
// when doubling the replicas moves the first certain failure less than
// noGainFraction further into the traffic, the failing requests fail on
// their own (a TTFA floor of a long thought, a TPOT the GPU cannot reach),
// and the most expensive runs of the search, those with the most
// replicas, would only confirm it.
func fewestReplicas(rn *runner, reqs []workload.Request) (int, Measurement, error) {
	lo, hi := 0, 1 // lo fails (0 trivially), hi is the count to try
	var best, prev Measurement
	for {
		m, err := rn.at(hi, reqs, 0)
		if err != nil {
			return 0, m, err
		}
		if m.Passes() {
			best = m
			break
		}
		if hi >= rn.opt.MaxReplicas || lo >= 2 && loadIndependent(prev, m) {
			return hi, m, nil
		}
		prev = m
		lo, hi = hi, min(2*hi, rn.opt.MaxReplicas)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		m, err := rn.at(mid, reqs, 0)
		if err != nil {
			return 0, m, err
		}
		if m.Passes() {
			hi, best = mid, m
		} else {
			lo = mid
		}
	}
	return hi, best, nil
}

// noGainFraction: see fewestReplicas.
const noGainFraction = 0.1

// loadIndependent reports whether twice the replicas (now) failed the same
// checks about as early as prev did.
func loadIndependent(prev, now Measurement) bool {
	if prev.Complete || now.Complete || !slices.Equal(prev.Failed, now.Failed) {
		return false
	}
	return float64(now.Finished) <= float64(prev.Finished)*(1+noGainFraction)
}

// CurvePoint is one run of the rate search: one replica at a rate.
type CurvePoint struct {
	RatePerS float64 `json:"rate_per_s"`
	// ValueS is the first SLO's statistic; for a run stopped early, over the
	// requests finished by then (a lower bound).
	ValueS   float64 `json:"value_s"`
	Passes   bool    `json:"passes"`
	Complete bool    `json:"complete"`
	// LoS and HiS are ValueS's interval from the step model's measured
	// error (Options.ModelError), for complete runs; 0 without one.
	LoS float64 `json:"lo_s,omitempty"`
	HiS float64 `json:"hi_s,omitempty"`
}

// maxRate is the highest rate one replica sustains within the SLOs: the
// traffic rescaled to a rate (its shape kept), bracketed from guess by
// doubling or halving, then bisected geometrically to the tolerance. Every
// run is returned as a point of the capacity curve, sorted by rate.
func maxRate(rn *runner, reqs []workload.Request, guess float64) (float64, []CurvePoint, error) {
	opt := rn.opt
	scaled := make([]workload.Request, len(reqs))
	prompt, output := scenario.TrafficMeans(reqs)
	phase := profiles.PhaseRegime(prompt, output)
	var curve []CurvePoint
	passes := func(rate float64) (bool, error) {
		copy(scaled, reqs) // from the original each time: no drift from repeated rescaling
		if _, err := workload.RescaleToRate(scaled, rate); err != nil {
			return false, err
		}
		m, err := rn.at(1, scaled, rate)
		if err != nil {
			return false, err
		}
		pt := CurvePoint{RatePerS: rate, ValueS: opt.SLOs[0].Of(m.Latencies), Passes: m.Passes(), Complete: m.Complete}
		if m.Complete {
			pt.LoS, pt.HiS = curveBand(opt, &m, rate, phase, rn.cfg.GPU.Generation)
		}
		curve = append(curve, pt)
		return m.Passes(), nil
	}
	sortCurve := func() []CurvePoint {
		slices.SortFunc(curve, func(a, b CurvePoint) int { return cmpFloat(a.RatePerS, b.RatePerS) })
		return curve
	}
	ok, err := passes(guess)
	if err != nil {
		return 0, sortCurve(), err
	}
	lo, hi := guess, guess
	if ok {
		for i := 0; ; i++ {
			if i == rateStepsUp {
				return lo, sortCurve(), nil // passes beyond any rate worth knowing
			}
			hi *= 2
			if ok, err = passes(hi); err != nil || !ok {
				break
			}
			lo = hi
		}
	} else {
		for i := 0; ; i++ {
			if i == rateStepsDown {
				return 0, sortCurve(), nil
			}
			lo /= 2
			if ok, err = passes(lo); err != nil || ok {
				break
			}
			hi = lo
		}
	}
	if err != nil {
		return 0, sortCurve(), err
	}
	for hi/lo > 1+opt.RateTolerance {
		mid := math.Sqrt(lo * hi)
		ok, err := passes(mid)
		if err != nil {
			return 0, sortCurve(), err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, sortCurve(), nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
