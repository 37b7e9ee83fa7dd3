package loadgen

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

// Endpoint selects the OpenAI route a client drives.
type Endpoint string

const (
	// EndpointChat is /v1/chat/completions, the default: the chat template
	// applies (thinking on/off, effort) and reasoning parsers split the
	// output.
	EndpointChat Endpoint = "chat"
	// EndpointCompletions is /v1/completions: raw prompt, choices[].text.
	EndpointCompletions Endpoint = "completions"
)

// Default inline thinking tags (Qwen3, DeepSeek-R1 and their distills).
const (
	DefaultThinkStart = "<think>"
	DefaultThinkEnd   = "</think>"
)

// ClientConfig configures a Client. The zero value needs only BaseURL and
// Model.
type ClientConfig struct {
	// BaseURL is the server root, e.g. http://127.0.0.1:8000; the OpenAI
	// base (…/v1) is accepted too.
	BaseURL string
	Model   string
	// Endpoint is EndpointChat when empty.
	Endpoint Endpoint
	// APIKey, read from the environment by the caller, is sent as a bearer
	// token when set. It never appears in errors or measurements.
	APIKey string
	// HeaderTimeout bounds the wait for the response headers; 0: none.
	HeaderTimeout time.Duration
	// RequestTimeout bounds the whole request, stream included; 0: none. A
	// reasoning response can legitimately stream for minutes.
	RequestTimeout time.Duration
	// StallTimeout bounds the silence of a stream after its first event;
	// 0: none. vLLM sends a chunk every engine step (or every
	// --stream-interval tokens) to a running request, so minutes without
	// one is a server that froze (a hung engine or collective), not a slow
	// one. The wait before the first event is the queue's, which only
	// RequestTimeout bounds.
	StallTimeout time.Duration
	// HTTPClient replaces the default client (see NewClient), e.g. to add
	// tracing; CACert must then be empty.
	HTTPClient *http.Client
	// CACert is a PEM file of CA certificates to trust for https.
	CACert string
	// IgnoreEOS and MinTokens are the length-control defaults for every
	// request: ignore_eos true, and min_tokens equal to the request's
	// MaxTokens, so the server generates exactly the logged length. The
	// caller decides per model family: ignore_eos breaks gpt-oss (Harmony).
	IgnoreEOS, MinTokens bool
	// ReasoningParser says the server runs with --reasoning-parser, which
	// moves thinking into delta.reasoning; without it, thinking arrives
	// inline in the content between ThinkStart and ThinkEnd.
	ReasoningParser bool
	// ThinkStart and ThinkEnd are the inline tags; DefaultThinkStart and
	// DefaultThinkEnd when empty ([THINK] and [/THINK] for Magistral).
	ThinkStart, ThinkEnd string
	// ContinuousUsage asks for usage on every chunk
	// (stream_options.continuous_usage_stats), which gives exact
	// think/answer token counts when chunks carry several tokens
	// (speculative decoding) at the price of ~70 bytes a chunk.
	ContinuousUsage bool
	// Temperature is sent when set; nil leaves the server's default.
	Temperature *float64
	// MaxEventBytes bounds one stream event (0: 64 MiB).
	MaxEventBytes int
	// Gaps, if set, receives every inter-token gap of every stream: the
	// run's ITL distribution.
	Gaps *GapHistogram
	// ExtraBody's fields are added to every request body (--extra-body,
	// ParseExtraBody), replacing thinkcap's own of the same name.
	ExtraBody map[string]json.RawMessage
	// Secrets are values (extra headers') kept out of errors, as APIKey is.
	Secrets []string
}

