package sim

// KVLayout says how many KV blocks a request holds for a given sequence
// length. vLLM's hybrid allocator (vllm/v1/core/kv_cache_utils.py,
// single_type_kv_cache_manager.py) splits layers into groups of equal size by
// attention type; every group draws its blocks from one shared pool, and a
// request holds a block table in each group. Full-attention groups hold
// cdiv(tokens, block_size) blocks; sliding-window groups free out-of-window
// blocks, so they hold at most SlidingBlocksCap.
type KVLayout struct {
	BlockSize        int
	FullGroups       int // groups of full-attention (or MLA) layers; 1 for a plain model
	SlidingGroups    int // groups of sliding-window layers; 0 for most models
	SlidingBlocksCap int // most blocks one request holds in one sliding group
}

// BlocksFor is the number of blocks a request of n tokens holds.
func (l KVLayout) BlocksFor(n int) int {
	b := (n + l.BlockSize - 1) / l.BlockSize
	total := b * l.FullGroups
	if l.SlidingGroups > 0 {
		total += min(b, l.SlidingBlocksCap) * l.SlidingGroups
	}
	return total
}
