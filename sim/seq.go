package sim

// seq is one request inside an engine: vLLM's Request reduced to the counters
// the scheduler reads (vllm/v1/request.py). Token counts follow vLLM's
// names: numTokens is prompt plus generated tokens, computed is
// num_computed_tokens (tokens whose KV is in the cache).
type seq struct {
	idx      int   // index of the request (and its result)
	arrival  int64 // ns
	priority int
	prompt   int
	think    int
	output   int // think + answer: the tokens to generate

	numTokens int // prompt + generated
	computed  int // num_computed_tokens
	generated int

	// KV blocks. slots is how many token slots the block table covers;
	// shared of its blocks belong to the prefix group (held by reference).
	slots  int
	blocks int
	shared int
	prefix *prefixEntry // nil without a prefix or with prefix caching off
	own    *cacheGroup  // full blocks left behind by a preemption, hit on resume
	// ownStart is the block index where own's blocks start in the table.
	ownStart     int
	holdsPrefix  bool // holds a reference on prefix.group
	prefixID     string
	prefixTokens int
	replica      int
	rejected     bool // could never be scheduled

	// Scheduling state of the current step.
	newTokens int // tokens scheduled this step, drafts included
	drafts    int // draft tokens scheduled this step
	running   bool

	// Timestamps in ns; -1 until they happen.
	firstScheduled int64
	firstToken     int64
	firstAnswer    int64
	lastToken      int64

	preemptions int
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

// decoding reports whether the request has computed its whole prompt and
// all its output so far, so the next step generates a token.
func (s *seq) decoding() bool { return s.generated > 0 && s.computed == s.numTokens-1 }
