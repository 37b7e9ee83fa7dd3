package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"unicode"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 32 << 20

// Chat-template overhead in tokens (Qwen3's ChatML: "<|im_start|>user\n",
// "<|im_end|>\n" around each message, and "<|im_start|>assistant\n" for the
// generation prompt), added to the words of the messages: prompt_tokens is
// the number of whitespace-separated words plus this, since thinkcap's load
// generator sends one word per token.
const (
	chatTokensPerMessage = 5
	chatTokensGeneration = 3
)

// chatBody is the part of vLLM's ChatCompletionRequest the emulator reads
// (vllm/entrypoints/openai/chat_completion/protocol.py). It is not
// vllmapi.ChatRequest, which is what thinkcap sends: a server reads what
// any client sends, so pointers tell "unset" from zero and content, prompt
// and stop stay raw (a string, a list or null). The parts both sides
// spell alike are vllmapi's.
type chatBody struct {
	Model               string                     `json:"model"`
	Messages            []chatMessageIn            `json:"messages"`
	MaxCompletionTokens *int                       `json:"max_completion_tokens"`
	MaxTokens           *int                       `json:"max_tokens"`
	Stream              bool                       `json:"stream"`
	StreamOptions       *vllmapi.StreamOptions     `json:"stream_options"`
	Stop                json.RawMessage            `json:"stop"`
	N                   *int                       `json:"n"`
	ChatTemplateKwargs  vllmapi.ChatTemplateKwargs `json:"chat_template_kwargs"`
	ReasoningEffort     string                     `json:"reasoning_effort"`
	vllmapi.SamplingExtras
}

// chatMessageIn is a message whose content is a string, a list of parts
// or null.
type chatMessageIn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// completionBody is the part of CompletionRequest the emulator reads
// (completion/protocol.py).
type completionBody struct {
	Model         string                 `json:"model"`
	Prompt        json.RawMessage        `json:"prompt"`
	MaxTokens     *int                   `json:"max_tokens"`
	Stream        bool                   `json:"stream"`
	StreamOptions *vllmapi.StreamOptions `json:"stream_options"`
	Stop          json.RawMessage        `json:"stop"`
	N             *int                   `json:"n"`
	vllmapi.SamplingExtras
}

// parsed is a validated request, ready to become a job.
type parsed struct {
	chat         bool
	model        string
	id           string
	prompt       int
	maxTokens    int // 0: not sent
	maxParam     string
	minTokens    int
	ignoreEOS    bool
	budget       int    // -1: none
	thinking     bool   // thinking asked for (on unless turned off)
	effort       string // reasoning_effort, "" when not sent
	thinkTokens  int    // the client's requested thinking (vllmapi.XArgThinkTokens); -1: none
	stream       bool
	includeUsage bool
	continuous   bool
	priority     int
	// prefixID and prefixTokens: a conversation's earlier messages
	// (parseChat), the prefix its later turns share.
	prefixID     string
	prefixTokens int
}

// apiError is an error answered with vLLM's error JSON.
type apiError struct {
	status int
	typ    string
	msg    string
	param  string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, a ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: vllmapi.ErrorTypeBadRequest, msg: fmt.Sprintf(format, a...)}
}

// decodeJSON reads one JSON object; a malformed body or a field of the
// wrong type is a 400 as FastAPI's validation gives it.
func decodeJSON(r *http.Request, v any) *apiError {
	body := http.MaxBytesReader(nil, r.Body, maxBodyBytes)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return &apiError{status: 400, typ: "Bad Request", msg: fmt.Sprintf("1 validation error:\n  %s: expected %s, got %s", typeErr.Field, typeErr.Type, typeErr.Value)}
		}
		return &apiError{status: 400, typ: "Bad Request", msg: "malformed json body: " + err.Error()}
	}
	if dec.More() {
		return &apiError{status: 400, typ: "Bad Request", msg: "malformed json body: trailing data after the object"}
	}
	return nil
}

