package loadgen

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

var mt0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

const mStep = 10 * time.Millisecond

// Chunk builders, in vLLM's shapes (vllm/entrypoints/openai/serving_chat.py).
func roleChunk() string {
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`
}

func contentChunk(s string) string {
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` + jsonQuote(s) + `},"logprobs":null,"finish_reason":null}]}`
}

func reasoningChunk(s string) string {
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning":` + jsonQuote(s) + `},"logprobs":null,"finish_reason":null}]}`
}

func finishChunk(reason string) string {
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"` + reason + `","stop_reason":null}]}`
}

func usageChunk(prompt, completion int) string {
	u, _ := json.Marshal(vllmapi.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion})
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":` + string(u) + `}`
}

// withUsage adds a cumulative usage to a chunk (continuous_usage_stats).
func withUsage(chunk string, completion int) string {
	return chunk[:len(chunk)-1] + `,"usage":{"prompt_tokens":5,"total_tokens":` + jsonInt(5+completion) + `,"completion_tokens":` + jsonInt(completion) + `}}`
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsonInt(n int) string { return string(mustMarshal(n)) }

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// measureChunks feeds chunks received mStep apart, from mt0.
func measureChunks(t testing.TB, parser bool, open, close string, chunks ...string) (Measurement, bool) {
	t.Helper()
	var s stream
	s.reset(parser, true, open, close)
	var d vllmapi.ChunkDecoder
	var v vllmapi.ChunkView
	for i, c := range chunks {
		if err := d.Decode([]byte(c), &v); err != nil {
			t.Fatalf("chunk %d %s: %v", i, c, err)
		}
		s.chunk(&v, mt0.Add(time.Duration(i)*mStep))
	}
	var m Measurement
	unclosed := s.finishInto(&m)
	return m, unclosed
}

// index is the chunk index of a time, -1 for zero.
func chunkIndex(t time.Time) int {
	if t.IsZero() {
		return -1
	}
	return int(t.Sub(mt0) / mStep)
}

func TestInlineThink(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		open, close               string
		pieces                    []string
		think, answer             int
		firstAnswer, thinkEnd     int
		unclosed                  bool
		reasoningText, answerText string
	}{
		{"tags split across chunks", "", "", []string{"<thi", "nk>", "Let", " me", "</th", "ink>", "\n\nAns", "wer"},
			6, 2, 6, 5, false, "<think>Let me</think>", "\n\nAnswer"},
		{"close and answer in one chunk", "", "", []string{"<think>", "x", "</think>\n\nHi"},
			3, 1, 2, 2, false, "<think>x</think>", "\n\nHi"},
		{"open and close in one chunk", "", "", []string{"<think>a</think>b"}, 1, 1, 0, 0, false, "<think>a</think>", "b"},
		{"template opened thinking (R1)", "", "", []string{"Okay", " so", "</think>", "Hi"},
			3, 1, 3, 2, false, "Okay so</think>", "Hi"},
		{"implicit open, close split", "", "", []string{"Okay", "</", "think>", "\n\nHi"}, 3, 1, 3, 2, false, "", ""},
		{"close tag first", "", "", []string{"</think>", "Hi"}, 1, 1, 1, 0, false, "", ""},
		{"no tags: all answer", "", "", []string{"Hello", " world"}, 0, 2, 0, -1, false, "", "Hello world"},
		{"unclosed think", "", "", []string{"<think>", "a", "b"}, 3, 0, -1, 2, true, "<think>ab", ""},
		{"whitespace before the tag", "", "", []string{"\n", "<think>", "a", "</think>", "b"}, 4, 1, 4, 3, false, "", ""},
		{"quoted open tag is answer", "", "", []string{"Use", " <think>", " tags"}, 0, 3, 0, -1, false, "", ""},
		{"close tag inside the answer", "", "", []string{"<think>", "a", "</think>", "x </think> y"}, 3, 1, 3, 2, false, "", ""},
		{"diverging open prefix", "", "", []string{"<th", "is>", " b"}, 0, 3, 0, -1, false, "", ""},
		{"empty deltas are not tokens", "", "", []string{"", "<think>", "", "a", "</think>", "", "b"}, 3, 1, 6, 4, false, "", ""},
		{"magistral tags", "[THINK]", "[/THINK]", []string{"[THI", "NK]", "plan", "[/THINK]", "ok"}, 4, 1, 4, 3, false, "", ""},
	} {
		chunks := []string{roleChunk()}
		for _, p := range tc.pieces {
			chunks = append(chunks, contentChunk(p))
		}
		open, close := tc.open, tc.close
		if open == "" {
			open, close = DefaultThinkStart, DefaultThinkEnd
		}
		m, unclosed := measureChunks(t, false, open, close, chunks...)
		// Indexes below count the pieces; chunk 0 is the role chunk.
		fa, te := chunkIndex(m.FirstAnswer)-1, chunkIndex(m.ThinkEnd)-1
		if m.FirstAnswer.IsZero() {
			fa = -1
		}
		if m.ThinkEnd.IsZero() {
			te = -1
		}
		if m.ThinkTokens != tc.think || m.AnswerTokens != tc.answer || fa != tc.firstAnswer || te != tc.thinkEnd ||
			unclosed != tc.unclosed || m.TokenSource != TokenSourceCounted {
			t.Errorf("%s: think %d answer %d firstAnswer %d thinkEnd %d unclosed %v source %s; want %d %d %d %d %v counted",
				tc.name, m.ThinkTokens, m.AnswerTokens, fa, te, unclosed, m.TokenSource,
				tc.think, tc.answer, tc.firstAnswer, tc.thinkEnd, tc.unclosed)
		}
		if tc.reasoningText != "" && m.Reasoning != tc.reasoningText || tc.answerText != "" && m.Text != tc.answerText {
			t.Errorf("%s: text %q / %q", tc.name, m.Reasoning, m.Text)
		}
		if chunkIndex(m.FirstToken) != 1+firstNonEmpty(tc.pieces) {
			t.Errorf("%s: first token at chunk %d", tc.name, chunkIndex(m.FirstToken))
		}
	}
}