// Validate reports every problem of c.
func (c *ClientConfig) Validate() error {
	var errs []error
	if _, err := serverRoot(c.BaseURL); err != nil {
		errs = append(errs, err)
	}
	if strings.TrimSpace(c.Model) == "" {
		errs = append(errs, errors.New("model is empty"))
	}
	switch c.Endpoint {
	case "", EndpointChat, EndpointCompletions:
	default:
		errs = append(errs, fmt.Errorf("endpoint %q: want %q or %q", c.Endpoint, EndpointChat, EndpointCompletions))
	}
	if c.HeaderTimeout < 0 {
		errs = append(errs, fmt.Errorf("header timeout %v is negative", c.HeaderTimeout))
	}
	if c.RequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("request timeout %v is negative", c.RequestTimeout))
	}
	if c.StallTimeout < 0 {
		errs = append(errs, fmt.Errorf("stall timeout %v is negative", c.StallTimeout))
	}
	if c.HTTPClient != nil && c.CACert != "" {
		errs = append(errs, errors.New("ca cert applies to the default http client only"))
	}
	if c.MaxEventBytes < 0 {
		errs = append(errs, fmt.Errorf("max event bytes %d is negative", c.MaxEventBytes))
	}
	return errors.Join(errs...)
}

// Request is one request to send.
type Request struct {
	// ID goes in the x-request-id header and vLLM's request_id, to join
	// the record with the server's logs.
	ID string
	// Prompt is synthetic text of the requested length (SyntheticPrompt) or
	// the log's own text.
	Prompt string
	// MaxTokens bounds thinking plus answer: max_completion_tokens on chat,
	// max_tokens on completions; 0 sends none.
	MaxTokens int
	// MinTokens is sent when > 0; with ClientConfig.MinTokens it defaults
	// to MaxTokens. Capped at MaxTokens, as vLLM requires.
	MinTokens int
	// IgnoreEOS sends ignore_eos (also when ClientConfig.IgnoreEOS).
	IgnoreEOS bool
	// ThinkingBudget > 0 is sent as thinking_token_budget.
	ThinkingBudget int
	// EnableThinking is sent as chat_template_kwargs.enable_thinking (chat
	// only): false turns Qwen3's thinking off (effort low).
	EnableThinking *bool
	// ReasoningEffort is sent as reasoning_effort (chat only).
	ReasoningEffort string
	// ThinkTokens, when set on a length-forced request, is how many of its
	// tokens the record says were thinking, sent as vllm_xargs (stock vLLM
	// ignores it; thinkcap serve honours it, so a load test of the emulator
	// gets its records' think/answer split).
	ThinkTokens *int
	// Priority is sent when non-zero (needs --scheduling-policy priority).
	Priority int
	Stop     []string
	// SaveText keeps the answer and reasoning text in the Measurement.
	SaveText bool
	// History are the messages before the prompt: a session's earlier
	// turns as its --history policy keeps them (LengthControl.Continue).
	History []vllmapi.Message
	// Continue is generated text to continue from: phase 2 of a two-phase
	// thinking budget sends phase 1's trace, closed. On chat it is the
	// final assistant message (continue_final_message); on completions it
	// is appended to the prompt.
	Continue string
}

// Client sends requests to one OpenAI-compatible endpoint and measures
// them. It is safe for concurrent use by thousands of goroutines.
type Client struct {
	cfg  ClientConfig
	url  string
	http *http.Client
	pool sync.Pool // *streamRun
}

// streamRun is one request's reusable reading state.
type streamRun struct {
	sse  SSEReader
	dec  vllmapi.ChunkDecoder
	view vllmapi.ChunkView
	st   stream
}

const (
	defaultMaxEventBytes = 64 << 20
	// maxErrorBody bounds the error body read from a failed response.
	maxErrorBody = 64 << 10
	// drainTimeout bounds reading the rest of a response after [DONE], so
	// that the connection can be reused (vLLM ends the chunked body right
	// after it) without waiting on a server that keeps the stream open.
	drainTimeout  = 100 * time.Millisecond
	maxDrainBytes = 1 << 20
)

