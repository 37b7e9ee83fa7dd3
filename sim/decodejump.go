package sim

// This file advances a stretch of decode-only steps without the per-request
// work of schedule() and complete(). Between arrivals and completions most
// of a reasoning run is such steps: every running request decodes one
// token, nothing is admitted, nothing finishes, and each step differs from
// the last only in the context the attention reads (one token more per
// request). The stretch prices each step with the step model as the normal
// path does, in the same order (so the clock sums the same float64s into
// the same integers), allocates blocks only at the steps where a request
// crosses a block boundary, records first answer tokens at their step, and
// writes the requests' counters once at the end. TestDecodeJumpEquivalence
// checks that it changes no per-request result.
//
// A stretch ends before the first step that would need anything else: a
// completion, max_model_len, an allocation that would fail (preemption), a
// sliding window freeing blocks while a request waits (it may be admitted),
// a step evicting cached blocks while the waiting head would hit some, or a
// step ending at or after the horizon the cluster gives (its next arrival
// or front-end event: at equal times those go first). It does not start
// when the next step would admit a waiting request.

// stepByStep turns stretches off: the equivalence test's reference.
var stepByStep bool

// decodeJump is the scratch a stretch reuses.
type decodeJump struct {
	// byPhase lists the running indices by the step, modulo the block
	// size, at which they cross a block boundary: phase p's are
	// byPhase[start[p]:start[p+1]] (a counting sort, cheaper than a slice
	// per phase). Within a step the order does not matter: the blocks a
	// step takes are counted, not named.
	byPhase  []int32
	start    []int32
	crossAt  []int // first crossing step per running index
	answerAt []int // step at which the request's first answer token comes, or -1
	batch    Batch // the step priced (kept here: an interface call would move it to the heap)
}

// admitting reports whether schedule()'s phase B would look at the waiting
// queue after phase A scheduled every running request for one token.
func (e *engine) admitting() bool {
	n := len(e.running)
	return e.waiting.len() > 0 && n < e.maxNumSeqs && n < e.maxBatchedTokens
}

// jumpable reports whether the engine's state allows a stretch at all:
// nothing streamed or watched per step, no speculative decoding (its
// acceptance is drawn per request and step), and every running request
// decoding with its last token from the step that just ended.
func (e *engine) jumpable() bool {
	if stepByStep || e.specK > 0 || e.onTokens != nil || e.onStep != nil || len(e.running) == 0 || e.horizon == nil {
		return false
	}
	n := len(e.running)
	if n > e.maxBatchedTokens {
		return false
	}
	// A waiting head that admit() refuses now is refused at every step of
	// the stretch: the stretch only takes blocks, and taking k blocks
	// lowers what is free by k while lowering what the head needs beyond
	// it (admit's full - hit + evictable, or need + evictable) by at most
	// k, as long as no block taken is evicted from what the head would hit
	// (the stretch stops before such a step: headShield). So one check
	// here stands for the whole stretch.
	if e.lagged() {
		// The head arrived after the next step was scheduled (admitLag):
		// that step is decode-only whatever the head needs, and the one
		// after may admit it, so the stretch is that one step. Under
		// FCFS every request behind the head arrived later still; a
		// priority queue may hold an earlier, admissible one behind it.
		if e.priority {
			return false
		}
	} else if e.admitting() && e.wouldAdmitHead(e.pool.available(), n) {
		return false // the next step admits a request: not a decode-only one
	}
	for _, s := range e.running {
		if s.generated == 0 || s.computed != s.numTokens-1 || s.lastToken != e.now {
			return false
		}
		if s.holdsPrefix && s.shared < s.prefixBlocks(e.bs) && s.shared == s.prefix.group.blocks {
			return false // shareComputedPrefix would act in the next complete()
		}
	}
	return true
}

// lagged reports whether the waiting head reached the engine after the
// step about to be taken was scheduled (admitLag).
func (e *engine) lagged() bool {
	return e.admitLag && e.waiting.len() > 0 && e.waiting.peek().engineArrival > e.cutoff
}

