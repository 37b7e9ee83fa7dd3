package loadgen

import (
	"bytes"
	"slices"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

// Token sources of a Measurement.
const (
	// TokenSourceUsage: counts from the server's usage (completion_tokens,
	// and for the think/answer split its reasoning_tokens or continuous
	// usage deltas when it sends them, else the counted deltas).
	TokenSourceUsage = "usage"
	// TokenSourceCounted: no usage arrived; each token-bearing chunk counts
	// one token, which is exact with vLLM's default stream_interval=1 and
	// no speculative decoding, and an undercount otherwise.
	TokenSourceCounted = "counted"
)

// Measurement is what the client saw of one request. Times are wall-clock
// readings with Go's monotonic component, so differences are immune to
// clock steps; a zero time means the event did not happen.
type Measurement struct {
	// Sent is just before the request was handed to the HTTP client;
	// Headers when the response headers arrived; FirstByte when the first
	// bytes of the body arrived (with vLLM, the role chunk sent with the
	// first engine output).
	Sent, Headers, FirstByte time.Time
	// FirstToken is the first chunk carrying any generated text (reasoning,
	// answer or tool call): role-only and empty deltas are not tokens.
	FirstToken time.Time
	// FirstAnswer is the first chunk carrying answer text: what a user sees
	// first when thinking is hidden.
	FirstAnswer time.Time
	// ThinkEnd is the last chunk of thinking (the one that closed an inline
	// </think>).
	ThinkEnd time.Time
	// LastToken is the last token-bearing chunk: E2E ends here, not at the
	// usage chunk or [DONE].
	LastToken time.Time
	// End is when the client was done with the request, failed or not.
	End time.Time

	// Tokens generated (ThinkTokens + AnswerTokens is the output) and in
	// the prompt, from TokenSource; never the requested lengths.
	ThinkTokens, AnswerTokens, PromptTokens int
	// CachedTokens is the prompt's prefix-cache hit, when the server
	// reports it (--enable-prompt-tokens-details).
	CachedTokens int
	TokenSource  string
	// TokenEvents counts the token-bearing chunks.
	TokenEvents int

	// Inter-token latency over the gaps between consecutive token-bearing
	// chunks, in seconds: mean and max exact, percentiles from a fixed
	// reservoir (exact up to itlReservoir gaps).
	ITLMeanS, ITLP50S, ITLP99S, ITLMaxS float64

	// Status is a workload.Status* value.
	Status string
	// HTTPStatus is the response status; 0 when none arrived.
	HTTPStatus int
	// Error is the failure: the server's message for HTTP errors and
	// in-stream errors, else what went wrong on the client's side.
	Error        string
	FinishReason string
	// Text and Reasoning are the answer and the thinking, kept only when
	// the request asked (Request.SaveText).
	Text, Reasoning string
}

// OK reports whether the request completed successfully.
func (m *Measurement) OK() bool { return m.Status == workload.StatusOK }

// Latencies are a request's latencies in seconds, measured from a chosen
// origin: the scheduled time (what a user waits, free of coordinated
// omission) or the sent time (what most tools report).
type Latencies struct {
	TTFTS, TTFAS, ThinkS, TPOTS, E2ES float64
}

// Latencies measures m from the origin from. Absent events give 0. E2E
// ends at the last token of a request that produced one and ended well,
// else when the client gave up on it.
func (m *Measurement) Latencies(from time.Time) Latencies {
	var l Latencies
	if from.IsZero() {
		return l
	}
	if !m.FirstToken.IsZero() {
		l.TTFTS = seconds(m.FirstToken.Sub(from))
	}
	if !m.FirstAnswer.IsZero() {
		l.TTFAS = seconds(m.FirstAnswer.Sub(from))
	}
	// Thinking lasts from the first token to the first answer token (to the
	// last token when there is no answer), as sim/run.go resultOf says.
	switch {
	case m.ThinkTokens == 0 || m.FirstToken.IsZero():
	case !m.FirstAnswer.IsZero():
		l.ThinkS = seconds(m.FirstAnswer.Sub(m.FirstToken))
	default:
		l.ThinkS = seconds(m.LastToken.Sub(m.FirstToken))
	}
	if n := m.ThinkTokens + m.AnswerTokens; n > 1 && !m.FirstToken.IsZero() {
		l.TPOTS = seconds(m.LastToken.Sub(m.FirstToken)) / float64(n-1)
	}
	switch {
	case !m.LastToken.IsZero() && (m.Status == workload.StatusOK || m.Status == workload.StatusTruncated):
		l.E2ES = seconds(m.LastToken.Sub(from))
	case !m.End.IsZero():
		l.E2ES = seconds(m.End.Sub(from))
	}
	return l
}

// Result is the request's result record (DESIGN.md): req's fields with the
// measured token counts and finish reason, latencies from scheduled (so a
// late send is charged to the request), and scheduled_s, sent_s and the
// arrival relative to start, the run's origin. Queue time and preemptions
// are the server's to know and stay 0.
func (m *Measurement) Result(req workload.Request, scheduled, start time.Time) workload.Result {
	res := workload.Result{Request: req, Status: m.Status}
	res.PromptTokens, res.ThinkTokens, res.AnswerTokens = m.PromptTokens, m.ThinkTokens, m.AnswerTokens
	res.FinishReason = m.FinishReason
	if !scheduled.IsZero() && !start.IsZero() {
		res.ArrivalS = seconds(scheduled.Sub(start))
		res.ScheduledS = res.ArrivalS
	}
	if !m.Sent.IsZero() && !start.IsZero() {
		res.SentS = seconds(m.Sent.Sub(start))
	}
	l := m.Latencies(scheduled)
	res.TTFTS, res.TTFAS, res.ThinkS, res.TPOTS, res.E2ES = l.TTFTS, l.TTFAS, l.ThinkS, l.TPOTS, l.E2ES
	res.CachedTokens = m.CachedTokens
	res.ITLMeanS, res.ITLP99S = m.ITLMeanS, m.ITLP99S
	res.TokenSource = m.TokenSource
	res.HTTPStatus = m.HTTPStatus
	res.Error = m.Error
	return res
}

func seconds(d time.Duration) float64 { return d.Seconds() }

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

func (s *itlStats) reset() { s.n, s.sum, s.max, s.rng = 0, 0, 0, 0x9e3779b97f4a7c15 }

func (s *itlStats) add(d time.Duration) {
	g := max(d.Seconds(), 0)
	s.n++
	s.sum += g
	s.max = max(s.max, g)
	if s.n <= itlReservoir {
		s.res[s.n-1] = float32(g)
		return
	}
	// splitmix64
	s.rng += 0x9e3779b97f4a7c15
	z := s.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	if j := z % uint64(s.n); j < itlReservoir {
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
