package vllmapi

// Stream framing and chunk bodies of the streaming routes
// (vllm/entrypoints/openai/chat_completion/serving.py
// chat_completion_stream_generator, completion/serving.py): every event is
// "data: <json>\n\n" and the stream ends with "data: [DONE]\n\n".

// Done is the data of the event that ends a stream.
const Done = "[DONE]"

// Object values of the bodies.
const (
	ObjectChatChunk      = "chat.completion.chunk"
	ObjectChatCompletion = "chat.completion"
	ObjectTextCompletion = "text_completion"
	ObjectList           = "list"
	ObjectModel          = "model"
	ObjectError          = "error"
)

// Finish reasons (vllm/v1/engine FinishReason, as the OpenAI layer spells
// them). "length" inside thinking is an unclosed <think>.
const (
	FinishStop      = "stop"
	FinishLength    = "length"
	FinishToolCalls = "tool_calls"
	FinishAbort     = "abort"
	FinishError     = "error"
)

// StreamChunk is one event's JSON on either streaming route. Chat chunks
// carry choices[].delta; completion chunks carry choices[].text. vLLM
// serialises chunks with exclude_unset=True, so a field the server set to
// None appears as null; the usage-only last chunk has "choices": [] and uses
// exclude_none=True. A mid-stream failure is a chunk with only Error set,
// followed by [DONE].
type StreamChunk struct {
	ID      string         `json:"id,omitempty"`
	Object  string         `json:"object,omitempty"`
	Created int64          `json:"created,omitempty"`
	Model   string         `json:"model,omitempty"`
	Choices []StreamChoice `json:"choices"`
	// Usage is the cumulative usage: on the last chunk with include_usage,
	// on every chunk with continuous_usage_stats (the role chunk has
	// completion_tokens 0), or null (completions before #40537).
	Usage             *Usage       `json:"usage,omitempty"`
	SystemFingerprint string       `json:"system_fingerprint,omitempty"`
	Error             *ErrorDetail `json:"error,omitempty"`
}

// StreamChoice is one element of a chunk's choices.
type StreamChoice struct {
	Index int `json:"index"`
	// Delta is set on chat chunks.
	Delta *Delta `json:"delta,omitempty"`
	// Text is set on completion chunks.
	Text *string `json:"text,omitempty"`
	// FinishReason is null until the last content chunk.
	FinishReason *string `json:"finish_reason"`
	// StopReason is null, the stop string, or the stop token id.
	StopReason any `json:"stop_reason,omitempty"`
}

// Delta is a chat chunk's increment (chat_completion/protocol.py
// DeltaMessage).
type Delta struct {
	// Role is "assistant" on the first chunk only, which carries content ""
	// and is sent with the first engine output: it is not a token.
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
	// Reasoning is the reasoning text when the server runs with
	// --reasoning-parser; the field was named reasoning_content until #27752
	// (2025-11), both were sent for a while (the same text: one token), and
	// reasoning_content left the output in #33402 (v0.16).
	Reasoning        *string `json:"reasoning,omitempty"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	// ToolCalls are tool-call fragments; output tokens like content. Some
	// versions sent "tool_calls": [] on every delta (until #44105).
	ToolCalls []ToolCallDelta `json:"tool_calls,omitempty"`
}

// ToolCallDelta is a fragment of a streamed tool call.
type ToolCallDelta struct {
	Index    int                `json:"index"`
	ID       string             `json:"id,omitempty"`
	Type     string             `json:"type,omitempty"`
	Function *FunctionCallDelta `json:"function,omitempty"`
}

// FunctionCallDelta is a fragment of a tool call's function.
type FunctionCallDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// Usage is vLLM's UsageInfo (vllm/entrypoints/openai/engine/protocol.py),
// fields in its order. CompletionTokens includes reasoning tokens: chat
// usage has no reasoning breakdown, except on servers with #45802 which add
// completion_tokens_details.reasoning_tokens (treat it as optional).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// PromptTokensDetails appears only with --enable-prompt-tokens-details.
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
	// ReasoningTokens is where SGLang puts the count: the usage itself
	// (sglang/srt/entrypoints/openai/protocol.py UsageInfo); vLLM never
	// sends it.
	ReasoningTokens *int `json:"reasoning_tokens,omitempty"`
}

// PromptTokensDetails is usage.prompt_tokens_details.
type PromptTokensDetails struct {
	// CachedTokens is the prompt's prefix-cache hit.
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails is usage.completion_tokens_details (newer
// servers only).
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}
