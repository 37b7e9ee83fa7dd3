package sim

import (
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

// TestHeldForFreesOutOfWindow: a sliding-window group holds the blocks
// from the first one inside the window of the next token on; the blocks
// wholly before it are freed (remove_skipped_blocks), while a full group
// holds every block.
func TestHeldForFreesOutOfWindow(t *testing.T) {
	l := KVLayout{BlockSize: 16, FullGroups: 1, SlidingGroups: 1, SlidingBlocksCap: 1033, SlidingWindow: 128}
	for _, c := range []struct{ slots, computed, want int }{
		{100, 0, 7 + 7},          // a first chunk: nothing computed, nothing skipped
		{128, 127, 8 + 8},        // the window not yet past its first token
		{313, 312, 20 + 20 - 11}, // (312 − 127) / 16 = 11 blocks skipped
		{32001, 32000, 2001 + 2001 - 1992},
		{8192 + 100, 100, 519 + 519}, // a prefill chunk holds all it writes
	} {
		if got := l.HeldFor(c.slots, c.computed); got != c.want {
			t.Errorf("HeldFor(%d, %d) = %d; want %d", c.slots, c.computed, got, c.want)
		}
	}
	plain := KVLayout{BlockSize: 16, FullGroups: 1}
	if got := plain.HeldFor(32001, 32000); got != 2001 {
		t.Errorf("full attention: HeldFor = %d; want 2001", got)
	}
}

// TestSlidingWindowKeepsMoreRunning: ten gpt-oss-20b decodes of 2,000
// tokens fit in 1,500 blocks only because their sliding group frees its
// out-of-window blocks (about 141 blocks each at the end, against 264 if
// it kept them all): none is preempted, while 1,300 blocks preempt.
func TestSlidingWindowKeepsMoreRunning(t *testing.T) {
	cfg := refResolved(t, Config{Model: simtest.Model(t, "gpt-oss-20b"), GPU: simtest.GPU(t, "h100-sxm"), NumGPUBlocksOverride: 1500})
	reqs := make([]workload.Request, 10)
	for i := range reqs {
		reqs[i] = workload.Request{PromptTokens: 100, AnswerTokens: 2000}
	}
	rep, err := Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Preemptions != 0 {
		t.Errorf("%d preemptions; the sliding group's freed blocks leave room for all ten", rep.Preemptions)
	}
	// 1,300 blocks, under ten times the 141 each holds at the end, do
	// preempt: the window is what made the room.
	cfg.NumGPUBlocksOverride = 1300
	rep, err = Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Preemptions == 0 {
		t.Error("no preemption in 1,300 blocks: the test does not test the window")
	}
}
