package sim

// schedule is one call of vLLM's Scheduler.schedule()
// (vllm/v1/core/sched/scheduler.py): running requests first, in order,
// within the token budget, preempting from the tail when KV blocks run out;
// then, only if nothing was preempted, waiting requests in queue order until
// one does not fit (head-of-line blocking). It fills e.scheduled and e.batch
// and reports whether anything was scheduled.
func (e *engine) schedule() bool {
	e.batch = Batch{}
	tokenBudget := e.maxBatchedTokens
	inputBudget := e.maxBatchedTokens
	preempted := false

	// Phase A: RUNNING requests.
	for i := 0; i < len(e.running) && tokenBudget > 0; i++ {
		s := e.running[i]
		n := s.numTokens - s.computed
		decode := n == 1 && s.generated > 0 // s.decoding(), inlined for the hot loop
		drafts := 0
		if e.specK > 0 && decode {
			drafts = min(e.specK, s.output-s.generated-1)
			n += drafts
		}
		if e.longPrefill > 0 && n > e.longPrefill {
			n = e.longPrefill
		}
		n = min(n, tokenBudget, inputBudget-e.draftSlots, e.maxModelLen-s.computed-1)
		if n <= 0 {
			continue
		}
		drafts = min(drafts, n-1)
		scheduled := true
		if slots := s.computed + n + e.lookahead; slots <= s.slotLimit {
			// The hot path: the last block has room.
		} else {
			for !e.grow(s, n) {
				victim, at := e.pickVictim()
				if at < i {
					// PRIORITY can preempt a request already scheduled this step:
					// its tokens and budget go back (scheduler.py L650-670).
					if victim.newTokens > 0 {
						tokenBudget += victim.newTokens
						inputBudget += victim.newTokens + e.draftSlots
						e.unschedule(victim)
					}
					i--
				}
				e.preempt(victim, at)
				preempted = true
				if victim == s {
					if len(e.running) == 0 {
						// Alone and still short of blocks: it can never
						// fit (a first-chunk admission, reservesFullISL).
						e.waiting.remove(s)
						if s.own != nil {
							e.pool.forget(s.own) // nobody resumes from it
							s.own = nil
						}
						s.rejected, s.rejectReason = true, "the request never fits the KV cache"
						e.finished(e, s)
					}
					scheduled = false
					break
				}
			}
		}
		if !scheduled {
			break
		}
		e.add(s, n, drafts, decode)
		tokenBudget -= n
		inputBudget -= n + e.draftSlots
	}

	// Phase B: WAITING requests, only in a step without preemption.
	for !preempted && e.waiting.len() > 0 && tokenBudget > 0 && len(e.running) < e.maxNumSeqs {
		s := e.waiting.peek()
		if e.admitLag && s.engineArrival > e.cutoff {
			break // arrived after this step was scheduled (admitLag)
		}
		var h prefixHit
		if s.computed == 0 {
			h = e.lookup(s)
		}
		n := s.numTokens - h.blocks*e.bs
		if e.longPrefill > 0 && n > e.longPrefill {
			n = e.longPrefill
		}
		n = min(n, tokenBudget, inputBudget-e.draftSlots)
		if n <= 0 || !e.admit(s, h, n) {
			break // head-of-line blocking
		}
		e.waiting.pop()
		s.running = true
		e.running = append(e.running, s)
		if s.firstScheduled < 0 {
			s.firstScheduled = e.now
			s.cachedTokens = h.blocks * e.bs
		}
		e.add(s, n, 0, s.decoding())
		tokenBudget -= n
		inputBudget -= n + e.draftSlots
	}
	e.batch.AwaitingFirst += e.waiting.unstarted()
	return e.batch.NumReqs > 0
}

// add schedules n tokens of s this step and adds them to the batch the step
// model prices. Scheduled requests are the running ones with newTokens > 0.
// decode is s.decoding().
func (e *engine) add(s *seq, n, drafts int, decode bool) {
	s.newTokens, s.drafts = n, drafts
	e.batch.Add(s.computed, n, drafts, decode)
	e.tally(s, decode, 1)
}

// unschedule takes back a request scheduled earlier in this step.
func (e *engine) unschedule(s *seq) {
	decode := s.decoding()
	e.batch.remove(s.computed, s.newTokens, s.drafts, decode)
	e.tally(s, decode, -1)
	s.newTokens, s.drafts = 0, 0
}

// tally adds sign (1 or −1) × s's part of the weights calibration's
// gradients read: Batch.TPOTShare for a decode, Batch.AwaitingFirst for a
// prefill before the first token.
func (e *engine) tally(s *seq, decode bool, sign int) {
	if decode {
		e.batch.TPOTShare += float64(sign) * s.tpotShare()
	} else if s.firstToken < 0 {
		e.batch.AwaitingFirst += sign
	}
}

// pickVictim chooses the request to preempt and its index in running: the
// tail under FCFS, the largest (priority, arrival) under PRIORITY.
func (e *engine) pickVictim() (*seq, int) {
	at := len(e.running) - 1
	if e.priority {
		for j := at - 1; j >= 0; j-- {
			if before(e.running[at], e.running[j]) {
				at = j
			}
		}
	}
	return e.running[at], at
}

// preempt is _preempt_request: free every block (kept hashed for a prefix
// hit on resume), reset num_computed_tokens to 0 so prompt and generated
// tokens are recomputed, and put the request at the front of waiting.
func (e *engine) preempt(s *seq, at int) {
	e.running = append(e.running[:at], e.running[at+1:]...)
	e.release(s, true)
	s.lostTokens = s.computed
	s.computed = 0
	s.newTokens, s.drafts = 0, 0
	s.running = false
	s.preemptions++
	e.preemptions++
	e.waiting.pushFront(s)
}

// Add accounts for n tokens of a request that had computed tokens already
// (n = 1 + drafts for a decoding request).
func (b *Batch) Add(computed, n, drafts int, decode bool) {
	b.NumReqs++
	if decode {
		b.DecodeReqs++
		b.DecodeTokens += n
		b.DraftTokens += drafts
		b.ContextTokens += int64(computed + n)
		return
	}
	b.PrefillTokens += n
	b.ContextTokens += int64(computed)
	b.PrefillAttnPairs += int64(n)*int64(computed) + int64(n)*int64(n+1)/2
}

func (b *Batch) remove(computed, n, drafts int, decode bool) {
	b.NumReqs--
	if decode {
		b.DecodeReqs--
		b.DecodeTokens -= n
		b.DraftTokens -= drafts
		b.ContextTokens -= int64(computed + n)
		return
	}
	b.PrefillTokens -= n
	b.ContextTokens -= int64(computed)
	b.PrefillAttnPairs -= int64(n)*int64(computed) + int64(n)*int64(n+1)/2
}