// parseChat validates a chat body.
func (s *Server) parseChat(r *http.Request) (*parsed, *apiError) {
	var b chatBody
	if err := decodeJSON(r, &b); err != nil {
		return nil, err
	}
	if len(b.Messages) == 0 {
		return nil, badRequest("messages must not be empty")
	}
	words, last := 0, 0
	for i, m := range b.Messages {
		n, err := contentWords(m.Content)
		if err != nil {
			return nil, badRequest("messages[%d].content: %v", i, err)
		}
		words, last = words+n, n
	}
	p := &parsed{chat: true, model: b.Model, prompt: words + chatTokensPerMessage*len(b.Messages) + chatTokensGeneration, thinking: true}
	if n := len(b.Messages); n > 1 {
		// A conversation's later turn: its earlier messages are a prefix
		// vLLM's cache holds while the conversation goes on (it hashes the
		// rendered tokens; the first message names the conversation here).
		// Every turn shares the conversation's prefix, and extends it.
		h := fnv.New64a()
		h.Write(b.Messages[0].Content)
		p.prefixID = fmt.Sprintf("conversation:%x", h.Sum64())
		p.prefixTokens = min(words-last+chatTokensPerMessage*(n-1), p.prompt-1)
	}
	// max_completion_tokens takes precedence over the deprecated
	// max_tokens in chat (vllm/entrypoints/openai/protocol.py).
	switch {
	case b.MaxCompletionTokens != nil:
		p.maxTokens, p.maxParam = *b.MaxCompletionTokens, "max_completion_tokens"
	case b.MaxTokens != nil:
		p.maxTokens, p.maxParam = *b.MaxTokens, "max_tokens"
	}
	if p.maxParam != "" && p.maxTokens < 1 {
		return nil, badRequest("%s must be at least 1, got %d.", p.maxParam, p.maxTokens)
	}
	// enable_thinking=false turns Qwen3's thinking off; since vLLM #43401
	// reasoning_effort "none" does too when enable_thinking is unset. The
	// model's own rule (thinking.go) decides what the switch does.
	if b.ReasoningEffort != "" && effortRank(b.ReasoningEffort) < 0 {
		return nil, &apiError{status: 400, typ: "Bad Request", msg: fmt.Sprintf(
			"1 validation error:\n  reasoning_effort: Input should be %s, got %q", effortList(), b.ReasoningEffort)}
	}
	p.effort = b.ReasoningEffort
	if on, ok := b.ChatTemplateKwargs.EnableThinking(); ok {
		p.thinking = on
	} else if b.ReasoningEffort == "none" {
		p.thinking = false
	}
	if p.effort == "none" {
		p.effort = ""
	}
	return p, s.parseCommon(p, b.Stream, b.StreamOptions, b.N, &b.SamplingExtras)
}

// parseCompletion validates a completions body.
func (s *Server) parseCompletion(r *http.Request) (*parsed, *apiError) {
	var b completionBody
	if err := decodeJSON(r, &b); err != nil {
		return nil, err
	}
	n, err := promptTokens(b.Prompt)
	if err != nil {
		return nil, badRequest("prompt: %v", err)
	}
	p := &parsed{model: b.Model, prompt: n, thinking: true}
	if b.MaxTokens != nil {
		p.maxTokens, p.maxParam = *b.MaxTokens, "max_tokens"
		if p.maxTokens < 1 {
			return nil, badRequest("max_tokens must be at least 1, got %d.", p.maxTokens)
		}
	}
	return p, s.parseCommon(p, b.Stream, b.StreamOptions, b.N, &b.SamplingExtras)
}

