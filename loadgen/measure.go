package loadgen

import (
	"time"

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
	// Wrote is when the request (headers and body) was written on the
	// connection: the server's clock starts here. Latencies "from sent"
	// count from it, so they never include the client's own dialling.
	Wrote time.Time
	// Connect is the wait for a new connection (DNS, TCP, TLS) when no
	// idle one was there; 0 on a reused (warmed) connection.
	Connect time.Duration
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
	Error string
	// Hung marks a timeout (Status timeout) that says the server stopped
	// answering: no response headers in time, or a stream that stalled
	// after its first event. The circuit breaker counts these; a stream
	// that answered and ran past RequestTimeout is slow, not hung.
	Hung         bool
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

// Result is the request's result record (docs/formats.md): req's fields with the
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
	if m.Connect > 0 {
		res.ConnectS = seconds(m.Connect)
	}
	return res
}

// Written is the origin of the "from sent" latencies: when the request
// was written on the connection, else (no trace) when it was sent.
func (m *Measurement) Written() time.Time {
	if !m.Wrote.IsZero() {
		return m.Wrote
	}
	return m.Sent
}

func seconds(d time.Duration) float64 { return d.Seconds() }
