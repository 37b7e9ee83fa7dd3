package sim

import (
	"testing"

	"github.com/thinkcap/thinkcap/internal/histogram"
)

// fixedStep prices every step the same, so scheduling tests read easily.
type fixedStep int64

func (f fixedStep) StepTime(*Batch) int64 { return int64(f) }

const testStep = 10_000_000 // 10 ms

// testEngine builds an engine with usable KV blocks of 16 tokens, the given
// max_num_seqs and token budget, and a 10 ms step.
func testEngine(t *testing.T, usable, maxSeqs, budget int) (*engine, *[]*seq) {
	t.Helper()
	e := &engine{
		layout: KVLayout{BlockSize: 16, FullGroups: 1}, bs: 16,
		maxModelLen: 1 << 20, maxNumSeqs: maxSeqs, maxBatchedTokens: budget,
		prefixCaching: true, resumeHits: true, reserveFullISL: true, stepModel: fixedStep(testStep),
		rngState: 1,
		pool:     newBlockPool(usable + 1), prefixes: map[string]*prefixEntry{},
		itl: &histogram.Durations{}, waiting: &startedQueue{waitQueue: &fcfsQueue{}},
	}
	var done []*seq
	e.finished = func(_ *engine, s *seq) { done = append(done, s) }
	return e, &done
}

func newTestSeq(idx, prompt, think, answer int) *seq {
	return &seq{
		idx: idx, prompt: prompt, think: think, output: think + answer, numTokens: prompt,
		firstScheduled: -1, firstToken: -1, firstAnswer: -1, lastToken: -1,
	}
}

// step runs the engine's next event and checks the block pool's books.
func step(t *testing.T, e *engine) {
	t.Helper()
	before := e.now
	e.fire()
	if e.now < before {
		t.Fatalf("clock went back from %d to %d", before, e.now)
	}
	checkBlocks(t, e)
}

// checkBlocks asserts blocks used + free = total, and that the used blocks
// are exactly those in running requests' tables plus referenced prefixes.
func checkBlocks(t *testing.T, e *engine) {
	t.Helper()
	p := e.pool
	if p.free < 0 || p.evictable < 0 || p.used() < 0 || p.used()+p.available() != p.total {
		t.Fatalf("block books: total %d free %d evictable %d used %d", p.total, p.free, p.evictable, p.used())
	}
	held := 0
	for _, s := range e.running {
		held += s.blocks - s.shared
	}
	for _, pe := range e.prefixes {
		if pe.group.ref > 0 {
			held += pe.group.blocks
		}
	}
	if held != p.used() {
		t.Fatalf("running requests hold %d blocks, pool says %d used", held, p.used())
	}
	lru := 0
	for g := p.lru.head; g != nil; g = g.next {
		lru += g.blocks
	}
	if lru != p.evictable {
		t.Fatalf("LRU holds %d blocks, evictable is %d", lru, p.evictable)
	}
}

func TestPreemptsRunningTailUnderFCFS(t *testing.T) {
	// 10 blocks; two requests of 64-token prompts take 4 blocks each, then
	// grow one block per 16 tokens until the pool runs dry.
	e, _ := testEngine(t, 10, 16, 1024)
	a, b := newTestSeq(0, 64, 200, 0), newTestSeq(1, 64, 200, 0)
	e.enqueue(a, 0)
	e.enqueue(b, 0)
	for e.preemptions == 0 {
		step(t, e)
		if e.now > 1e12 {
			t.Fatal("no preemption")
		}
	}
	if !a.running || b.running {
		t.Fatalf("victim should be b, the last admitted: a.running=%v b.running=%v", a.running, b.running)
	}
	if b.computed != 0 || b.blocks != 0 || b.preemptions != 1 || b.lostTokens == 0 {
		t.Fatalf("preempted request not reset: computed %d blocks %d preemptions %d lost %d", b.computed, b.blocks, b.preemptions, b.lostTokens)
	}
	if e.waiting.len() != 1 || e.waiting.peek() != b {
		t.Fatal("preempted request should be at the front of waiting")
	}
	// No admission in the step that preempted, although blocks are free now.
	if len(e.running) != 1 || e.pool.available() == 0 {
		t.Fatalf("running %d, available %d", len(e.running), e.pool.available())
	}
}

