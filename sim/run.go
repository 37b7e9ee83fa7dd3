package sim

import (
	"fmt"
	"math"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/histogram"
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
	// OnResult, if set, sees each request's result as it finishes; returning
	// true stops the run there (a sizing search stops as soon as an SLO is
	// certain to fail). Requests not finished by then end "cancelled" and
	// the report has Stopped set.
	OnResult func(*workload.Result) bool
	// DiscardResults keeps no result in the report: each is added to a
	// streaming summary (analysis.Accumulator, quantiles within
	// analysis.SketchRelativeError) and shown to Sink and OnResult, which
	// must copy what they keep. Memory then follows the requests in flight.
	DiscardResults bool
	// Sink, if set, sees each result as it finishes (--results streams
	// them to a file); unlike OnResult it cannot stop the run.
	Sink func(*workload.Result)
	// Autoscale, if set, resizes the fleet during the run (autoscale.go):
	// the config's replicas are then its Max, of which Min are ready at
	// the start.
	Autoscale *Autoscale
	// OnStep, if set, sees every engine step as it is scheduled: the
	// replica, its start and duration in nanoseconds and the batch. The
	// batch is reused by the next step: copy what you keep. Calibration
	// uses it to know which work each latency was made of.
	OnStep func(replica int, startNs, durNs int64, b *Batch)
}

