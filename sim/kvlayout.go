package sim

// KVLayout says how many KV blocks a request holds for a given sequence
// length. vLLM's hybrid allocator (vllm/v1/core/kv_cache_utils.py,
// single_type_kv_cache_manager.py) splits layers into groups of equal size by
// attention type; every group draws its blocks from one shared pool, and a
// request holds a block table in each group. Full-attention groups hold
// cdiv(tokens, block_size) blocks; sliding-window groups free out-of-window
// blocks as the request advances (HeldFor); the admission gate and the
// startup log charge them at most SlidingBlocksCap (BlocksFor).
type KVLayout struct {
	BlockSize        int
	FullGroups       int // groups of full-attention (or MLA) layers; 1 for a plain model
	SlidingGroups    int // groups of sliding-window layers; 0 for most models
	SlidingBlocksCap int // most blocks one request holds in one sliding group
	SlidingWindow    int // the sliding layers' window in tokens
}

// BlocksFor is the most blocks a request of n tokens can hold, as the
// admission gate (full_sequence_must_fit with the admission cap) and
// "Maximum concurrency" count them: sliding groups at their cap.
func (l KVLayout) BlocksFor(n int) int {
	b := (n + l.BlockSize - 1) / l.BlockSize
	total := b * l.FullGroups
	if l.SlidingGroups > 0 {
		total += min(b, l.SlidingBlocksCap) * l.SlidingGroups
	}
	return total
}

// HeldFor is the blocks a request holds with slots token slots allocated
// after computed tokens are in the cache. Sliding-window groups replace the
// blocks wholly before the window of the next token with the null block
// and free them (SlidingWindowManager.remove_skipped_blocks, called by
// allocate_slots before it allocates: vllm/v1/core/
// single_type_kv_cache_manager.py), so a long decode holds about
// window/block_size blocks there however long it grows, and a short one
// everything it has.
func (l KVLayout) HeldFor(slots, computed int) int {
	b := (slots + l.BlockSize - 1) / l.BlockSize
	total := b * l.FullGroups
	if l.SlidingGroups > 0 {
		skipped := max(0, computed-l.SlidingWindow+1) / l.BlockSize
		total += max(0, b-skipped) * l.SlidingGroups
	}
	return total
}
