package loadgen

import (
	"math"
	"strings"
	"sync"
	"testing"
)

func TestSyntheticPrompt(t *testing.T) {
	for _, n := range []int{0, -5} {
		if p := SyntheticPrompt(n, 1); p != "" {
			t.Errorf("%d tokens: %q", n, p)
		}
	}
	known := map[string]bool{}
	for _, w := range promptWords {
		if w == "" || strings.ToLower(w) != w || strings.ContainsAny(w, " \t\n") || known[w] {
			t.Errorf("word %q: empty, not lowercase, spaced or repeated", w)
		}
		known[w] = true
	}
	for _, n := range []int{1, 7, 1000, 32768} {
		p := SyntheticPrompt(n, 42)
		words := strings.Fields(p)
		if len(words) != n || !strings.HasPrefix(p, " ") || strings.Contains(p, "  ") {
			t.Fatalf("%d tokens: %d words", n, len(words))
		}
		for _, w := range words {
			if !known[w] {
				t.Fatalf("unknown word %q", w)
			}
		}
		if SyntheticPrompt(n, 42) != p {
			t.Errorf("%d tokens: not deterministic", n)
		}
	}
	// Different seeds share no cacheable prefix: they differ within the
	// first few words (prefix caching works in 16-token blocks).
	same := 0
	for seed := range uint64(1000) {
		a, b := strings.Fields(SyntheticPrompt(16, seed)), strings.Fields(SyntheticPrompt(16, seed+1))
		if strings.Join(a[:4], " ") == strings.Join(b[:4], " ") {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of 1000 consecutive seed pairs share 4 leading words", same)
	}
	// The words are used evenly.
	counts := map[string]int{}
	for _, w := range strings.Fields(SyntheticPrompt(160000, 7)) {
		counts[w]++
	}
	for w, c := range counts {
		if c < 700 || c > 1300 {
			t.Errorf("word %q used %d times of 160000, want about 1000", w, c)
		}
	}
}

func TestPromptCalibrator(t *testing.T) {
	var c PromptCalibrator
	if w := c.Words(500); w != 500 {
		t.Errorf("uncalibrated: %d words for 500 tokens", w)
	}
	if c.Words(0) != 0 || c.Words(-3) != 0 {
		t.Error("non-positive target")
	}
	// A chat template adds 12 tokens.
	c.Observe(1000, 1012)
	if w := c.Words(500); w != 488 {
		t.Errorf("after one observation: %d words, want 488", w)
	}
	if w := c.Words(5); w != 1 {
		t.Errorf("tiny target: %d words, want at least 1", w)
	}
	// A tokenizer that splits 10% of words, plus the template: a fit over
	// varied lengths recovers both.
	var d PromptCalibrator
	for _, words := range []int{100, 400, 1600, 6400, 200, 3000} {
		d.Observe(words, int(math.Round(12+1.1*float64(words))))
	}
	overhead, ratio := d.Fit()
	if math.Abs(overhead-12) > 1 || math.Abs(ratio-1.1) > 0.001 {
		t.Errorf("fit overhead %v ratio %v, want 12 and 1.1", overhead, ratio)
	}
	if w := d.Words(2212); w != 2000 {
		t.Errorf("%d words for 2212 tokens, want 2000", w)
	}
	// Nonsense is bounded.
	var e PromptCalibrator
	e.Observe(100, 1)
	e.Observe(10000, 2)
	if _, ratio := e.Fit(); ratio < minPromptRatio || ratio > maxPromptRatio {
		t.Errorf("ratio %v out of bounds", ratio)
	}
	e.Observe(0, 10)
	e.Observe(10, -1)

	// Safe for concurrent use (go test -race).
	var f PromptCalibrator
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				f.Observe(100+i*j, 110+i*j)
				_, _ = f.Prompt(300, uint64(j))
			}
		})
	}
	wg.Wait()
	text, words := f.Prompt(300, 9)
	if len(strings.Fields(text)) != words || words < 250 || words > 300 {
		t.Errorf("calibrated prompt: %d words", words)
	}
}
