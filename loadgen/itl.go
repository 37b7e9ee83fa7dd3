package loadgen

import (
	"bytes"
	"slices"
	"time"

	"github.com/thinkcap/thinkcap/internal/splitmix"
)

// itlReservoir is how many gaps the ITL percentiles keep: every gap of a
// stream of up to 513 tokens (the median reasoning request), a uniform
// sample beyond. 2 KiB per stream in flight.
const itlReservoir = 512

// itlStats summarises inter-token gaps in fixed memory: exact count, mean
// and max, and percentiles from a uniform reservoir sample (Vitter's
// algorithm R with a fixed-seed generator, so a run is reproducible).
type itlStats struct {
	n        int
	sum, max float64
	rng      uint64
	res      [itlReservoir]float32
}

func (s *itlStats) reset() { s.n, s.sum, s.max, s.rng = 0, 0, 0, splitmix.Gamma }

func (s *itlStats) add(d time.Duration) {
	g := max(d.Seconds(), 0)
	s.n++
	s.sum += g
	s.max = max(s.max, g)
	if s.n <= itlReservoir {
		s.res[s.n-1] = float32(g)
		return
	}
	if j := splitmix.Next(&s.rng) % uint64(s.n); j < itlReservoir {
		s.res[j] = float32(g)
	}
}

// summary returns mean, p50, p99 and max in seconds (zeros without gaps).
func (s *itlStats) summary() (mean, p50, p99, mx float64) {
	if s.n == 0 {
		return 0, 0, 0, 0
	}
	k := min(s.n, itlReservoir)
	r := s.res[:k]
	slices.Sort(r)
	return s.sum / float64(s.n), quantile(r, 0.50), quantile(r, 0.99), s.max
}

// quantile interpolates linearly between closest ranks of sorted.
func quantile(sorted []float32, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return float64(sorted[len(sorted)-1])
	}
	f := pos - float64(i)
	return float64(sorted[i])*(1-f) + float64(sorted[i+1])*f
}

// inlineState is where an inline-tagged text stream is.
type inlineState uint8

const (
	inStart  inlineState = iota // nothing but whitespace or part of the open tag yet
	inMaybe                     // text without an open tag: thinking only if a close tag follows
	inThink                     // inside an explicit open tag
	inAnswer                    // after the close tag
)

// inlineThink splits content around inline thinking tags for servers run
// without a reasoning parser, where the model's <think>…</think> arrives
// in delta.content. Tags may be split across chunks; an open tag counts
// only at the start (after whitespace), so an answer that quotes one is
// not thinking; a close tag with no open tag ends thinking that the chat
// template opened in the prompt (DeepSeek-R1 distills, Qwen3 thinking
// 2507), which vLLM's deepseek_r1 parser also assumes
// (vllm/reasoning/deepseek_r1_reasoning_parser.py).
type inlineThink struct {
	open, close []byte
	state       inlineState
	opened      int    // bytes of the open tag matched in inStart
	tail        []byte // the last len(close)-1 bytes, for a close tag split across chunks
	window      []byte
}

func (p *inlineThink) reset(open, close string) {
	p.open = append(p.open[:0], open...)
	p.close = append(p.close[:0], close...)
	p.state, p.opened = inStart, 0
	p.tail = p.tail[:0]
}

// feed consumes t, in any state but inAnswer. It returns how many leading
// bytes belong to the phase the text started in, up to and including a
// close tag; the rest is answer. opened and closed report the tags
// completed in t.
func (p *inlineThink) feed(t []byte) (n int, opened, closed bool) {
	i := 0
	if p.state == inStart {
		for ; i < len(t); i++ {
			c := t[i]
			if p.opened == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
				continue
			}
			if p.opened < len(p.open) && c == p.open[p.opened] {
				if p.opened++; p.opened == len(p.open) {
					p.state, opened = inThink, true
					p.tail = p.tail[:0]
					i++
					break
				}
				continue
			}
			// Not an open tag: the text so far may still begin a close tag.
			p.state = inMaybe
			p.keepTail(p.open[:p.opened])
			break
		}
		if p.state == inStart {
			return len(t), false, false
		}
	}
	e := p.findClose(t[i:])
	if e < 0 {
		return len(t), opened, false
	}
	p.state = inAnswer
	return i + e, opened, true
}

// findClose returns the offset in t just past the first close tag that
// ends in t (possibly begun in earlier text), or -1.
func (p *inlineThink) findClose(t []byte) int {
	if len(p.close) == 0 {
		return -1
	}
	if len(p.tail) > 0 {
		k := min(len(t), len(p.close)-1)
		p.window = append(append(p.window[:0], p.tail...), t[:k]...)
		if j := bytes.Index(p.window, p.close); j >= 0 {
			return j + len(p.close) - len(p.tail)
		}
	}
	if j := bytes.Index(t, p.close); j >= 0 {
		return j + len(p.close)
	}
	p.keepTail(t)
	return -1
}

// keepTail appends t to the tail, keeping its last len(close)-1 bytes.
func (p *inlineThink) keepTail(t []byte) {
	keep := len(p.close) - 1
	if keep <= 0 {
		p.tail = p.tail[:0]
		return
	}
	if len(t) >= keep {
		p.tail = append(p.tail[:0], t[len(t)-keep:]...)
		return
	}
	p.tail = append(p.tail, t...)
	if over := len(p.tail) - keep; over > 0 {
		p.tail = p.tail[:copy(p.tail, p.tail[over:])]
	}
}
