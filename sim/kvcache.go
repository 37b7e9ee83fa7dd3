package sim

// This file is vLLM's KVCacheManager for one request at a time
// (vllm/v1/core/kv_cache_manager.py allocate_slots, get_computed_blocks,
// free), on top of the counting blockPool.

// prefixHit is the outcome of a prefix-cache lookup, computed without side
// effects so that a failed admission changes nothing.
type prefixHit struct {
	blocks    int // hit blocks in total
	shared    int // of which from the shared prefix group
	fromOwn   int // of which from the request's own blocks left by a preemption
	evictable int // hit blocks currently free (parked), which touching takes out of the free count
}

// lookup finds the longest cached chain of full blocks for a request that
// has nothing computed (get_computed_blocks). The chain starts with the
// shared prefix and continues with the request's own blocks from before a
// preemption. vLLM recomputes at least the last token to get logits, so at
// most num_tokens-1 tokens hit.
func (e *engine) lookup(s *seq) prefixHit {
	var h prefixHit
	if !e.resumeHits {
		return h
	}
	limit := (s.numTokens - 1) / e.bs
	prefixBlocks := 0
	if s.prefix != nil {
		g := s.prefix.group
		prefixBlocks = min(g.blocks, s.prefixBlocks(e.bs), limit)
		h.shared = prefixBlocks
		if g.inLRU {
			// Touching the group takes all its blocks out of the free queue.
			h.evictable += g.blocks
		}
	}
	h.blocks = prefixBlocks
	if s.own != nil && s.own.blocks > 0 && s.ownStart <= prefixBlocks {
		end := min(s.ownStart+s.own.blocks, limit)
		if s.ownLimit > 0 {
			end = min(end, s.ownLimit)
		}
		if end > prefixBlocks {
			h.fromOwn = end - prefixBlocks
			h.blocks = end
			h.evictable += s.own.blocks
		}
	}
	if e.dropEagleBlock && h.blocks > 0 {
		// EAGLE-family drafters need the last hit block's hidden states
		// recomputed (single_type_kv_cache_manager.py drop_eagle_block).
		if h.fromOwn > 0 {
			h.fromOwn--
		} else {
			h.shared--
		}
		h.blocks--
	}
	return h
}

// admit allocates a waiting request's first chunk of n new tokens after a
// hit, as allocate_slots does: from 0.19, with full_sequence_must_fit, the
// whole current sequence must fit before the first chunk is admitted
// (scheduler_reserve_full_isl, vllm/config/scheduler.py); before, the
// first chunk's blocks were enough, and a prompt that runs out of blocks
// in a later chunk preempts (reservesFullISL).
func (e *engine) admit(s *seq, h prefixHit, n int) bool {
	if !e.admissible(s, h, n, e.pool.available()) {
		return false
	}
	slots := min(h.blocks*e.bs+n+e.lookahead, e.maxModelLen)
	need := e.firstChunkBlocks(h, slots)
	e.commitHit(s, h)
	e.pool.take(need)
	s.blocks = h.blocks + need
	s.setSlots(slots, e.bs)
	s.computed = h.blocks * e.bs
	return true
}

// admissible reports whether admit would take s's first chunk of n tokens
// after hit h with avail blocks free.
func (e *engine) admissible(s *seq, h prefixHit, n, avail int) bool {
	if e.reserveFullISL {
		full := e.layout.BlocksFor(min(s.numTokens, e.maxModelLen))
		if full-h.blocks+h.evictable > avail {
			return false
		}
	}
	slots := min(h.blocks*e.bs+n+e.lookahead, e.maxModelLen)
	return e.firstChunkBlocks(h, slots)+h.evictable <= avail
}

// firstChunkBlocks is the blocks a request's first chunk takes beyond its
// hit, up to slots token slots: none of a sliding group's blocks before the
// window of the first token computed.
func (e *engine) firstChunkBlocks(h prefixHit, slots int) int {
	return max(0, e.layout.HeldFor(slots, h.blocks*e.bs)-h.blocks)
}

