package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/thinkcap/thinkcap/workload"
)

// Options control one simulation run beyond the deployment itself.
type Options struct {
	// Concurrency > 0 runs closed loop: that many requests are always in
	// flight, issued in input order; the requests' arrival times are ignored.
	Concurrency int
	// Timeline records TimelineSamples every Config.TimelineIntervalS.
	Timeline bool
	// Progress, if set, is called now and then with requests done so far.
	Progress func(done, total int)
}

// Run simulates the requests on the deployment and returns the report. cfg
// is resolved (vLLM's defaults filled in) on a copy. The run is
// deterministic: the same config, requests and seed give the same report.
func Run(cfg Config, reqs []workload.Request, opt Options) (*Report, error) {
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	capacity, err := ComputeCapacity(&cfg)
	if err != nil {
		return nil, err
	}
	c, err := newCluster(&cfg, capacity, reqs, opt)
	if err != nil {
		return nil, err
	}
	c.run()
	return c.report(), nil
}

// cluster is Replicas engines behind a router, fed by the arrival process.
type cluster struct {
	cfg      *Config
	capacity Capacity
	reqs     []workload.Request
	seqs     []seq
	results  []workload.Result
	engines  []*engine
	opt      Options

	next      int     // next request to issue
	closedDue []int64 // closed loop: issue times of requests not yet issued
	rr        int     // round-robin cursor
	done      int
	end       int64
}

func newCluster(cfg *Config, capacity Capacity, reqs []workload.Request, opt Options) (*cluster, error) {
	c := &cluster{
		cfg: cfg, capacity: capacity, reqs: reqs, opt: opt,
		seqs:    make([]seq, len(reqs)),
		results: make([]workload.Result, len(reqs)),
	}
	for i := range cfg.Replicas {
		e, err := newEngine(i, cfg, capacity)
		if err != nil {
			return nil, err
		}
		e.finished = c.finished
		if opt.Timeline {
			e.timeline = &timeline{interval: int64(math.Round(cfg.TimelineIntervalS * 1e9))}
		}
		c.engines = append(c.engines, e)
	}
	if opt.Concurrency > 0 {
		for range min(opt.Concurrency, len(reqs)) {
			c.closedDue = append(c.closedDue, 0)
		}
	}
	return c, nil
}

func newEngine(id int, cfg *Config, capacity Capacity) (*engine, error) {
	sm, err := NewStepModel(cfg)
	if err != nil {
		return nil, err
	}
	e := &engine{
		id:               id,
		layout:           capacity.Layout,
		bs:               capacity.BlockSize,
		maxModelLen:      cfg.MaxModelLen,
		maxNumSeqs:       cfg.MaxNumSeqs,
		maxBatchedTokens: cfg.MaxNumBatchedTokens,
		longPrefill:      cfg.LongPrefillTokenThreshold,
		// Prefix caching is modelled for full-attention layouts only (see
		// the README's model limits).
		prefixCaching: !cfg.DisablePrefixCaching && capacity.Layout.SlidingGroups == 0 && capacity.Layout.FullGroups == 1,
		priority:      cfg.SchedulingPolicy == "priority",
		stepModel:     sm,
		// Each replica has its own stream, derived from the seed and its id.
		rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7468696e6b636170+uint64(id))),
		pool:     newBlockPool(capacity.NumGPUBlocks),
		prefixes: map[string]*prefixEntry{},
		itl:      &latencyHistogram{},
	}
	if e.priority {
		e.waiting = &priorityQueue{}
	} else {
		e.waiting = &fcfsQueue{}
	}
	if sc := cfg.Speculative; sc != nil {
		e.specK = sc.NumSpeculativeTokens
		e.lookahead = sc.LookaheadSlots()
		e.draftSlots = sc.DraftSlots()
		e.dropEagleBlock = sc.usesEagle()
		e.sampler, err = NewAcceptanceSampler(sc.AcceptanceRates)
		if err != nil {
			return nil, err
		}
	}
	return e, nil
}

// run processes arrivals and engine steps in time order until every
// request is done, then brings every replica's clock to the end.
func (c *cluster) run() {
	for c.advance() {
	}
	for _, e := range c.engines {
		c.end = max(c.end, e.now)
	}
	for _, e := range c.engines {
		e.idle(c.end)
	}
}

// advance handles the earliest event and reports whether there was one. At
// equal times arrivals go first, so requests arriving at the same instant
// are scheduled together.
func (c *cluster) advance() bool {
	ta := c.nextArrival()
	te, ei := int64(never), -1
	for i, e := range c.engines {
		if t := e.nextEvent(); t < te {
			te, ei = t, i
		}
	}
	if ta == never && te == never {
		return false
	}
	if ta <= te {
		c.issue(ta)
	} else {
		c.engines[ei].fire()
	}
	return true
}