func firstNonEmpty(p []string) int {
	for i, s := range p {
		if s != "" {
			return i
		}
	}
	return -1
}

func TestReasoningParserTokens(t *testing.T) {
	dual := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning":"x","reasoning_content":"x"},"logprobs":null,"finish_reason":null}]}`
	tool := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f"}}]},"finish_reason":null}]}`
	for _, tc := range []struct {
		name                    string
		chunks                  []string
		think, answer, prompt   int
		source                  string
		firstToken, firstAnswer int
		unclosed                bool
	}{
		{"usage splits by counted reasoning deltas",
			[]string{roleChunk(), reasoningChunk("a"), reasoningChunk("b"), reasoningChunk("c"), contentChunk("\n\n"), contentChunk("d"), finishChunk("stop"), usageChunk(12, 7)},
			3, 4, 12, TokenSourceUsage, 1, 4, false},
		{"counted without usage",
			[]string{roleChunk(), reasoningChunk("a"), reasoningChunk("b"), reasoningChunk("c"), contentChunk("d"), contentChunk("e"), finishChunk("stop")},
			3, 2, 0, TokenSourceCounted, 1, 4, false},
		{"dual-field chunk is one token",
			[]string{dual, dual, contentChunk("y"), usageChunk(1, 3)}, 2, 1, 1, TokenSourceUsage, 0, 2, false},
		{"reasoning only, cut by length: truncated, all thinking",
			[]string{roleChunk(), reasoningChunk("a"), reasoningChunk("b"), finishChunk("length"), usageChunk(3, 10)},
			10, 0, 3, TokenSourceUsage, 1, -1, true},
		{"answer only", []string{roleChunk(), contentChunk("a"), contentChunk("b"), usageChunk(3, 4)}, 0, 4, 3, TokenSourceUsage, 1, 1, false},
		{"tool calls are answer", []string{roleChunk(), reasoningChunk("a"), tool, tool, usageChunk(3, 3)}, 1, 2, 3, TokenSourceUsage, 1, 2, false},
		{"server reasoning_tokens win",
			[]string{reasoningChunk("a"), contentChunk("b"), `{"choices":[],"usage":{"prompt_tokens":2,"total_tokens":12,"completion_tokens":10,"completion_tokens_details":{"reasoning_tokens":8}}}`},
			8, 2, 2, TokenSourceUsage, 0, 1, false},
		{"continuous usage attributes multi-token chunks",
			[]string{withUsage(roleChunk(), 0), withUsage(reasoningChunk("abc"), 3), withUsage(reasoningChunk("d"), 4),
				withUsage(contentChunk("xy"), 6), withUsage(contentChunk("z"), 7), withUsage(finishChunk("stop"), 7), usageChunk(5, 7)},
			4, 3, 5, TokenSourceUsage, 1, 3, false},
		{"usage on the finish chunk only is not continuous",
			[]string{reasoningChunk("a"), reasoningChunk("b"), contentChunk("c"), withUsage(finishChunk("stop"), 6)},
			2, 4, 5, TokenSourceUsage, 0, 2, false},
		{"usage never below counted think",
			[]string{reasoningChunk("a"), reasoningChunk("b"), reasoningChunk("c"), contentChunk("d"), usageChunk(1, 2)},
			2, 0, 1, TokenSourceUsage, 0, 3, false},
	} {
		m, unclosed := measureChunks(t, true, DefaultThinkStart, DefaultThinkEnd, tc.chunks...)
		if m.ThinkTokens != tc.think || m.AnswerTokens != tc.answer || m.PromptTokens != tc.prompt || m.TokenSource != tc.source ||
			chunkIndex(m.FirstToken) != tc.firstToken || chunkIndex(m.FirstAnswer) != tc.firstAnswer || unclosed != tc.unclosed {
			t.Errorf("%s: think %d answer %d prompt %d source %s first %d firstAnswer %d unclosed %v",
				tc.name, m.ThinkTokens, m.AnswerTokens, m.PromptTokens, m.TokenSource, chunkIndex(m.FirstToken), chunkIndex(m.FirstAnswer), unclosed)
		}
	}
}

