package vllmapi

// ChatCompletion is a non-streaming /v1/chat/completions response
// (chat_completion/protocol.py ChatCompletionResponse).
type ChatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
	Usage   *Usage       `json:"usage,omitempty"`
}

// ChatChoice is one choice of a ChatCompletion.
type ChatChoice struct {
	Index        int         `json:"index"`
	Message      ChatMessage `json:"message"`
	FinishReason *string     `json:"finish_reason"`
	StopReason   any         `json:"stop_reason,omitempty"`
}

// ChatMessage is a complete assistant message. Without a reasoning parser
// the thinking stays inline in Content between <think> and </think>, and
// Reasoning/ReasoningContent are null (see
// chat-completion-nonstream-qwen3-8b-thinking-inline-vllm-0.9.json).
type ChatMessage struct {
	Role             string          `json:"role"`
	Content          *string         `json:"content"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCallDelta `json:"tool_calls,omitempty"`
}

// Completion is a non-streaming /v1/completions response
// (completion/protocol.py CompletionResponse).
type Completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []CompletionChoice `json:"choices"`
	Usage   *Usage             `json:"usage,omitempty"`
}

// CompletionChoice is one choice of a Completion.
type CompletionChoice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	FinishReason *string `json:"finish_reason"`
	StopReason   any     `json:"stop_reason,omitempty"`
}

// ModelList is GET /v1/models (vllm/entrypoints/openai/models/api_router.py
// returns ModelList.model_dump(), every field).
type ModelList struct {
	Object string      `json:"object"`
	Data   []ModelCard `json:"data"`
}

// ModelCard is one served model or LoRA adapter.
type ModelCard struct {
	// ID is a served model name (--served-model-name, else the path).
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// Root is the model path; for a LoRA adapter, the adapter's.
	Root string `json:"root,omitempty"`
	// Parent is the base model's name on a LoRA card, null otherwise.
	Parent *string `json:"parent"`
	// MaxModelLen is the effective context length (after auto-fit); null on
	// LoRA cards.
	MaxModelLen *int              `json:"max_model_len"`
	Permission  []ModelPermission `json:"permission,omitempty"`
}

// ModelPermission is a card's permission entry (always the same
// permissive values in vLLM).
type ModelPermission struct {
	ID                 string  `json:"id"`
	Object             string  `json:"object"`
	Created            int64   `json:"created"`
	AllowCreateEngine  bool    `json:"allow_create_engine"`
	AllowSampling      bool    `json:"allow_sampling"`
	AllowLogprobs      bool    `json:"allow_logprobs"`
	AllowSearchIndices bool    `json:"allow_search_indices"`
	AllowView          bool    `json:"allow_view"`
	AllowFineTuning    bool    `json:"allow_fine_tuning"`
	Organization       string  `json:"organization"`
	Group              *string `json:"group"`
	IsBlocking         bool    `json:"is_blocking"`
}

// MaxModelLen is the context length serving id: the card's own, or its
// parent's for a LoRA adapter; 0 when unknown.
func (l *ModelList) MaxModelLen(id string) int {
	// Two hops at most (adapter, base): a malformed list may loop.
	for range 2 {
		c := l.find(id)
		switch {
		case c == nil:
			return 0
		case c.MaxModelLen != nil:
			return *c.MaxModelLen
		case c.Parent == nil:
			return 0
		}
		id = *c.Parent
	}
	return 0
}

func (l *ModelList) find(id string) *ModelCard {
	for i := range l.Data {
		if l.Data[i].ID == id {
			return &l.Data[i]
		}
	}
	return nil
}

// Version is GET /version.
type Version struct {
	Version string `json:"version"`
}