// Run simulates the requests on the deployment and returns the report. cfg
// is resolved (vLLM's defaults filled in) on a copy. The run is
// deterministic: the same config, requests and seed give the same report.
func Run(cfg Config, reqs []workload.Request, opt Options) (*Report, error) {
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	if a := opt.Autoscale; a != nil {
		if err := a.Validate(); err != nil {
			return nil, err
		}
		cfg.Replicas = a.Max
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
	rep := c.report()
	rep.Stopped = c.stopped
	return rep, nil
}

// cluster is Replicas engines behind a router, fed by the arrival process.
type cluster struct {
	cfg      *Config
	capacity Capacity
	reqs     []workload.Request
	seqs     []seq
	// results are kept in input order, or with Options.DiscardResults
	// only accumulated (acc) and marked ended.
	results   []workload.Result
	acc       *analysis.Accumulator
	endedBits []uint64
	last      workload.Result // the result OnResult sees when none are kept
	// A replica run on its own (parallel.go) reports finished requests
	// through onRecord and results through sinkAt; arriving is set while
	// an arrival is handled (its rejection sorts before engine events).
	scaler   *autoscaler // nil: a fixed fleet
	onRecord func()
	sinkAt   func(t int64, arrival bool, r *workload.Result)
	arriving bool
	engines  []*engine
	opt      Options

	// seqs are the requests' engine state, one per request when there are
	// follow-ups (which read their predecessor's); otherwise only those in
	// flight exist, recycled through spare, so that memory follows the
	// requests in flight and not the run's length.
	spare     []*seq
	roots     []int   // requests issued by the arrival process, in order
	next      int     // next of roots to issue
	closedDue []int64 // closed loop: issue times of roots not yet issued
	follow    followUps
	due       engineHeap // engines by their next event, so a step costs O(log replicas)
	// The front end (frontend.go): requests past their API server's work
	// waiting out their latency, and the next work done in an API server,
	// recomputed when one changes.
	transit     transitHeap
	servedAt    int64
	servedBy    *engine
	serverStale bool
	rr          int // round-robin cursor
	done        int
	end         int64
	stopped     bool // Options.OnResult asked to stop
}

func newCluster(cfg *Config, capacity Capacity, reqs []workload.Request, opt Options) (*cluster, error) {
	c := &cluster{
		cfg: cfg, capacity: capacity, reqs: reqs, opt: opt,

		servedAt: never,
	}
	for i := range cfg.Replicas {
		e, err := newEngine(i, cfg, capacity)
		if err != nil {
			return nil, err
		}
		e.finished = c.finished
		e.horizon = c.horizonFor
		e.onStep = opt.OnStep
		if opt.Timeline {
			e.timeline = &timeline{interval: int64(math.Round(cfg.TimelineIntervalS * 1e9))}
		}
		c.engines = append(c.engines, e)
		c.due.push(e)
	}
	if opt.Autoscale != nil {
		c.scaler = newAutoscaler(*opt.Autoscale, c.engines)
	}
	if opt.DiscardResults {
		c.acc = &analysis.Accumulator{}
		c.endedBits = make([]uint64, (len(reqs)+63)/64)
	} else {
		c.results = make([]workload.Result, len(reqs))
	}
	if err := c.follow.index(reqs); err != nil {
		return nil, err
	}
	if c.follow.parent != nil {
		// A follow-up reads its predecessor's state after it finished.
		c.seqs = make([]seq, len(reqs))
	}
	c.roots = make([]int, 0, len(reqs)-len(c.follow.parent))
	for i := range reqs {
		if !c.follow.dependent(i) {
			c.roots = append(c.roots, i)
		}
	}
	if opt.Concurrency > 0 {
		for range min(opt.Concurrency, len(c.roots)) {
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
		// Shared prefixes are modelled for full-attention layouts only
		// (see docs/model-limits.md); a request's own blocks, kept
		// hashed when it is preempted, hit on its resume in every layout:
		// the full groups' blocks up to what it had computed, the
		// sliding groups' last window with them (SlidingWindowManager
		// find_longest_cache_hit).
		prefixCaching:  !cfg.DisablePrefixCaching && capacity.Layout.SlidingGroups == 0 && capacity.Layout.FullGroups == 1,
		resumeHits:     !cfg.DisablePrefixCaching,
		priority:       cfg.SchedulingPolicy == "priority",
		admitLag:       cfg.asyncScheduling(),
		reserveFullISL: cfg.reservesFullISL(),
		stepModel:      sm,
		// Each replica has its own stream, derived from the seed and its id.
		rngState: uint64(cfg.Seed)*0x9e3779b97f4a7c15 ^ (0x7468696e6b636170 + uint64(id)),
		apiState: uint64(cfg.Seed)*0xbf58476d1ce4e5b9 ^ (0x6170692073657276 + uint64(id)),
		api:      apiServer{processes: float64(cfg.APIServerCount)},
		pool:     newBlockPool(capacity.NumGPUBlocks),
		prefixes: map[string]*prefixEntry{},
		itl:      &histogram.Durations{},
	}
	if e.priority {
		e.waiting = &startedQueue{waitQueue: &priorityQueue{}}
	} else {
		e.waiting = &startedQueue{waitQueue: &fcfsQueue{}}
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
	if c.parallelReplicas() {
		c.runParallel()
	} else {
		c.runSequential()
	}
	for _, e := range c.engines {
		c.end = max(c.end, e.now)
	}
	for _, e := range c.engines {
		e.idle(c.end)
	}
	if c.scaler != nil {
		c.scaler.close(c.end)
	}
}

// runSequential processes every event in time order.
func (c *cluster) runSequential() {
	for !c.stopped && c.advance() {
	}
	if c.stopped {
		c.cancelUnfinished()
	}
}

// advance handles the earliest event and reports whether there was one. At
// equal times arrivals go first, so requests arriving at the same instant
// are scheduled together.
func (c *cluster) advance() bool {
	ta, idx := c.nextArrival()
	tt := c.nextFront()
	te := int64(never)
	if len(c.due) > 0 {
		te = c.due[0].due
	}
	if ta == never && tt == never && te == never {
		return false
	}
	if c.scaler != nil {
		if ts := c.scaler.next(); ts <= min(ta, tt, te) {
			c.scaler.fire(c, ts)
			return true
		}
	}
	switch {
	case ta <= tt && ta <= te:
		c.arriving = true
		if e := c.issue(ta, idx); e != nil {
			c.due.update(e)
		}
		c.arriving = false
	case tt <= te:
		if e := c.front(); e != nil {
			c.due.update(e)
		}
	default:
		e := c.due[0]
		e.fire()
		c.due.update(e)
	}
	return true
}

// nextArrival is the time and index of the next request to issue: the
// arrival process's next one, or a follow-up whose predecessor finished.
func (c *cluster) nextArrival() (int64, int) {
	t, idx := int64(never), -1
	if c.next < len(c.roots) {
		idx = c.roots[c.next]
		switch {
		case c.opt.Concurrency == 0:
			t = secondsToNs(c.reqs[idx].ArrivalS)
		case len(c.closedDue) > 0:
			t = c.closedDue[0]
		}
	}
	if ft, fi := c.follow.peek(); ft <= t {
		return ft, fi
	}
	return t, idx
}

// issue sends request i at time t: rejected outright when it cannot fit
// max_model_len (vLLM answers 400 before it reaches the engine), otherwise
// to the replica the router picks, which it returns (nil when rejected).
func (c *cluster) issue(t int64, i int) *engine {
	root := t
	if p := c.follow.parentOf(i); p >= 0 {
		c.follow.pop()
		if c.reqs[i].SessionID == "" {
			root = c.seqs[p].rootArrival // a gateway's call: the user's request began with the first
		}
	} else {
		c.next++
		if c.opt.Concurrency > 0 {
			c.closedDue = c.closedDue[1:]
		}
	}
	r := &c.reqs[i]
	s := c.newSeq(i)
	*s = seq{
		idx: i, arrival: t, rootArrival: root, priority: r.Priority,
		prompt: r.PromptTokens, think: r.ThinkTokens, output: r.OutputTokens(),
		numTokens: r.PromptTokens, prefixID: r.PrefixID, prefixTokens: r.PrefixTokens,
		firstScheduled: -1, firstToken: -1, firstAnswer: -1, lastToken: -1,
		keepBlocks: c.follow.wantsBlocks(i),
	}
	if reason := admissible(r, c.cfg.MaxModelLen); reason != "" {
		s.rejected, s.rejectReason = true, reason
		if p := c.follow.parentOf(i); p >= 0 && c.seqs[p].own != nil {
			c.engines[c.seqs[p].replica].pool.forget(c.seqs[p].own)
			c.seqs[p].own = nil
		}
		c.finishAt(s, t)
		return nil
	}
	e := c.route()
	if p := c.follow.parentOf(i); p >= 0 && c.cfg.Router == RouterSessionAffinity {
		// The replica that served the previous call holds its blocks.
		if pe := c.engines[c.seqs[p].replica]; c.scaler == nil || c.scaler.state[pe.id] == replicaReady {
			e = pe
		}
	}
	s.replica = e.id
	if p := c.follow.parentOf(i); p >= 0 {
		c.inheritBlocks(s, &c.seqs[p], e)
	}
	return c.toEngine(e, s, t)
}

// newSeq is request i's engine state, fresh or recycled.
func (c *cluster) newSeq(i int) *seq {
	if c.seqs != nil {
		return &c.seqs[i]
	}
	if n := len(c.spare); n > 0 {
		s := c.spare[n-1]
		c.spare = c.spare[:n-1]
		return s
	}
	return new(seq)
}

// freeSeq recycles a finished request's state when nothing reads it again.
func (c *cluster) freeSeq(s *seq) {
	if c.seqs == nil {
		c.spare = append(c.spare, s)
	}
}

// emit records request i's result and returns where it lies until the
// next one.
func (c *cluster) emit(i int, res workload.Result) *workload.Result {
	if c.results != nil {
		c.results[i] = res
		return &c.results[i]
	}
	c.acc.Add(&res)
	if c.endedBits != nil { // nil in a replica run on its own, which never cancels
		c.endedBits[i/64] |= 1 << (i % 64)
	}
	c.last = res
	return &c.last
}

// sink hands a result that ended at t to Options.Sink (through the merge
// of the replicas' results when they run apart: parallel.go).
func (c *cluster) sink(r *workload.Result, t int64) {
	switch {
	case c.sinkAt != nil:
		c.sinkAt(t, c.arriving, r)
	case c.opt.Sink != nil:
		c.opt.Sink(r)
	}
}

// ended reports whether request i has its result.
func (c *cluster) ended(i int) bool {
	if c.results != nil {
		return c.results[i].Status != ""
	}
	return c.endedBits[i/64]&(1<<(i%64)) != 0
}

// load is the requests a router counts on a replica: running, waiting
// and still in the API server.
func (e *engine) load() int { return len(e.running) + e.waiting.len() + e.inFront }

// route picks a replica (--router).
func (c *cluster) route() *engine {
	engines := c.engines
	if c.scaler != nil {
		engines = c.scaler.ready
	}
	if len(engines) == 1 {
		return engines[0]
	}
	switch c.cfg.Router {
	case "least-requests", RouterSessionAffinity: // a session's first call: the least loaded
		best := engines[0]
		for _, e := range engines[1:] {
			if e.load() < best.load() {
				best = e
			}
		}
		return best
	case "least-kv":
		best := engines[0]
		for _, e := range engines[1:] {
			if e.pool.used() < best.pool.used() ||
				e.pool.used() == best.pool.used() && e.load() < best.load() {
				best = e
			}
		}
		return best
	default: // round-robin
		e := engines[c.rr%len(engines)]
		c.rr++
		return e
	}
}

func (c *cluster) finished(e *engine, s *seq) { c.finishAt(s, e.now) }

// finishAt records the result of a request that ended at t, issues its
// follow-ups (or cancels them if it failed), and in closed loop issues the
// next request once the whole chain is done.
func (c *cluster) finishAt(s *seq, t int64) {
	if c.stopped {
		// A request finishing in the step whose earlier result stopped the
		// run: the run ended at that result, so this one is cancelled with
		// the rest (cancelUnfinished), unseen by OnResult.
		return
	}
	res := resultOf(&c.reqs[s.idx], s)
	chainDone := true
	if kids := c.follow.children(s.idx); len(kids) > 0 {
		if s.rejected {
			c.cancel(kids, t)
		} else {
			if !c.follow.sessionTurns(kids) {
				// A gateway's follow-up answers for this call; a session's
				// next turn is a request of its own.
				res.Continued = true
				if res.Status == workload.StatusTruncated {
					res.Status = workload.StatusOK
				}
			}
			chainDone = false
			for _, k := range kids {
				c.follow.push(t+secondsToNs(c.reqs[k].ArrivalS), k)
			}
		}
	}
	r := c.emit(s.idx, res)
	c.sink(r, t)
	if c.scaler != nil && !s.rejected {
		c.scaler.drained(c.engines[s.replica], t)
	}
	c.freeSeq(s)
	c.record(t)
	if c.opt.OnResult != nil && c.opt.OnResult(r) {
		c.stopped = true
	}
	if chainDone && c.opt.Concurrency > 0 && c.next+len(c.closedDue) < len(c.roots) {
		c.closedDue = append(c.closedDue, t)
	}
}

// cancel records follow-ups that will never be sent because a predecessor
// failed.
func (c *cluster) cancel(kids []int, t int64) {
	for _, k := range kids {
		res := workload.Result{Request: c.reqs[k], Status: workload.StatusCancelled}
		res.Error = "predecessor " + c.reqs[k].After + " did not complete"
		c.sink(c.emit(k, res), t)
		c.record(t)
		c.cancel(c.follow.children(k), t)
	}
}

// cancelUnfinished ends every request that has no result yet, after
// Options.OnResult stopped the run.
func (c *cluster) cancelUnfinished() {
	for i := range c.reqs {
		if !c.ended(i) {
			c.sink(c.emit(i, workload.Result{Request: c.reqs[i], Status: workload.StatusCancelled, Error: "run stopped early"}), c.end)
		}
	}
}

// record counts a finished request for progress.
func (c *cluster) record(t int64) {
	c.done++
	c.end = max(c.end, t)
	if c.onRecord != nil {
		c.onRecord()
		return
	}
	if c.opt.Progress != nil && (c.done%1024 == 0 || c.done == len(c.reqs)) {
		c.opt.Progress(c.done, len(c.reqs))
	}
}

// admissible says why vLLM's front end would refuse a request with a 400
// before it reaches the engine, or "" when it would not.
func admissible(r *workload.Request, maxModelLen int) string {
	switch {
	case r.PromptTokens < 1 || r.OutputTokens() < 1:
		return "a request needs at least one prompt token and one output token"
	case r.TotalTokens() > maxModelLen:
		return fmt.Sprintf("prompt plus output (%d tokens) exceeds max_model_len %d", r.TotalTokens(), maxModelLen)
	}
	return ""
}

func secondsToNs(s float64) int64 { return int64(math.Round(s * 1e9)) }

func nsToSeconds(ns int64) float64 { return float64(ns) / 1e9 }

// resultOf turns a finished request's timestamps into its result record.
func resultOf(r *workload.Request, s *seq) workload.Result {
	res := workload.Result{Request: *r, Replica: s.replica}
	res.ArrivalS = nsToSeconds(s.arrival)
	// A follow-up's latencies count from the chain's first arrival: what the
	// user waited. Queue time is its own.
	from := s.rootArrival
	if s.rejected {
		res.Status = workload.StatusRejected
		res.Error = s.rejectReason
		return res
	}
	res.Status = workload.StatusOK
	if r.FinishReason == workload.FinishLength && r.AnswerTokens == 0 && r.ThinkTokens > 0 {
		// Cut at max_tokens inside the thinking: an unclosed <think>, no
		// answer for the user: to them the model returned nothing.
		res.Status = workload.StatusTruncated
	}
	res.TTFTS = nsToSeconds(s.firstToken - from)
	res.E2ES = nsToSeconds(s.lastToken - from)
	res.QueueS = nsToSeconds(s.firstScheduled - s.engineArrival)
	res.TTFTEngineS = nsToSeconds(s.firstToken - s.engineArrival)
	if s.firstAnswer >= 0 {
		res.TTFAS = nsToSeconds(s.firstAnswer - from)
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
	res.CachedTokens = s.cachedTokens
	res.RecomputedTokens = s.recomputed
	return res
}