// commitHit takes the hit blocks: a reference on the prefix group, and the
// request's own parked blocks back into its block table.
func (e *engine) commitHit(s *seq, h prefixHit) {
	if s.prefix != nil && e.prefixCaching {
		g := s.prefix.group
		e.pool.touch(g)
		g.ref++
		s.shared = h.shared
		s.holdsPrefix = true
	}
	if own := s.own; own != nil {
		s.own = nil
		e.pool.touch(own)
		// Own blocks beyond the hit are not in the block table: give them
		// back as plain free blocks.
		e.pool.release(own.blocks - h.fromOwn)
		e.pool.recycle(own)
	}
	if s.lostTokens > 0 {
		s.recomputed += max(0, s.lostTokens-h.blocks*e.bs)
		s.lostTokens = 0
	}
}

// grow allocates slots for n more tokens of a running request (plus the
// speculative look-ahead) and reports whether the pool had the blocks.
func (e *engine) grow(s *seq, n int) bool {
	slots := min(s.computed+n+e.lookahead, e.maxModelLen)
	if slots <= s.slotLimit {
		// The hot path: the last block has room (blocks change only at
		// block boundaries, in every group alike).
		s.slots = max(s.slots, slots)
		return true
	}
	if !e.resize(s, e.layout.HeldFor(slots, s.computed)) {
		return false
	}
	s.setSlots(slots, e.bs)
	return true
}

// resize brings the blocks s holds to held, as allocate_slots does:
// out-of-window blocks freed first, then new ones taken if the pool has
// them. The shared prefix's blocks stay with their group.
func (e *engine) resize(s *seq, held int) bool {
	need := held - s.blocks
	if need > e.pool.available() {
		return false
	}
	if need > 0 {
		e.pool.take(need)
	} else {
		need = -min(-need, s.blocks-s.shared)
		e.pool.release(-need)
	}
	s.blocks += need
	return true
}

// shareComputedPrefix hands the prefix blocks a request has just computed to
// its prefix group, so that later requests hit them (vLLM caches a block as
// soon as it is full).
func (e *engine) shareComputedPrefix(s *seq) {
	g := s.prefix.group
	if s.shared != g.blocks {
		return // another request's copy is the cached one
	}
	k := min(s.computed/e.bs, s.prefixBlocks(e.bs)) - s.shared
	if k > 0 {
		g.blocks += k
		s.shared += k
	}
}

// release frees a request's blocks, tail first (kv_cache_manager.free):
// blocks that are not full go to the front of the free queue, its own full
// blocks to the LRU tail (kept for its resume if it was preempted), and then
// the prefix group when its last user leaves.
func (e *engine) release(s *seq, preempted bool) {
	private := s.blocks - s.shared
	if !e.resumeHits {
		e.pool.release(private)
	} else {
		full := max(0, min(s.computed, s.numTokens)/e.bs-s.shared)
		full = min(full, private)
		e.pool.release(private - full)
		if (preempted || s.keepBlocks) && full > 0 {
			// Kept hittable: by the request itself when it resumes, or by
			// its follow-up (inheritBlocks).
			g := e.pool.newGroup()
			g.blocks = full
			e.pool.park(g)
			s.own = g
			s.ownStart, s.ownLimit = s.shared, 0
		} else {
			e.pool.parkDead(full)
		}
		if s.holdsPrefix {
			g := s.prefix.group
			g.ref--
			if g.ref == 0 {
				e.pool.park(g)
			}
			s.holdsPrefix = false
		}
	}
	s.blocks, s.shared, s.slots, s.slotLimit = 0, 0, 0, 0
}

// reservesFullISL reports whether c's vLLM admits a waiting request only
// when its whole sequence fits the free blocks: scheduler_reserve_full_isl,
// on by default since it was added (vllm-project/vllm#37307, merged
// 2026-03-24, after 0.18's branch: first released in 0.19.0). Before it,
// allocate_slots asked only for the blocks of the first chunk.
func (c *Config) reservesFullISL() bool {
	return !c.release().Before(VLLMVersion{0, 19, 0})
}
