package vllmapi

// Routes of vLLM's OpenAI-compatible server
// (vllm/entrypoints/openai/api_server.py and the routers it mounts).
const (
	PathChatCompletions = "/v1/chat/completions"
	PathCompletions     = "/v1/completions"
	PathModels          = "/v1/models"
	PathMetrics         = "/metrics"
	PathVersion         = "/version"
)

// HeaderRequestID is the header vLLM takes a request's id from when the
// body has no request_id (serving's _base_request_id); the id reappears in
// the chunk ids (chatcmpl-<id>) and in the server's logs, which is how a
// client record is joined with the server's view of the same request.
const HeaderRequestID = "X-Request-Id"

// Message is one chat message. Only text content: thinkcap sends one user
// message of synthetic or logged text.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// StreamOptions is stream_options. vLLM rejects it without stream: true
// (400, "Stream options can only be defined when `stream=True`.").
type StreamOptions struct {
	// IncludeUsage asks for a last chunk with choices: [] and usage
	// (chat_completion/serving.py, completion/serving.py).
	IncludeUsage bool `json:"include_usage,omitempty"`
	// ContinuousUsageStats (with IncludeUsage) puts the cumulative usage on
	// every chunk: include_continuous = include_usage and
	// continuous_usage_stats.
	ContinuousUsageStats bool `json:"continuous_usage_stats,omitempty"`
}

// ChatTemplateKwargs are passed to the chat template; for Qwen3,
// {"enable_thinking": false} turns thinking off for one request
// (docs/features/reasoning_outputs.md).
type ChatTemplateKwargs map[string]any

// EnableThinking returns the enable_thinking kwarg when it is a boolean.
func (k ChatTemplateKwargs) EnableThinking() (on, ok bool) {
	on, ok = k["enable_thinking"].(bool)
	return on, ok
}

// SamplingExtras are vLLM's extensions to the OpenAI request bodies that
// both routes accept as top-level fields (chat_completion/protocol.py and
// completion/protocol.py, mapped onto vllm/sampling_params.py). Zero means
// "not sent": vLLM's defaults are min_tokens 0, ignore_eos false, no
// budget, priority 0.
type SamplingExtras struct {
	// MinTokens suppresses EOS and stop token ids until this many tokens
	// have been generated; vLLM requires it to be at most max_tokens.
	MinTokens int `json:"min_tokens,omitempty"`
	// IgnoreEOS keeps generating past EOS until max_tokens. It breaks
	// Harmony models (gpt-oss): generation runs past <|return|> and the
	// harmony parser fails in-stream.
	IgnoreEOS bool `json:"ignore_eos,omitempty"`
	// ThinkingTokenBudget caps reasoning tokens; at the cap vLLM forces the
	// parser's reasoning end string (vllm/v1/sample/thinking_budget_state.py).
	// -1 is unlimited; nil is not sent. It needs a reasoning config (or
	// --reasoning-parser since #38214), else the request fails.
	ThinkingTokenBudget *int `json:"thinking_token_budget,omitempty"`
	// RequestID becomes the engine's request id (and the chunk ids).
	RequestID string `json:"request_id,omitempty"`
	// Priority needs --scheduling-policy priority; lower is served first.
	Priority int `json:"priority,omitempty"`
	// VLLMXArgs is vllm_xargs: extra per-request arguments (string or
	// number values) that vLLM hands to custom extensions as
	// SamplingParams.extra_args (chat_completion/protocol.py); stock vLLM
	// ignores keys it does not know. thinkcap puts XArgThinkTokens here.
	VLLMXArgs map[string]any `json:"vllm_xargs,omitempty"`
}

// XArgThinkTokens is the vllm_xargs key with which a length-forced request
// (min_tokens = max_tokens) says how many of its tokens should be thinking.
// A real model thinks as long as it likes; thinkcap serve honours it, so
// that a load test against the emulator gets the think/answer split of its
// records (vLLM's API has no field for it).
const XArgThinkTokens = "thinkcap_think_tokens"

// ChatRequest is the body of POST /v1/chat/completions
// (vllm/entrypoints/openai/chat_completion/protocol.py
// ChatCompletionRequest), restricted to the fields thinkcap sends.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// MaxCompletionTokens bounds reasoning plus answer; it takes precedence
	// over the deprecated MaxTokens in chat.
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	Stream              bool           `json:"stream,omitempty"`
	StreamOptions       *StreamOptions `json:"stream_options,omitempty"`
	Stop                []string       `json:"stop,omitempty"`
	// Temperature is nil to leave the server's default (the model's
	// generation_config, else 1.0): greedy versus sampled changes output
	// lengths and spec-decode acceptance, so callers record it.
	Temperature        *float64           `json:"temperature,omitempty"`
	ChatTemplateKwargs ChatTemplateKwargs `json:"chat_template_kwargs,omitempty"`
	// ReasoningEffort is passed to the chat template; since #43401 vLLM also
	// derives enable_thinking from it when that is unset. Not a budget.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ContinueFinalMessage continues the last (assistant) message instead
	// of starting a new one, and then AddGenerationPrompt must be false
	// (vllm/entrypoints/openai/chat_completion/protocol.py): a gateway's
	// second call of a two-phase thinking budget.
	ContinueFinalMessage bool  `json:"continue_final_message,omitempty"`
	AddGenerationPrompt  *bool `json:"add_generation_prompt,omitempty"`
	SamplingExtras
}

// CompletionRequest is the body of POST /v1/completions
// (vllm/entrypoints/openai/completion/protocol.py CompletionRequest). No
// chat template applies, so there is no enable_thinking or effort.
type CompletionRequest struct {
	Model string `json:"model"`
	// Prompt is text; vLLM also accepts token ids and lists, which thinkcap
	// does not send.
	Prompt        string         `json:"prompt"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	Stop          []string       `json:"stop,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	SamplingExtras
}

// MaxOutputTokens is the output bound the server applies: max_completion_tokens,
// else max_tokens; 0 when neither is set.
func (r *ChatRequest) MaxOutputTokens() int {
	if r.MaxCompletionTokens > 0 {
		return r.MaxCompletionTokens
	}
	return r.MaxTokens
}
