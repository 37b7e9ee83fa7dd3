package loadgen

import (
	"math"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// channel is where a chunk's text goes.
type channel uint8

const (
	// chMaybe is inline text not yet known to be thinking or answer: text
	// before any tag, which a later </think> makes thinking (templates such
	// as DeepSeek-R1's open <think> in the prompt) and the end of the
	// stream makes answer.
	chMaybe channel = iota
	chThink
	chAnswer
	numChannels
)

// channelStats accumulates one channel.
type channelStats struct {
	chunks      int // token-bearing chunks with text in this channel
	usage       int // completion tokens attributed by continuous usage
	first, last time.Time
	text        []byte // only with SaveText
}

// add merges o into c.
func (c *channelStats) add(o *channelStats) {
	c.chunks += o.chunks
	c.usage += o.usage
	if c.first.IsZero() || (!o.first.IsZero() && o.first.Before(c.first)) {
		c.first = o.first
	}
	if o.last.After(c.last) {
		c.last = o.last
	}
	if len(o.text) > 0 {
		// o's text came first; a new buffer, since o keeps reusing its own.
		t := make([]byte, 0, len(o.text)+len(c.text))
		c.text = append(append(t, o.text...), c.text...)
	}
	*o = channelStats{text: o.text[:0]}
}

// stream accumulates one response's chunks. It is reused across requests
// (reset) so that measuring allocates nothing per token.
type stream struct {
	parser   bool // the server splits reasoning out (delta.reasoning)
	saveText bool
	inline   inlineThink

	ch          [numChannels]channelStats
	firstToken  time.Time
	lastToken   time.Time
	thinkEnd    time.Time
	tokenEvents int
	itl         itlStats
	gaps        *GapHistogram // the run's, shared by every stream

	usage      vllmapi.UsageCounts
	hasUsage   bool
	continuous bool // usage came on chunks with choices
	tokenUsage int  // token-bearing chunks that carried usage
	prevTokens int  // last cumulative completion_tokens
	finish     string
	errMsg     string
	done       bool // [DONE] seen
}

func (s *stream) reset(parser, saveText bool, open, close string) {
	texts := [numChannels][]byte{}
	for i := range s.ch {
		texts[i] = s.ch[i].text[:0]
	}
	inl := s.inline
	*s = stream{parser: parser, saveText: saveText}
	for i := range s.ch {
		s.ch[i].text = texts[i]
	}
	inl.reset(open, close)
	s.inline = inl
	s.itl.reset()
}

// chunk takes one decoded chunk received at at.
func (s *stream) chunk(v *vllmapi.ChunkView, at time.Time) {
	if v.HasError {
		s.errMsg = errorText(v.Error)
		return
	}
	var marks [numChannels]bool
	if v.Choices > 0 {
		if len(v.Reasoning) > 0 {
			marks[chThink] = true
			s.save(chThink, v.Reasoning)
		}
		if len(v.Content) > 0 {
			s.content(v.Content, &marks)
		}
		if v.ToolCalls > 0 {
			marks[chAnswer] = true
		}
		if v.FinishReason != nil {
			s.finish = finishReason(v.FinishReason)
		}
	}
	token := marks[chMaybe] || marks[chThink] || marks[chAnswer]
	if token {
		s.tokenEvents++
		if s.firstToken.IsZero() {
			s.firstToken = at
		} else {
			s.itl.add(at.Sub(s.lastToken))
			s.gaps.Add(at.Sub(s.lastToken))
		}
		s.lastToken = at
		for c, ok := range marks {
			if !ok {
				continue
			}
			st := &s.ch[c]
			st.chunks++
			if st.first.IsZero() {
				st.first = at
			}
			st.last = at
		}
		if marks[chThink] {
			s.thinkEnd = at
		}
	}
	if v.HasUsage {
		if token {
			s.tokenUsage++
		}
		s.takeUsage(v, &marks, token)
	}
}

// content classifies answer-field text: all answer when the server parses
// reasoning, else split around inline <think>…</think>.
func (s *stream) content(t []byte, marks *[numChannels]bool) {
	if s.parser {
		marks[chAnswer] = true
		s.save(chAnswer, t)
		return
	}
	head := chMaybe
	if s.inline.state == inThink {
		head = chThink
	}
	if s.inline.state == inAnswer {
		marks[chAnswer] = true
		s.save(chAnswer, t)
		return
	}
	n, opened, closed := s.inline.feed(t)
	if n > 0 {
		marks[head] = true
		s.save(head, t[:n])
	}
	if head == chMaybe && (opened || closed) {
		// The undecided text was thinking; this chunk's head with it.
		marks[chMaybe], marks[chThink] = false, marks[chThink] || n > 0
		s.mergeMaybe(chThink)
	}
	if n < len(t) {
		marks[chAnswer] = true
		s.save(chAnswer, t[n:])
	}
}

// mergeMaybe resolves the undecided channel into to.
func (s *stream) mergeMaybe(to channel) {
	m := &s.ch[chMaybe]
	if to == chThink && m.last.After(s.thinkEnd) {
		s.thinkEnd = m.last
	}
	s.ch[to].add(m)
}

// takeUsage keeps the last usage and, when usage rides on content chunks
// (continuous_usage_stats), attributes each chunk's new completion tokens
// to its channel: exact think/answer counts even when a chunk carries
// several tokens (speculative decoding).
func (s *stream) takeUsage(v *vllmapi.ChunkView, marks *[numChannels]bool, token bool) {
	if v.Choices > 0 {
		s.continuous = true
	}
	delta := v.Usage.CompletionTokens - s.prevTokens
	s.prevTokens = max(s.prevTokens, v.Usage.CompletionTokens)
	s.usage, s.hasUsage = v.Usage, true
	if !s.continuous || delta <= 0 {
		return
	}
	switch {
	case token && marks[chAnswer] && (marks[chThink] || marks[chMaybe]):
		// The chunk ended thinking and began the answer: one token to the
		// answer, the rest to the thinking.
		head := chThink
		if marks[chMaybe] {
			head = chMaybe
		}
		s.ch[chAnswer].usage++
		s.ch[head].usage += delta - 1
	case token:
		for c, ok := range marks {
			if ok {
				s.ch[c].usage += delta
				break
			}
		}
	default:
		// Tokens without text (a swallowed <think>, a special token) belong
		// to the phase the stream is in.
		s.ch[s.phase()].usage += delta
	}
}

// phase is the channel of the latest text.
func (s *stream) phase() channel {
	switch {
	case s.ch[chAnswer].chunks > 0:
		return chAnswer
	case s.ch[chThink].chunks > 0 || s.inline.state == inThink:
		return chThink
	}
	return chMaybe
}

func (s *stream) save(c channel, t []byte) {
	if s.saveText {
		s.ch[c].text = append(s.ch[c].text, t...)
	}
}

// unclosed reports whether the stream ended inside thinking: an inline
// <think> never closed, or reasoning with no answer after it.
func (s *stream) unclosed() bool {
	if !s.parser && s.inline.state == inThink {
		return true
	}
	return s.ch[chThink].chunks > 0 && s.ch[chAnswer].chunks == 0 && s.ch[chMaybe].chunks == 0
}

// finishInto fills m's token counts, token times and ITL summary, and
// reports whether the stream ended inside thinking.
func (s *stream) finishInto(m *Measurement) (unclosed bool) {
	unclosed = s.unclosed()
	// Text never followed by a tag was the answer.
	s.mergeMaybe(chAnswer)
	think, answer := &s.ch[chThink], &s.ch[chAnswer]
	m.FirstToken, m.LastToken = s.firstToken, s.lastToken
	m.FirstAnswer = answer.first
	if think.chunks > 0 {
		m.ThinkEnd = s.thinkEnd
	}
	m.TokenEvents = s.tokenEvents
	m.FinishReason = s.finish
	if s.hasUsage {
		m.TokenSource = TokenSourceUsage
		total := max(s.usage.CompletionTokens, 0)
		var t int
		switch {
		case answer.chunks == 0 && think.chunks > 0:
			t = total // all thinking
		case think.chunks == 0:
			t = 0 // all answer
		case s.usage.HasReasoningTokens:
			t = s.usage.ReasoningTokens
		case s.tokenUsage == s.tokenEvents:
			// Every token chunk carried the cumulative usage: its
			// increments were attributed chunk by chunk. (A server that puts
			// usage on its last content chunk only does not qualify.)
			t = think.usage
		case 4*total > 5*(think.chunks+answer.chunks)+16:
			// Usage has no split and exceeds the deltas by more than a
			// quarter and four: deltas carried several tokens (speculative decoding
			// accepts several per step, or stream_interval > 1). Split the
			// total in the deltas' proportion, the same tokens per delta on
			// both sides. (A small excess is tokens the server streamed no
			// delta for, such as the stripped </think>: counted as answer.)
			t = int(math.Round(float64(total) * float64(think.chunks) / float64(think.chunks+answer.chunks)))
		default:
			// Usage has no split: with stream_interval=1 each reasoning
			// delta is one token.
			t = think.chunks
		}
		t = min(max(t, 0), total)
		m.ThinkTokens, m.AnswerTokens = t, total-t
		m.PromptTokens = max(s.usage.PromptTokens, 0)
		m.CachedTokens = max(s.usage.CachedTokens, 0)
	} else {
		m.TokenSource = TokenSourceCounted
		m.ThinkTokens, m.AnswerTokens = think.chunks, answer.chunks
	}
	m.ITLMeanS, m.ITLP50S, m.ITLP99S, m.ITLMaxS = s.itl.summary()
	if s.saveText {
		m.Reasoning, m.Text = string(think.text), string(answer.text)
	}
	return unclosed
}

// errorText is an in-stream error's message.
func errorText(e vllmapi.ErrorView) string {
	switch {
	case len(e.Message) > 0:
		return string(e.Message)
	case len(e.Type) > 0:
		return "server error: " + string(e.Type)
	}
	return "server sent an error event"
}

// finishReason interns the common finish reasons.
func finishReason(b []byte) string {
	for _, r := range [...]string{vllmapi.FinishStop, vllmapi.FinishLength, vllmapi.FinishToolCalls, vllmapi.FinishAbort, vllmapi.FinishError} {
		if string(b) == r {
			return r
		}
	}
	return string(b)
}