func TestPreemptedGoesToFrontOfWaiting(t *testing.T) {
	e, _ := testEngine(t, 10, 16, 1024)
	a, b := newTestSeq(0, 64, 200, 0), newTestSeq(1, 64, 200, 0)
	e.enqueue(a, 0)
	e.enqueue(b, 0)
	step(t, e) // admits a and b
	late := newTestSeq(2, 16, 10, 0)
	for e.preemptions == 0 {
		step(t, e)
		if e.waiting.len() == 0 && late.arrival == 0 {
			late.arrival = e.now
			e.enqueue(late, e.now)
		}
	}
	if e.waiting.peek() != b {
		t.Fatalf("front of waiting should be the preempted b, got request %d", e.waiting.peek().idx)
	}
}

func TestHeadOfLineBlocking(t *testing.T) {
	e, _ := testEngine(t, 10, 16, 4096)
	big := newTestSeq(0, 128, 50, 0) // 8 blocks
	e.enqueue(big, 0)
	step(t, e)
	blocked := newTestSeq(1, 64, 5, 0) // needs 4 blocks: only 2 free
	small := newTestSeq(2, 8, 5, 0)    // would fit in one block
	e.enqueue(blocked, e.now)
	e.enqueue(small, e.now)
	step(t, e)
	if blocked.running || small.running {
		t.Fatalf("head-of-line: blocked.running=%v small.running=%v; the small request must wait behind the blocked one", blocked.running, small.running)
	}
}

func TestChunkedPrefillSizes(t *testing.T) {
	e, _ := testEngine(t, 100, 16, 8)
	s := newTestSeq(0, 20, 3, 0)
	e.enqueue(s, 0)
	var chunks []int
	for s.firstToken < 0 {
		e.fire()
		chunks = append(chunks, s.newTokens)
	}
	want := []int{8, 8, 4}
	if len(chunks) < 3 || chunks[0] != want[0] || chunks[1] != want[1] || chunks[2] != want[2] {
		t.Fatalf("chunks %v, want %v then the first token", chunks, want)
	}
	if s.firstToken != 3*testStep {
		t.Fatalf("first token at %d ns, want after three steps", s.firstToken)
	}
}

func TestRunningFirstWithinBudget(t *testing.T) {
	// A decoding request takes its token before a newcomer's prefill chunk.
	e, _ := testEngine(t, 100, 16, 8)
	a := newTestSeq(0, 8, 50, 0)
	e.enqueue(a, 0)
	step(t, e)
	step(t, e)
	b := newTestSeq(1, 100, 5, 0)
	e.enqueue(b, e.now)
	step(t, e)
	if a.newTokens != 1 || b.newTokens != 7 {
		t.Fatalf("a scheduled %d (want 1 decode token), b %d (want the remaining budget 7)", a.newTokens, b.newTokens)
	}
}

func TestMaxNumSeqsAtAdmission(t *testing.T) {
	e, _ := testEngine(t, 100, 2, 4096)
	for i := range 3 {
		e.enqueue(newTestSeq(i, 16, 5, 0), 0)
	}
	step(t, e)
	if len(e.running) != 2 || e.waiting.len() != 1 {
		t.Fatalf("running %d waiting %d, want 2 and 1", len(e.running), e.waiting.len())
	}
}

func TestFullSequenceMustFitBeforeAdmission(t *testing.T) {
	// The whole prompt must fit although the first chunk alone would.
	e, _ := testEngine(t, 4, 16, 16)
	s := newTestSeq(0, 80, 5, 0) // 5 blocks > 4
	e.enqueue(s, 0)
	e.fire()
	if s.running {
		t.Fatal("admitted a request whose prompt cannot fit the cache")
	}
}

// TestFirstChunkEnoughBefore019: before scheduler_reserve_full_isl a
// waiting request needs only its first chunk's blocks; the one admitted
// beside a decode that the cache cannot hold whole is preempted when a
// later chunk runs out, and runs once the decode is done.
func TestFirstChunkEnoughBefore019(t *testing.T) {
	for _, gate := range []bool{true, false} {
		e, done := testEngine(t, 6, 16, 8)
		e.reserveFullISL = gate
		a := newTestSeq(0, 8, 50, 0) // 1 block, 4 by its end
		e.enqueue(a, 0)
		step(t, e)
		step(t, e)
		b := newTestSeq(1, 100, 5, 0) // 7 blocks: never beside a
		e.enqueue(b, e.now)
		step(t, e)
		if admitted := b.newTokens > 0; admitted == gate {
			t.Fatalf("reserve full ISL %v: b admitted %v on a 1-block first chunk", gate, admitted)
		}
		for i := 0; len(*done) < 2; i++ {
			if i > 1000 {
				t.Fatalf("reserve full ISL %v: not done after 1,000 steps", gate)
			}
			step(t, e)
		}
		if (e.preemptions > 0) == gate {
			t.Errorf("reserve full ISL %v: %d preemptions", gate, e.preemptions)
		}
	}
}

