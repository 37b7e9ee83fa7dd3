package loadgen

import (
	"math"
	"strings"
	"sync"

	"github.com/thinkcap/thinkcap/internal/splitmix"
)

// promptWords are common lowercase English words. Written with a leading
// space, each is assumed to be a single token: byte-level BPE tokenizers
// (Qwen2/2.5/3, Llama 3, DeepSeek) split text at spaces before merging, so
// words never merge with each other, and SentencePiece ones (Llama 2,
// "▁the") split on whitespace too; words this frequent are whole entries in
// those vocabularies. That is an assumption, not checked against each
// tokenizer here: a prompt of n words is about n tokens plus the chat
// template's own, and PromptCalibrator corrects both from the server's
// reported prompt_tokens.
var promptWords = [...]string{
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as",
	"was", "with", "be", "by", "on", "not", "he", "this", "are", "or",
	"his", "from", "at", "which", "but", "have", "an", "had", "they", "you",
	"were", "their", "one", "all", "we", "can", "her", "has", "there", "been",
	"if", "more", "when", "will", "would", "who", "so", "no", "she", "other",
	"its", "may", "these", "what", "them", "than", "some", "him", "time", "into",
	"only", "do", "could", "new", "about", "two", "then", "first", "also", "any",
	"like", "our", "over", "such", "me", "my", "most", "made", "after", "out",
	"years", "just", "where", "should", "very", "many", "well", "state", "how", "your",
	"before", "make", "because", "good", "through", "each", "much", "people", "those", "work",
	"same", "under", "day", "three", "world", "part", "used", "both", "system", "long",
	"between", "life", "water", "place", "while", "back", "case", "own", "great", "house",
	"year", "number", "last", "might", "help", "small", "school", "still", "way", "found",
	"high", "even", "public", "second", "during", "order", "program", "group", "point", "given",
	"road", "city", "change", "power", "play", "money", "large", "family", "line", "land",
	"light", "name", "form", "area", "market", "music", "table", "window", "river", "garden",
}

// SyntheticPrompt returns about tokens tokens of text: words drawn from a
// fixed list by a generator seeded with seed, each " word" one token for
// the tokenizers of the models thinkcap plans for (see promptWords). The
// same arguments give the same text; different seeds diverge from the first
// word, so unrelated requests share no cacheable prefix. tokens <= 0 gives
// "".
func SyntheticPrompt(tokens int, seed uint64) string {
	if tokens <= 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(tokens * 7)
	x := seed ^ 0x6a09e667f3bcc909
	for range tokens {
		// splitmix64: cheap, and well mixed even for consecutive seeds.
		z := splitmix.Next(&x)
		b.WriteByte(' ')
		b.WriteString(promptWords[z%uint64(len(promptWords))])
	}
	return b.String()
}

// PromptCalibrator learns how the server counts synthetic prompts, from
// the prompt_tokens it reports, so that later prompts hit their target:
// reported ≈ overhead + ratio × words, where the overhead is the chat
// template's tokens and the ratio corrects a tokenizer that splits some
// words. It fits both by least squares over what it has seen (the ratio
// only once the word counts vary; 1 before), and is safe for concurrent
// use. The zero value is ready and asks for the target itself.
type PromptCalibrator struct {
	mu                       sync.Mutex
	n                        float64
	sumX, sumY, sumXX, sumXY float64
}

// Ratio bounds: outside them the observations are not about this prompt
// generator (a server that truncates, or a different text).
const (
	minPromptRatio = 0.25
	maxPromptRatio = 4
)

// Observe records that a prompt of words synthetic words was reported as
// reported prompt tokens. Non-positive values are ignored.
func (c *PromptCalibrator) Observe(words, reported int) {
	if words <= 0 || reported <= 0 {
		return
	}
	x, y := float64(words), float64(reported)
	c.mu.Lock()
	c.n++
	c.sumX += x
	c.sumY += y
	c.sumXX += x * x
	c.sumXY += x * y
	c.mu.Unlock()
}

// Fit returns the learned overhead (tokens) and ratio (tokens per word).
func (c *PromptCalibrator) Fit() (overhead, ratio float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return 0, 1
	}
	meanX, meanY := c.sumX/c.n, c.sumY/c.n
	ratio = 1
	// Fit a slope only when the word counts spread by more than a few
	// percent; else their noise would make it up.
	if varX := c.sumXX/c.n - meanX*meanX; varX > 0 && math.Sqrt(varX) > 0.05*meanX {
		ratio = (c.sumXY/c.n - meanX*meanY) / varX
		ratio = min(max(ratio, minPromptRatio), maxPromptRatio)
	}
	return meanY - ratio*meanX, ratio
}

// Words is how many synthetic words to ask SyntheticPrompt for so that the
// server reports about target prompt tokens; at least 1 for a positive
// target.
func (c *PromptCalibrator) Words(target int) int {
	if target <= 0 {
		return 0
	}
	overhead, ratio := c.Fit()
	w := int(math.Round((float64(target) - overhead) / ratio))
	return max(w, 1)
}

// Prompt returns a synthetic prompt calibrated to target tokens and the
// number of words in it (to Observe against the reported count).
func (c *PromptCalibrator) Prompt(target int, seed uint64) (text string, words int) {
	words = c.Words(target)
	return SyntheticPrompt(words, seed), words
}