func TestStreamErrorAndFinish(t *testing.T) {
	var s stream
	s.reset(true, false, DefaultThinkStart, DefaultThinkEnd)
	var d vllmapi.ChunkDecoder
	var v vllmapi.ChunkView
	for _, c := range []string{contentChunk("a"), finishChunk("length"), `{"error":{"message":"Unexpected token 200002 while expecting start token 200006","type":"InternalServerError","code":500}}`} {
		if err := d.Decode([]byte(c), &v); err != nil {
			t.Fatal(err)
		}
		s.chunk(&v, mt0)
	}
	if s.errMsg != "Unexpected token 200002 while expecting start token 200006" || s.finish != "length" {
		t.Errorf("error %q finish %q", s.errMsg, s.finish)
	}
}

func TestITLStats(t *testing.T) {
	var s itlStats
	s.reset()
	if mean, p50, p99, mx := s.summary(); mean+p50+p99+mx != 0 {
		t.Error("no gaps, non-zero summary")
	}
	for _, g := range []float64{0.010, 0.020, 0.030, 0.040} {
		s.add(time.Duration(g * float64(time.Second)))
	}
	mean, p50, p99, mx := s.summary()
	if !closeTo(mean, 0.025) || !closeTo(p50, 0.025) || !closeTo(p99, 0.0397) || !closeTo(mx, 0.040) {
		t.Errorf("4 gaps: %v %v %v %v", mean, p50, p99, mx)
	}
	// Beyond the reservoir: mean and max stay exact, percentiles close, and
	// the sample is reproducible.
	run := func() (float64, float64, float64, float64) {
		var s itlStats
		s.reset()
		for i := range 20000 {
			s.add(time.Duration(i%100+1) * time.Millisecond) // uniform 1..100 ms
		}
		return s.summary()
	}
	mean, p50, p99, mx = run()
	if !closeTo(mean, 0.0505) || !closeTo(mx, 0.100) || math.Abs(p50-0.050) > 0.008 || math.Abs(p99-0.099) > 0.003 {
		t.Errorf("20000 gaps: mean %v p50 %v p99 %v max %v", mean, p50, p99, mx)
	}
	if m2, q2, r2, x2 := run(); m2 != mean || q2 != p50 || r2 != p99 || x2 != mx {
		t.Error("not reproducible")
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestLatenciesAndResult(t *testing.T) {
	start := mt0
	scheduled := mt0.Add(time.Second)
	sent := scheduled.Add(50 * time.Millisecond) // sent late
	m := Measurement{
		Sent: sent, Headers: sent.Add(5 * time.Millisecond), FirstByte: sent.Add(100 * time.Millisecond),
		FirstToken: sent.Add(100 * time.Millisecond), FirstAnswer: sent.Add(1100 * time.Millisecond),
		ThinkEnd: sent.Add(1090 * time.Millisecond), LastToken: sent.Add(2100 * time.Millisecond), End: sent.Add(2110 * time.Millisecond),
		ThinkTokens: 100, AnswerTokens: 101, PromptTokens: 50, CachedTokens: 16, TokenSource: TokenSourceUsage,
		Status: workload.StatusOK, HTTPStatus: 200, FinishReason: "stop",
	}
	req := workload.Request{ID: "r1", ArrivalS: 1, PromptTokens: 64, ThinkTokens: 90, AnswerTokens: 110, Mode: "high", Category: "math"}
	res := m.Result(req, scheduled, start)
	want := workload.Result{
		Request: workload.Request{ID: "r1", ArrivalS: 1, PromptTokens: 50, ThinkTokens: 100, AnswerTokens: 101,
			Mode: "high", Category: "math", FinishReason: "stop"},
		Status: "ok", TTFTS: 0.150, TTFAS: 1.150, ThinkS: 1.0, TPOTS: 2.0 / 200, E2ES: 2.150,
		CachedTokens: 16, ScheduledS: 1, SentS: 1.050, TokenSource: "usage", HTTPStatus: 200,
	}
	if !resultNear(res, want) {
		t.Errorf("result\n got %+v\nwant %+v", res, want)
	}
	// From the sent time: 50 ms less everywhere (coordinated omission).
	l := m.Latencies(m.Sent)
	if !closeTo(l.TTFTS, 0.100) || !closeTo(l.TTFAS, 1.100) || !closeTo(l.E2ES, 2.100) || !closeTo(l.ThinkS, 1.0) {
		t.Errorf("from sent: %+v", l)
	}
	// A failure's E2E runs to when the client gave up.
	m.Status, m.Error = workload.StatusStreamError, "stream ended before [DONE]"
	if l := m.Latencies(scheduled); !closeTo(l.E2ES, 2.160) {
		t.Errorf("failed e2e %v", l.E2ES)
	}
	if l := (&Measurement{}).Latencies(time.Time{}); l != (Latencies{}) {
		t.Errorf("zero origin: %+v", l)
	}
}

func resultNear(a, b workload.Result) bool {
	for _, p := range [][2]*float64{{&a.TTFTS, &b.TTFTS}, {&a.TTFAS, &b.TTFAS}, {&a.ThinkS, &b.ThinkS},
		{&a.TPOTS, &b.TPOTS}, {&a.E2ES, &b.E2ES}, {&a.ScheduledS, &b.ScheduledS}, {&a.SentS, &b.SentS}, {&a.ArrivalS, &b.ArrivalS}} {
		if !closeTo(*p[0], *p[1]) {
			return false
		}
		*p[0] = *p[1]
	}
	ac, bc := a, b
	return sameJSON(ac, bc)
}

func sameJSON(a, b any) bool { return string(mustMarshal(a)) == string(mustMarshal(b)) }

// TestStreamAllocs: measuring a stream allocates nothing per chunk.
func TestStreamAllocs(t *testing.T) {
	var chunks [][]byte
	for _, c := range []string{roleChunk(), contentChunk("<think>"), contentChunk("a"), contentChunk("</th"),
		contentChunk("ink>"), contentChunk("b"), reasoningChunk("r"), finishChunk("stop"), usageChunk(3, 5)} {
		chunks = append(chunks, []byte(c))
	}
	var s stream
	var d vllmapi.ChunkDecoder
	var v vllmapi.ChunkView
	var m Measurement
	for _, parser := range []bool{false, true} {
		allocs := testing.AllocsPerRun(50, func() {
			s.reset(parser, false, DefaultThinkStart, DefaultThinkEnd)
			for i, c := range chunks {
				if err := d.Decode(c, &v); err != nil {
					t.Fatal(err)
				}
				s.chunk(&v, mt0.Add(time.Duration(i)))
			}
			s.finishInto(&m)
		})
		if allocs != 0 {
			t.Errorf("parser=%v: %v allocations per stream", parser, allocs)
		}
	}
}

// TestMultiTokenDeltasSplitByProportion: under speculative decoding a delta
// carries the accepted tokens of a step, so usage far exceeds the deltas;
// the split follows the deltas' proportion instead of charging every
// extra token to the answer.
func TestMultiTokenDeltasSplitByProportion(t *testing.T) {
	chunks := []string{roleChunk()}
	for range 30 {
		chunks = append(chunks, reasoningChunk("a b c"))
	}
	for range 10 {
		chunks = append(chunks, contentChunk("d e f"))
	}
	chunks = append(chunks, finishChunk("stop"), usageChunk(5, 120)) // three tokens a delta
	m, _ := measureChunks(t, true, DefaultThinkStart, DefaultThinkEnd, chunks...)
	if m.ThinkTokens != 90 || m.AnswerTokens != 30 {
		t.Errorf("think %d answer %d, want 90 and 30 (three tokens per delta on both sides)", m.ThinkTokens, m.AnswerTokens)
	}
}