// NewClient checks cfg and builds a client. Without cfg.HTTPClient it uses
// a transport tuned for thousands of concurrent streams: no per-host
// connection cap, a large idle pool, HTTP/1.1 (vLLM's server speaks it on
// plain HTTP: one connection per stream), no compression, keep-alives.
func NewClient(cfg ClientConfig) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = EndpointChat
	}
	if cfg.ThinkStart == "" {
		cfg.ThinkStart = DefaultThinkStart
	}
	if cfg.ThinkEnd == "" {
		cfg.ThinkEnd = DefaultThinkEnd
	}
	if cfg.MaxEventBytes == 0 {
		cfg.MaxEventBytes = defaultMaxEventBytes
	}
	root, _ := serverRoot(cfg.BaseURL)
	path := vllmapi.PathChatCompletions
	if cfg.Endpoint == EndpointCompletions {
		path = vllmapi.PathCompletions
	}
	c := &Client{cfg: cfg, url: root.JoinPath(path).String(), http: cfg.HTTPClient}
	if c.http == nil {
		tr, err := newTransport(cfg.CACert)
		if err != nil {
			return nil, err
		}
		c.http = &http.Client{Transport: tr}
	}
	c.pool.New = func() any { return new(streamRun) }
	return c, nil
}

// URL is the route the client posts to.
func (c *Client) URL() string { return c.url }

func newTransport(caCert string) (*http.Transport, error) {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0, // no total cap
		MaxIdleConnsPerHost:   1 << 14,
		MaxConnsPerHost:       0,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
	}
	if caCert != "" {
		pem, err := os.ReadFile(caCert)
		if err != nil {
			return nil, fmt.Errorf("ca cert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca cert %s: no PEM certificate", caCert)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return tr, nil
}

// Body is the JSON body Do sends for req.
func (c *Client) Body(req Request) ([]byte, error) {
	extras := vllmapi.SamplingExtras{
		MinTokens: req.MinTokens,
		IgnoreEOS: req.IgnoreEOS || c.cfg.IgnoreEOS,
		RequestID: req.ID,
		Priority:  req.Priority,
	}
	if extras.MinTokens == 0 && c.cfg.MinTokens {
		extras.MinTokens = req.MaxTokens
	}
	if req.MaxTokens > 0 {
		extras.MinTokens = min(extras.MinTokens, req.MaxTokens)
	}
	extras.MinTokens = max(extras.MinTokens, 0)
	if req.ThinkingBudget > 0 {
		b := req.ThinkingBudget
		extras.ThinkingTokenBudget = &b
	}
	if req.ThinkTokens != nil {
		extras.VLLMXArgs = map[string]any{vllmapi.XArgThinkTokens: *req.ThinkTokens}
	}
	opts := &vllmapi.StreamOptions{IncludeUsage: true, ContinuousUsageStats: c.cfg.ContinuousUsage}
	var body any
	if c.cfg.Endpoint == EndpointCompletions {
		body = &vllmapi.CompletionRequest{
			Model:          c.cfg.Model,
			Prompt:         historyText(req.History) + req.Prompt + req.Continue,
			MaxTokens:      max(req.MaxTokens, 0),
			Stream:         true,
			StreamOptions:  opts,
			Stop:           req.Stop,
			Temperature:    c.cfg.Temperature,
			SamplingExtras: extras,
		}
	} else {
		r := &vllmapi.ChatRequest{
			Model:               c.cfg.Model,
			Messages:            append(slices.Clip(req.History), vllmapi.Message{Role: "user", Content: req.Prompt}),
			MaxCompletionTokens: max(req.MaxTokens, 0),
			Stream:              true,
			StreamOptions:       opts,
			Stop:                req.Stop,
			Temperature:         c.cfg.Temperature,
			ReasoningEffort:     req.ReasoningEffort,
			SamplingExtras:      extras,
		}
		if req.EnableThinking != nil {
			r.ChatTemplateKwargs = vllmapi.ChatTemplateKwargs{"enable_thinking": *req.EnableThinking}
		}
		if req.Continue != "" {
			no := false
			r.Messages = append(r.Messages, vllmapi.Message{Role: "assistant", Content: req.Continue})
			r.ContinueFinalMessage, r.AddGenerationPrompt = true, &no
		}
		body = r
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(c.cfg.ExtraBody) > 0 {
		return mergeBody(b, c.cfg.ExtraBody)
	}
	return b, nil
}

// historyText is a session's earlier messages as one completions prompt:
// each on its own line after its role.
func historyText(history []vllmapi.Message) string {
	var b strings.Builder
	for _, m := range history {
		b.WriteString(m.Role)
		b.WriteString(": ")
		b.WriteString(m.Content)
		b.WriteString("\n\n")
	}
	return b.String()
}

// Causes of the client's own deadlines.
var (
	errHeaderTimeout  = errors.New("header timeout")
	errRequestTimeout = errors.New("request timeout")
	errStalled        = errors.New("stream stalled")
	errDrained        = errors.New("drained")
)

// Do sends req, reads the stream and returns what it measured. Every
// outcome is a Measurement: failures are its Status and Error, never a
// panic or an error return, so one bad request never stops a run.
func (c *Client) Do(ctx context.Context, req Request) Measurement {
	var m Measurement
	body, err := c.Body(req)
	if err != nil {
		m.Status, m.Error, m.End = workload.StatusHTTPError, err.Error(), time.Now()
		return m
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if c.cfg.RequestTimeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, c.cfg.RequestTimeout, errRequestTimeout)
		defer stop()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		m.Status, m.Error, m.End = workload.StatusHTTPError, c.redact(err.Error()), time.Now()
		return m
	}
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("Accept-Encoding", "identity")
	h.Set("User-Agent", "thinkcap")
	if req.ID != "" {
		h.Set(vllmapi.HeaderRequestID, req.ID)
	}
	if c.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}

	var headerTimer *time.Timer
	if c.cfg.HeaderTimeout > 0 {
		headerTimer = time.AfterFunc(c.cfg.HeaderTimeout, func() { cancel(errHeaderTimeout) })
	}
	var trace connTrace
	hreq = hreq.WithContext(trace.attach(hreq.Context()))
	m.Sent = time.Now()
	resp, err := c.http.Do(hreq)
	if headerTimer != nil {
		headerTimer.Stop()
	}
	now := time.Now()
	m.Connect, m.Wrote = trace.result()
	if err != nil {
		m.End = now
		c.fail(&m, parent, ctx, err, workload.StatusHTTPError)
		return m
	}
	defer resp.Body.Close()
	m.Headers = now
	m.HTTPStatus = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		c.httpError(&m, resp)
		return m
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "application/json" {
		c.notAStream(&m, resp)
		return m
	}
	c.readStream(&m, parent, ctx, cancel, resp.Body, req.SaveText)
	return m
}