// decodeStretch advances as many decode-only steps as it can (see the file
// comment) and leaves the engine at the end of the last one, idle, for
// schedule() to take the next step as usual.
func (e *engine) decodeStretch() {
	if !e.jumpable() {
		return
	}
	horizon := e.horizon(e)
	if horizon <= e.now {
		return
	}
	n := len(e.running)
	bs := e.bs
	j := &e.jump
	j.crossAt, j.answerAt = j.crossAt[:0], j.answerAt[:0]
	if cap(j.start) < bs+1 {
		j.start = make([]int32, bs+1)
	}
	start := j.start[:bs+1]
	clear(start)
	steps := int(^uint(0) >> 1)
	if e.lagged() {
		steps = 1 // see jumpable
	}
	firstAnswer := steps
	var ctx int64
	share := 0.0 // Batch.TPOTShare
	for _, s := range e.running {
		steps = min(steps, s.output-s.generated-1, e.maxModelLen-s.computed-1)
		ctx += int64(s.computed + 1)
		share += s.tpotShare()
		c := s.slotLimit - s.computed // the step whose token needs a new block
		j.crossAt = append(j.crossAt, c)
		start[c%bs+1]++
		a := -1
		if s.firstAnswer < 0 {
			a = s.think - s.generated
			firstAnswer = min(firstAnswer, a)
		}
		j.answerAt = append(j.answerAt, a)
	}
	for p := 1; p <= bs; p++ {
		start[p] += start[p-1]
	}
	if cap(j.byPhase) < n {
		j.byPhase = make([]int32, n)
	}
	byPhase := j.byPhase[:n]
	for i, c := range j.crossAt {
		p := c % bs
		byPhase[start[p]] = int32(i)
		start[p]++
	}
	// start[p] is now the end of phase p: phase p is [start[p-1], start[p]).
	phase := func(p int) []int32 {
		from := int32(0)
		if p > 0 {
			from = start[p-1]
		}
		return byPhase[from:start[p]]
	}
	b := &j.batch
	*b = Batch{NumReqs: n, DecodeReqs: n, DecodeTokens: n, TPOTShare: share, AwaitingFirst: e.waiting.unstarted()}
	taken := 0
	blocksTaken, shield := 0, e.headShield()
	for i := 0; i < steps; i++ {
		b.ContextTokens = ctx + int64(n)*int64(i)
		dt := e.stepModel.StepTime(b)
		end := e.now + dt
		if end >= horizon {
			break
		}
		need, frees := 0, false
		crossing := phase(i % bs)
		for _, r := range crossing {
			if s := e.running[r]; i >= j.crossAt[r] {
				// Only the blocks taken count: a request whose window
				// frees a block cannot lend it to one before it.
				d := e.layout.HeldFor(s.computed+i+1, s.computed+i) - s.blocks
				need += max(0, d)
				frees = frees || d < 0
			}
		}
		if need > e.pool.available() {
			break // schedule() preempts here
		}
		if frees && e.waiting.len() > 0 {
			break // a sliding window frees blocks: the step may admit the head
		}
		if blocksTaken+need > shield {
			// The step would evict blocks the waiting head would hit:
			// its hit need not shrink block for block with them (its
			// own blocks stop counting once the shared prefix covers
			// them), so what it needs may fall faster than what is free.
			break
		}
		blocksTaken += need
		for _, r := range crossing {
			if s := e.running[r]; i >= j.crossAt[r] {
				slots := s.computed + i + 1
				e.resize(s, e.layout.HeldFor(slots, s.computed+i))
				s.setSlots(slots, bs)
			}
		}
		e.steps++
		e.stretched++
		e.observe(e.now, end)
		e.stepStart = e.now // as fire() would
		if e.admitLag {
			e.cutoff = e.now // the next step was scheduled as this one started
		}
		e.now = end
		e.itl.AddN(dt, int64(n))
		if i == firstAnswer {
			firstAnswer = int(^uint(0) >> 1)
			for r, a := range j.answerAt {
				switch {
				case a == i:
					e.running[r].firstAnswer = end
				case a > i:
					firstAnswer = min(firstAnswer, a)
				}
			}
		}
		taken++
	}
	if taken == 0 {
		return
	}
	for _, s := range e.running {
		s.computed += taken
		s.numTokens += taken
		s.generated += taken
		s.lastToken = e.now
	}
}

