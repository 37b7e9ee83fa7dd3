package fidelity

import (
	"math"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// A ShareGPT record's replay sends only prompts vLLM's sampler keeps, and
// they average the record's means.
func TestShareGPTReplayKeepsVLLMFilter(t *testing.T) {
	for _, c := range []struct{ in, out float64 }{
		{219.2, 200.8}, // GPUStack's DeepSeek-R1 burst
		{228.4, 213.4},
		{600, 900}, // means near the filter's bounds
		{500, 300},
	} {
		r := &Record{ID: "sharegpt-test", Workload: Load{
			Dataset: "sharegpt", NumPrompts: 4000,
			InputLen: Length{Mean: c.in}, OutputLen: Length{Mean: c.out},
		}}
		reqs, err := requests(r)
		if err != nil {
			t.Fatal(err)
		}
		var sumIn, sumOut float64
		for _, q := range reqs {
			if !workload.ValidLengths(q.PromptTokens, q.AnswerTokens) {
				t.Fatalf("means %v: sent a prompt of %d and output of %d, which vLLM's ShareGPT sampler skips", c, q.PromptTokens, q.AnswerTokens)
			}
			sumIn += float64(q.PromptTokens)
			sumOut += float64(q.AnswerTokens)
		}
		n := float64(len(reqs))
		if e := math.Abs(sumIn/n/c.in - 1); e > 0.04 {
			t.Errorf("means %v: prompts average %.1f", c, sumIn/n)
		}
		if e := math.Abs(sumOut/n/c.out - 1); e > 0.04 {
			t.Errorf("means %v: outputs average %.1f", c, sumOut/n)
		}
	}
}

// Means the filter cannot produce fall back to the unfiltered draw.
func TestShareGPTFilterRefusesImpossibleMeans(t *testing.T) {
	for _, c := range []struct{ in, out float64 }{{2000, 100}, {3, 200}, {1000, 1500}} {
		if _, ok := newShareGPTLengths(c.in, c.out); ok {
			t.Errorf("means %v: accepted, but no pair vLLM keeps averages them", c)
		}
	}
}
