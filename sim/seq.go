package sim

// seq is one request inside an engine: vLLM's Request reduced to the counters
// the scheduler reads (vllm/v1/request.py). Token counts follow vLLM's
// names: numTokens is prompt plus generated tokens, computed is
// num_computed_tokens (tokens whose KV is in the cache).
type seq struct {
	// Hot fields first: the step loop reads and writes these for every
	// running request every step, so they share the first cache lines.
	numTokens   int // prompt + generated
	computed    int // num_computed_tokens
	generated   int
	output      int // think + answer: the tokens to generate
	think       int
	newTokens   int // tokens scheduled this step, drafts included
	drafts      int // draft tokens scheduled this step
	slotLimit   int // token slots the blocks held can cover: slots rounded up to a block
	lastToken   int64
	firstToken  int64
	firstAnswer int64
	running     bool
	holdsPrefix bool // holds a reference on prefix.group
	rejected    bool // could never be scheduled
	shared      int  // blocks of the table that belong to the prefix group

	// KV blocks. slots is how many token slots the block table covers.
	slots  int
	blocks int
	prefix *prefixEntry // nil without a prefix or with prefix caching off
	own    *cacheGroup  // full blocks left behind by a preemption, hit on resume
	// ownStart is the block index where own's blocks start in the table;
	// ownLimit, when > 0, the block index own's hit stops at (an inherited
	// sequence the prompt repeats only in part).
	ownStart, ownLimit int

	idx            int   // index of the request (and its result)
	arrival        int64 // ns: when the client sent it
	engineArrival  int64 // when it reached the engine, after the API server (frontend.go)
	rootArrival    int64 // arrival of the first request of its follow-up chain
	keepBlocks     bool  // a follow-up will want this request's blocks as its prefix
	firstScheduled int64
	priority       int
	prompt         int
	prefixID       string
	rejectReason   string
	prefixTokens   int
	replica        int

	cachedTokens int // prefix-cache hit at first admission
	preemptions  int
	// lostTokens is computed at the last preemption: what must be recomputed.
	lostTokens int
	recomputed int
}

// prefixBlocks is how many full blocks of this request's prompt are its
// shared prefix; the last prompt token is never a hit, so at most
// (prompt-1)/block_size.
func (s *seq) prefixBlocks(bs int) int { return min(s.prefixTokens, s.prompt-1) / bs }

// prefixEntry is the cache state of one shared prompt prefix (prefix_id).
type prefixEntry struct {
	group *cacheGroup
}

// setSlots records that the block table covers slots tokens.
func (s *seq) setSlots(slots, bs int) {
	s.slots = slots
	s.slotLimit = (slots + bs - 1) / bs * bs
}

// tpotShare is the weight of one of its decode steps in its TPOT:
// 1/(output − 1), 0 for a request of one output token (Batch.TPOTShare).
func (s *seq) tpotShare() float64 {
	if s.output > 1 {
		return 1 / float64(s.output-1)
	}
	return 0
}

// decoding reports whether the request has computed its whole prompt and
// all its output so far, so the next step generates a token.
func (s *seq) decoding() bool { return s.generated > 0 && s.computed == s.numTokens-1 }
