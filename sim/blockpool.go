package sim

// blockPool is vLLM's KV block pool reduced to counts
// (vllm/v1/core/block_pool.py). vLLM keeps one doubly linked free queue:
// blocks freed without a prefix-cache hash are prepended (reused first),
// hashed blocks are appended (evicted last, least recently used first), and
// allocation pops from the head, evicting a hashed block when it takes one.
// Blocks that share a fate move together, so thinkcap tracks groups of
// blocks instead of single blocks: uncached free blocks are one count, and
// the hashed free blocks are a list of cacheGroups in LRU order. A request
// frees its blocks tail first (kv_cache_manager.free), so a group is always
// evicted from its end, and whatever remains of it is still a valid prefix.
type blockPool struct {
	total     int // usable blocks: num_gpu_blocks - 1 (block 0 is the null block)
	free      int // free blocks without a hash
	evictable int // hashed blocks with ref_cnt 0: free, but a prefix hit can revive them
	lru       groupList
	spare     []*cacheGroup // recycled groups, so steady state does not allocate
}

// cacheGroup is a run of hashed blocks that belong together: the full blocks
// of a shared prompt prefix, or the full blocks a preempted or finished
// request left behind.
type cacheGroup struct {
	blocks     int  // blocks still cached
	ref        int  // running requests holding these blocks
	dead       bool // nobody can hit these blocks again (a finished request's own)
	prev, next *cacheGroup
	inLRU      bool
}

func newBlockPool(numGPUBlocks int) *blockPool {
	usable := max(numGPUBlocks-1, 0)
	return &blockPool{total: usable, free: usable}
}

// available is what vLLM's get_num_free_blocks returns: evictable blocks
// count as free.
func (p *blockPool) available() int { return p.free + p.evictable }

// used is the number of blocks held by running requests.
func (p *blockPool) used() int { return p.total - p.free - p.evictable }

// usage is vllm:kv_cache_usage_perc (block_pool.get_usage).
func (p *blockPool) usage() float64 {
	if p.total == 0 {
		return 0
	}
	return float64(p.used()) / float64(p.total)
}

// take removes n blocks from the free queue: uncached ones first, then the
// least recently used hashed ones. The caller has checked available() >= n.
func (p *blockPool) take(n int) {
	if n <= p.free {
		p.free -= n
		return
	}
	n -= p.free
	p.free = 0
	for n > 0 {
		g := p.lru.head
		k := min(n, g.blocks)
		g.blocks -= k
		p.evictable -= k
		n -= k
		if g.blocks == 0 {
			p.unlink(g)
			if g.dead {
				p.recycle(g)
			}
		}
	}
}

// release returns n uncached blocks to the free queue.
func (p *blockPool) release(n int) { p.free += n }

// park puts a group whose last reference went away at the LRU tail.
func (p *blockPool) park(g *cacheGroup) {
	if g.blocks == 0 {
		if g.dead {
			p.recycle(g)
		}
		return
	}
	if g.dead && p.lru.tail != nil && p.lru.tail.dead {
		// Two dead runs side by side are indistinguishable: merge them.
		p.lru.tail.blocks += g.blocks
		p.evictable += g.blocks
		p.recycle(g)
		return
	}
	p.lru.pushBack(g)
	g.inLRU = true
	p.evictable += g.blocks
}

// touch takes a parked group out of the free queue for a prefix hit
// (block_pool.touch).
func (p *blockPool) touch(g *cacheGroup) {
	if g.inLRU {
		p.evictable -= g.blocks
		p.unlink(g)
	}
}

// parkDead parks n hashed blocks nobody will hit again.
func (p *blockPool) parkDead(n int) {
	if n == 0 {
		return
	}
	g := p.newGroup()
	g.blocks = n
	g.dead = true
	p.park(g)
}

// forget marks a parked group as one nobody will hit any more.
func (p *blockPool) forget(g *cacheGroup) {
	if g.inLRU {
		g.dead = true
	} else {
		p.recycle(g)
	}
}

func (p *blockPool) unlink(g *cacheGroup) {
	p.lru.remove(g)
	g.inLRU = false
}

func (p *blockPool) newGroup() *cacheGroup {
	if n := len(p.spare); n > 0 {
		g := p.spare[n-1]
		p.spare = p.spare[:n-1]
		return g
	}
	return &cacheGroup{}
}

func (p *blockPool) recycle(g *cacheGroup) {
	*g = cacheGroup{}
	p.spare = append(p.spare, g)
}

// groupList is an intrusive doubly linked list of cacheGroups.
type groupList struct{ head, tail *cacheGroup }

func (l *groupList) pushBack(g *cacheGroup) {
	g.prev, g.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = g
	} else {
		l.head = g
	}
	l.tail = g
}

func (l *groupList) remove(g *cacheGroup) {
	if g.prev != nil {
		g.prev.next = g.next
	} else {
		l.head = g.next
	}
	if g.next != nil {
		g.next.prev = g.prev
	} else {
		l.tail = g.prev
	}
	g.prev, g.next = nil, nil
}