func (c *cluster) nextArrival() int64 {
	if c.next >= len(c.reqs) {
		return never
	}
	if c.opt.Concurrency > 0 {
		if len(c.closedDue) == 0 {
			return never
		}
		return c.closedDue[0]
	}
	return secondsToNs(c.reqs[c.next].ArrivalS)
}

// issue sends the next request at time t: rejected outright when it cannot
// fit max_model_len (vLLM answers 400 before it reaches the engine),
// otherwise to the replica the router picks.
func (c *cluster) issue(t int64) {
	i := c.next
	c.next++
	if c.opt.Concurrency > 0 {
		c.closedDue = c.closedDue[1:]
	}
	r := &c.reqs[i]
	s := &c.seqs[i]
	*s = seq{
		idx: i, arrival: t, priority: r.Priority,
		prompt: r.PromptTokens, think: r.ThinkTokens, output: r.OutputTokens(),
		numTokens: r.PromptTokens, prefixID: r.PrefixID, prefixTokens: r.PrefixTokens,
		firstScheduled: -1, firstToken: -1, firstAnswer: -1, lastToken: -1,
	}
	if r.PromptTokens < 1 || r.TotalTokens() > c.cfg.MaxModelLen || s.output < 1 {
		s.rejected = true
		c.finishAt(s, t)
		return
	}
	e := c.route()
	s.replica = e.id
	e.enqueue(s, t)
}

// route picks a replica (--router).
func (c *cluster) route() *engine {
	if len(c.engines) == 1 {
		return c.engines[0]
	}
	switch c.cfg.Router {
	case "least-requests":
		best := c.engines[0]
		for _, e := range c.engines[1:] {
			if len(e.running)+e.waiting.len() < len(best.running)+best.waiting.len() {
				best = e
			}
		}
		return best
	case "least-kv":
		best := c.engines[0]
		for _, e := range c.engines[1:] {
			if e.pool.used() < best.pool.used() ||
				e.pool.used() == best.pool.used() && len(e.running)+e.waiting.len() < len(best.running)+best.waiting.len() {
				best = e
			}
		}
		return best
	default: // round-robin
		e := c.engines[c.rr%len(c.engines)]
		c.rr++
		return e
	}
}

func (c *cluster) finished(e *engine, s *seq) { c.finishAt(s, e.now) }

// finishAt records the result of a request that ended at t and, in closed
// loop, issues the next one at that instant.
func (c *cluster) finishAt(s *seq, t int64) {
	c.results[s.idx] = resultOf(&c.reqs[s.idx], s)
	c.done++
	c.end = max(c.end, t)
	if c.opt.Concurrency > 0 && c.next+len(c.closedDue) < len(c.reqs) {
		c.closedDue = append(c.closedDue, t)
	}
	if c.opt.Progress != nil && (c.done%1024 == 0 || c.done == len(c.reqs)) {
		c.opt.Progress(c.done, len(c.reqs))
	}
}

func secondsToNs(s float64) int64 { return int64(math.Round(s * 1e9)) }

func nsToSeconds(ns int64) float64 { return float64(ns) / 1e9 }

// resultOf turns a finished request's timestamps into its result record.
func resultOf(r *workload.Request, s *seq) workload.Result {
	res := workload.Result{Request: *r, Replica: s.replica}
	res.ArrivalS = nsToSeconds(s.arrival)
	if s.rejected {
		res.Status = workload.StatusRejected
		res.Error = fmt.Sprintf("prompt plus output (%d tokens) does not fit max_model_len", r.TotalTokens())
		return res
	}
	res.Status = workload.StatusOK
	res.TTFTS = nsToSeconds(s.firstToken - s.arrival)
	res.E2ES = nsToSeconds(s.lastToken - s.arrival)
	res.QueueS = nsToSeconds(s.firstScheduled - s.arrival)
	if s.firstAnswer >= 0 {
		res.TTFAS = nsToSeconds(s.firstAnswer - s.arrival)
	}
	switch {
	case s.think == 0:
		res.ThinkS = 0
	case s.firstAnswer >= 0:
		res.ThinkS = nsToSeconds(s.firstAnswer - s.firstToken)
	default:
		res.ThinkS = nsToSeconds(s.lastToken - s.firstToken)
	}
	if s.generated > 1 {
		res.TPOTS = nsToSeconds(s.lastToken-s.firstToken) / float64(s.generated-1)
	}
	res.Preemptions = s.preemptions
	res.RecomputedTokens = s.recomputed
	return res
}