func TestLookaheadSlotsReserved(t *testing.T) {
	e, _ := testEngine(t, 100, 16, 1024)
	e.specK, e.lookahead = 3, 3
	var err error
	if e.sampler, err = NewAcceptanceSampler([]float64{0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	s := newTestSeq(0, 42, 100, 0)
	e.enqueue(s, 0)
	step(t, e) // prefill
	step(t, e) // first token; the first decode with 3 drafts is in flight
	if s.newTokens != 4 || s.drafts != 3 {
		t.Fatalf("scheduled %d tokens with %d drafts, want 1+3", s.newTokens, s.drafts)
	}
	// Scheduled 1+3 tokens from computed 42, plus 3 look-ahead slots: 49
	// slots take a fourth block, which 46 would not.
	if want := 42 + 4 + 3; s.slots != want || s.blocks != 4 {
		t.Fatalf("slots %d blocks %d, want %d slots in 4 blocks (computed + 1 + K + lookahead)", s.slots, s.blocks, want)
	}
	step(t, e)
	if s.generated != 2 || s.computed != s.numTokens-1 {
		t.Fatalf("all drafts rejected: generated %d computed %d numTokens %d", s.generated, s.computed, s.numTokens)
	}
}

func TestPrefixCacheHit(t *testing.T) {
	e, done := testEngine(t, 100, 16, 4096)
	a := newTestSeq(0, 100, 0, 2)
	a.prefixID, a.prefixTokens = "sys", 64
	e.enqueue(a, 0)
	for len(*done) == 0 {
		step(t, e)
	}
	b := newTestSeq(1, 90, 0, 2)
	b.prefixID, b.prefixTokens = "sys", 64
	e.enqueue(b, e.now)
	step(t, e)
	// A 4-block hit: b computes only its 26 other tokens, in one chunk.
	if b.computed != 64 || b.newTokens != 26 || b.shared != 4 {
		t.Fatalf("b computed %d scheduled %d shared %d, want 64, 26, 4", b.computed, b.newTokens, b.shared)
	}
	step(t, e)
	if b.firstToken != e.now {
		t.Fatal("b should get its first token after one step")
	}
}

// preemptSecond runs e on a 96-token request that grows to 116 and a
// 40-token one that grows to 140, until a's growth preempts b; it returns b.
func preemptSecond(t *testing.T, e *engine) *seq {
	t.Helper()
	a, b := newTestSeq(0, 96, 20, 0), newTestSeq(1, 40, 100, 0)
	e.enqueue(a, 0)
	e.enqueue(b, 0)
	for e.preemptions == 0 {
		step(t, e)
	}
	return b
}

func TestResumeHitsOwnBlocks(t *testing.T) {
	// a grows into b's room and preempts it; b waits until a finishes, then
	// resumes with a hit on the full blocks it left behind.
	e, _ := testEngine(t, 11, 16, 1024)
	b := preemptSecond(t, e)
	if b.own == nil || b.own.blocks != 3 {
		t.Fatalf("b should have left its 3 full blocks cached, got %+v", b.own)
	}
	lost := b.lostTokens
	for !b.running {
		step(t, e)
	}
	if want := lost - 48; b.recomputed != want {
		t.Fatalf("recomputed %d of %d lost tokens, want %d (3 blocks hit)", b.recomputed, lost, want)
	}
}

// TestResumeHitsOwnBlocksSlidingWindow: a model with sliding-window groups
// gets no shared-prefix hits but a preempted request still resumes from
// its own cached blocks, as TestResumeHitsOwnBlocks on a full-attention
// layout; with prefix caching off it recomputes everything.
func TestResumeHitsOwnBlocksSlidingWindow(t *testing.T) {
	for _, caching := range []bool{true, false} {
		e, _ := testEngine(t, 22, 16, 1024)
		e.layout = KVLayout{BlockSize: 16, FullGroups: 1, SlidingGroups: 1, SlidingBlocksCap: 64, SlidingWindow: 128}
		e.prefixCaching, e.resumeHits = false, caching
		b := preemptSecond(t, e)
		lost := b.lostTokens
		for !b.running {
			step(t, e)
		}
		want := lost
		if caching {
			want = lost - 48 // its 3 full blocks hit
		}
		if b.recomputed != want {
			t.Errorf("prefix caching %v: recomputed %d of %d lost tokens, want %d", caching, b.recomputed, lost, want)
		}
	}
}

func TestEvictedOwnBlocksAreRecomputed(t *testing.T) {
	// As above, but a third request takes the room before b resumes, so b's
	// cached blocks are evicted (least recently used first) and b
	// recomputes everything.
	e, _ := testEngine(t, 11, 16, 1024)
	b := preemptSecond(t, e)
	lost := b.lostTokens
	// Another user takes every free block, the LRU ones included, and gives
	// them back unhashed.
	n := e.pool.available()
	e.pool.take(n)
	e.pool.release(n)
	if b.own.blocks != 0 {
		t.Fatalf("own blocks survived eviction: %d", b.own.blocks)
	}
	for !b.running {
		step(t, e)
	}
	if b.recomputed != lost {
		t.Fatalf("recomputed %d, want all %d lost tokens", b.recomputed, lost)
	}
}

func TestPriorityPolicyPreemptsLowestPriority(t *testing.T) {
	// b (priority 1) is admitted first, a (priority 0) later, so a is the
	// running tail: FCFS would preempt a, PRIORITY preempts b.
	for _, tc := range []struct {
		priority bool
		victim   int
	}{{false, 0}, {true, 1}} {
		e, _ := testEngine(t, 10, 16, 1024)
		e.priority = tc.priority
		if tc.priority {
			e.waiting = &startedQueue{waitQueue: &priorityQueue{}}
		}
		b := newTestSeq(1, 64, 200, 0)
		b.priority = 1
		e.enqueue(b, 0)
		step(t, e)
		a := newTestSeq(0, 64, 200, 0)
		a.arrival = e.now
		e.enqueue(a, e.now)
		for e.preemptions == 0 {
			step(t, e)
		}
		got := a
		if b.preemptions > 0 {
			got = b
		}
		if got.idx != tc.victim || got.running {
			t.Fatalf("priority=%v: preempted request %d, want %d", tc.priority, got.idx, tc.victim)
		}
	}
}

// TestAsyncAdmissionLag: under async scheduling a request that reaches the
// engine while a step runs joins the step after the next one (vLLM
// schedules the next step as the current one starts); without it, the
// next step; an idle engine takes it at once either way, and so does an
// engine whose lagged step holds nothing.
func TestAsyncAdmissionLag(t *testing.T) {
	for _, lag := range []bool{false, true} {
		e, _ := testEngine(t, 1000, 16, 1024)
		e.admitLag = lag
		a := newTestSeq(0, 64, 1000, 0)
		a.engineArrival = 0
		e.enqueue(a, 0)
		step(t, e) // idle: a's prefill starts at 0
		if a.firstScheduled != 0 {
			t.Fatalf("lag %v: the idle engine scheduled a at %d; want 0", lag, a.firstScheduled)
		}
		// b reaches the engine 3 ms into a's first step.
		b := newTestSeq(1, 64, 1000, 0)
		b.engineArrival = 3_000_000
		e.enqueue(b, b.engineArrival)
		for b.firstScheduled < 0 {
			step(t, e)
		}
		want := int64(testStep) // the step after a's prefill
		if lag {
			want = 2 * testStep // one step later
		}
		if b.firstScheduled != want {
			t.Errorf("lag %v: b scheduled at %d ms; want %d ms", lag, b.firstScheduled/1e6, want/1e6)
		}
	}
	// Alone: a request arriving during the last step of another that then
	// finishes is taken at the next boundary: the lagged step holds
	// nothing thinkcap runs (vLLM's holds the finished request's wasted
	// decode, which docs/model-limits.md names).
	e, _ := testEngine(t, 1000, 16, 1024)
	e.admitLag = true
	a := newTestSeq(0, 16, 1, 0) // prefill, then done
	e.enqueue(a, 0)
	step(t, e)
	b := newTestSeq(1, 16, 10, 0)
	b.engineArrival = 1_000_000
	e.enqueue(b, b.engineArrival)
	for b.firstScheduled < 0 {
		step(t, e)
	}
	if b.firstScheduled != testStep {
		t.Errorf("after an empty lagged step: b scheduled at %d ms; want 10", b.firstScheduled/1e6)
	}
}

// TestNeverFitsAloneRejected: a first-chunk admission (before 0.19) of a
// prompt larger than the whole cache preempts itself with nothing else
// running; it is rejected rather than admitted again for ever.
func TestNeverFitsAloneRejected(t *testing.T) {
	e, done := testEngine(t, 4, 16, 16)
	e.reserveFullISL = false
	s := newTestSeq(0, 80, 5, 0) // 5 blocks > 4
	e.enqueue(s, 0)
	for i := 0; len(*done) == 0; i++ {
		if i > 100 {
			t.Fatal("not rejected after 100 steps")
		}
		step(t, e)
	}
	if !s.rejected {
		t.Fatal("finished without being rejected")
	}
}