// parseCommon checks what both routes share, in vLLM's order: the model,
// the sampling parameters, then the context length.
func (s *Server) parseCommon(p *parsed, stream bool, opts *vllmapi.StreamOptions, n *int, x *vllmapi.SamplingExtras) *apiError {
	// Any served name may be used, an absent one means the first; another
	// is a 404 (vllm/entrypoints/openai/serving_engine.py _check_model,
	// serving_models.py is_base_model).
	if p.model != "" && !s.serves(p.model) {
		return &apiError{status: http.StatusNotFound, typ: vllmapi.ErrorTypeNotFound, msg: fmt.Sprintf("The model `%s` does not exist.", p.model), param: "model"}
	}
	p.stream = stream
	if opts != nil {
		if !stream {
			return badRequest("Stream options can only be defined when `stream=True`.")
		}
		p.includeUsage = opts.IncludeUsage
		p.continuous = opts.IncludeUsage && opts.ContinuousUsageStats
	}
	if n != nil && *n != 1 {
		return badRequest("n=%d: the emulator serves n=1 only", *n)
	}
	if x.MinTokens < 0 {
		return badRequest("min_tokens must be greater than or equal to 0, got %d.", x.MinTokens)
	}
	if p.maxTokens > 0 && x.MinTokens > p.maxTokens {
		return badRequest("min_tokens must be less than or equal to max_tokens=%d, got %d.", p.maxTokens, x.MinTokens)
	}
	p.minTokens, p.ignoreEOS, p.budget = x.MinTokens, x.IgnoreEOS, -1
	if x.ThinkingTokenBudget != nil {
		if *x.ThinkingTokenBudget < -1 {
			return badRequest("thinking_token_budget must be -1 (unlimited) or at least 0, got %d.", *x.ThinkingTokenBudget)
		}
		p.budget = *x.ThinkingTokenBudget
	}
	if x.Priority != 0 && s.simCfg.SchedulingPolicy != "priority" {
		return badRequest("Got priority %d but Priority scheduling is not enabled.", x.Priority)
	}
	p.priority = x.Priority
	p.id = x.RequestID
	p.thinkTokens = -1
	if v, ok := x.VLLMXArgs[vllmapi.XArgThinkTokens]; ok {
		n, ok := xargInt(v)
		if !ok || n < 0 {
			return badRequest("vllm_xargs.%s must be a non-negative integer, got %v.", vllmapi.XArgThinkTokens, v)
		}
		p.thinkTokens = n
	}
	maxLen := s.simCfg.MaxModelLen
	if p.maxTokens > maxLen {
		return &apiError{status: 400, typ: vllmapi.ErrorTypeBadRequest, param: p.maxParam,
			msg: fmt.Sprintf("%s=%d cannot be greater than max_model_len=%d. Please request fewer output tokens.", p.maxParam, p.maxTokens, maxLen)}
	}
	// vllm/renderers/params.py _token_len_check: max_output_tokens is 0
	// when max_tokens is unset, and a prompt must leave room for a token.
	if p.prompt+p.maxTokens > maxLen || p.maxTokens == 0 && p.prompt >= maxLen {
		return &apiError{status: 400, typ: vllmapi.ErrorTypeBadRequest, param: "input_tokens", msg: fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d output tokens and your prompt contains %d input tokens, for a total of %d tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
			maxLen, p.maxTokens, p.prompt, p.prompt+p.maxTokens)}
	}
	return nil
}

// xargInt reads a vllm_xargs value as an integer: a JSON number, or a
// string of digits (vLLM passes the values on as given, str | int | float).
func xargInt(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || x > math.MaxInt32 || x < math.MinInt32 {
			return 0, false
		}
		return int(x), true
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	return 0, false
}

// contentWords counts the words of a message content: a string, a list of
// parts ({"type": "text", "text": ...}) or null.
func contentWords(raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		return countWords(s), nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return 0, errors.New("want a string or a list of content parts")
	}
	n := 0
	for _, p := range parts {
		n += countWords(p.Text)
	}
	return n, nil
}

// promptTokens counts a completions prompt: text (words), or token ids; a
// batch of several prompts is not served.
func promptTokens(raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, errors.New("missing")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return countWords(s), nil
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil {
		return len(ids), nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) == 1 {
		return countWords(list[0]), nil
	}
	return 0, errors.New("want a string or a list of token ids (one prompt per request)")
}

// countWords counts whitespace-separated words without allocating.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}