// readStream reads the event stream and settles m's status.
func (c *Client) readStream(m *Measurement, parent, ctx context.Context, cancel context.CancelCauseFunc, body io.Reader, saveText bool) {
	run := c.pool.Get().(*streamRun)
	defer c.pool.Put(run)
	run.sse.Reset(body)
	run.sse.MaxEventBytes = c.cfg.MaxEventBytes
	run.st.reset(c.cfg.ReasoningParser, saveText, c.cfg.ThinkStart, c.cfg.ThinkEnd)
	run.st.gaps = c.cfg.Gaps
	st := &run.st

	var readErr, chunkErr error
	var stall *stallWatch
	defer func() { stall.stop() }()
	for {
		ev, err := run.sse.Next()
		switch {
		case c.cfg.StallTimeout <= 0 || err != nil:
		case stall == nil:
			stall = watchStalls(c.cfg.StallTimeout, ev.At, cancel)
		default:
			stall.event(ev.At)
		}
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		if ev.Done {
			st.done = true
			break
		}
		// Timestamps were taken by the reader; decoding comes after.
		if err := run.dec.Decode(ev.Data, &run.view); err != nil {
			chunkErr = err
			break
		}
		st.chunk(&run.view, ev.At)
		if st.errMsg != "" {
			break
		}
	}
	m.End = time.Now()
	m.FirstByte = run.sse.FirstByteAt()
	unclosed := st.finishInto(m)
	if readErr == nil {
		// Read to the end so the connection goes back to the pool.
		t := time.AfterFunc(drainTimeout, func() { cancel(errDrained) })
		_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrainBytes))
		t.Stop()
	}

	switch {
	case readErr != nil:
		c.fail(m, parent, ctx, readErr, workload.StatusStreamError)
	case st.errMsg != "":
		m.Status, m.Error = workload.StatusStreamError, c.redact(st.errMsg)
	case chunkErr != nil:
		m.Status, m.Error = workload.StatusStreamError, chunkErr.Error()
	case st.tokenEvents == 0:
		m.Status, m.Error = workload.StatusStreamError, "stream ended with no tokens"
	case !st.done:
		m.Status, m.Error = workload.StatusStreamError, "stream ended before [DONE]"
	case st.finish == vllmapi.FinishAbort || st.finish == vllmapi.FinishError:
		m.Status, m.Error = workload.StatusStreamError, "finish_reason "+st.finish
	case unclosed:
		m.Status = workload.StatusTruncated
		m.Error = "stream ended inside thinking"
		if st.finish != "" {
			m.Error += " (finish_reason " + st.finish + ")"
		}
	default:
		m.Status = workload.StatusOK
	}
}