// headShield is how many blocks a stretch may take before it evicts one
// the waiting head would hit where its hit is not smooth: the free blocks
// and the cached ones ahead of the head's parked groups in the LRU (take
// evicts from its front). A head without a shared prefix loses hit and
// evictable blocks one for one as its own blocks go, which keeps it
// refused (jumpable); with a prefix, its own blocks count only beyond the
// prefix (lookup), so their eviction can drop what it needs by more than
// what is taken. The walk is bounded: a shorter count only ends a stretch
// sooner.
func (e *engine) headShield() int {
	const unbounded, walk = int(^uint(0) >> 1), 64
	if e.waiting.len() == 0 {
		return unbounded
	}
	h := e.waiting.peek()
	if h.prefix == nil {
		return unbounded
	}
	var own, pre *cacheGroup
	if h.own != nil && h.own.inLRU {
		own = h.own
	}
	if h.prefix.group.inLRU {
		pre = h.prefix.group
	}
	if own == nil && pre == nil {
		return unbounded
	}
	shield := e.pool.free
	n := 0
	for g := e.pool.lru.head; g != nil && g != own && g != pre && n < walk; g = g.next {
		shield += g.blocks
		n++
	}
	return shield
}

// wouldAdmitHead reports whether schedule()'s phase B would admit the head
// of the waiting queue with avail blocks free after phase A scheduled n
// decoding requests, without changing anything (admit's checks).
func (e *engine) wouldAdmitHead(avail, n int) bool {
	s := e.waiting.peek()
	var h prefixHit
	if s.computed == 0 {
		h = e.lookup(s)
	}
	k := s.numTokens - h.blocks*e.bs
	if e.longPrefill > 0 && k > e.longPrefill {
		k = e.longPrefill
	}
	k = min(k, e.maxBatchedTokens-n)
	if k <= 0 {
		return false
	}
	return e.admissible(s, h, k, avail)
}

// horizonFor is the earliest time at which anything but e itself can
// change e's future: a request of its own API
// server or in transit reaching it, a new arrival reaching it (no sooner
// than the front end's shortest latency when the router ignores the
// replicas' state, at once when it reads it), and with follow-ups, a
// closed loop or a result callback, any other replica's next event (a
// completion there can issue a request or stop the run).
func (c *cluster) horizonFor(e *engine) int64 {
	ta, _ := c.nextArrival()
	h := e.api.next()
	if len(c.transit) <= 64 {
		for _, x := range c.transit {
			if x.e == e {
				h = min(h, x.at)
			}
		}
	} else {
		h = min(h, nextTransit(c.transit))
	}
	if ta != never {
		switch {
		case len(c.engines) == 1:
		case statefulRouter(c.cfg.Router) || c.scaler != nil:
			h, ta = min(h, ta), never // routed on every replica's state at ta
		case c.opt.Concurrency == 0 && c.follow.parent == nil:
			// Round-robin: the next arrival e gets is at the earliest the
			// m-th next one (later when one before it is rejected, which
			// does not turn the cursor).
			m := (e.id - c.rr%len(c.engines) + len(c.engines)) % len(c.engines)
			if c.next+m >= len(c.roots) {
				ta = never
			} else {
				ta = secondsToNs(c.reqs[c.roots[c.next+m]].ArrivalS)
			}
		}
		if ta != never {
			h = min(h, ta+c.cfg.frontFloorNs()) // toEngine's shortest
		}
	}
	if c.opt.OnResult != nil || c.opt.Concurrency > 0 || c.follow.parent != nil {
		h = min(h, c.due.secondDue())
	}
	if c.scaler != nil {
		h = min(h, c.scaler.next()) // it reads the replicas' state and moves the router
	}
	return h
}

// statefulRouter reports whether a --router reads the replicas' state.
func statefulRouter(r string) bool {
	return r == "least-requests" || r == "least-kv" || r == RouterSessionAffinity
}