// fail records a transport failure: the caller's cancellation, one of the
// client's timeouts, or otherwise status (http_error before a response,
// stream_error during one).
func (c *Client) fail(m *Measurement, parent, ctx context.Context, err error, status string) {
	var ne net.Error
	switch cause := context.Cause(ctx); {
	case parent.Err() != nil:
		m.Status, m.Error = workload.StatusCancelled, "cancelled"
	case errors.Is(cause, errHeaderTimeout):
		m.Status, m.Error, m.Hung = workload.StatusTimeout, fmt.Sprintf("no response headers within %v", c.cfg.HeaderTimeout), true
	case errors.Is(cause, errStalled):
		m.Status, m.Error, m.Hung = workload.StatusTimeout, fmt.Sprintf("stream stalled: nothing for %v", c.cfg.StallTimeout), true
	case errors.Is(cause, errRequestTimeout):
		m.Status, m.Error = workload.StatusTimeout, fmt.Sprintf("request not done within %v", c.cfg.RequestTimeout)
		m.Hung = m.Headers.IsZero()
	case isConnectError(err):
		// Before the timeout case: a dial that timed out never reached
		// the server either.
		m.Status, m.Error = workload.StatusConnectError, c.redact(connectErrorText(err))
	case errors.As(err, &ne) && ne.Timeout():
		m.Status, m.Error, m.Hung = workload.StatusTimeout, c.redact(err.Error()), m.Headers.IsZero()
	default:
		m.Status, m.Error = status, c.redact(err.Error())
	}
}

// httpError records a non-2xx response with the server's message.
func (c *Client) httpError(m *Measurement, resp *http.Response) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	m.End = time.Now()
	m.Status = workload.StatusHTTPError
	msg, _, _, ok := vllmapi.ParseError(b)
	if vllmapi.IsRejection(resp.StatusCode, msg) {
		// Turned away, not broken: the server's admission said no (429
		// from a rate limiter or gateway, 400 over max_model_len), as
		// the simulator's rejected requests.
		m.Status = workload.StatusRejected
	}
	if ok {
		m.Error = c.redact(msg)
		return
	}
	m.Error = c.redact(fmt.Sprintf("http %d: %s", resp.StatusCode, excerpt(b)))
}

// notAStream records a 2xx JSON answer to a streaming request: a proxy's
// error or a server that ignored stream: true.
func (c *Client) notAStream(m *Measurement, resp *http.Response) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	m.End = time.Now()
	m.Status = workload.StatusStreamError
	if msg, _, _, ok := vllmapi.ParseError(b); ok {
		m.Error = c.redact(msg)
		return
	}
	m.Error = "response is json, not an event stream"
}

// redact removes the API key and the other secrets from text that may
// echo them.
func (c *Client) redact(s string) string {
	for _, secret := range append([]string{c.cfg.APIKey}, c.cfg.Secrets...) {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}

// excerpt is the start of a body, as valid UTF-8 on one line.
func excerpt(b []byte) string {
	const n = 200
	if len(b) > n {
		b = b[:n]
	}
	s := strings.ToValidUTF8(strings.TrimSpace(string(b)), "?")
	return strings.Join(strings.Fields(s), " ")
}
