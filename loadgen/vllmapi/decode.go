package vllmapi

import (
	"errors"
	"fmt"

	"github.com/thinkcap/thinkcap/internal/jsonscan"
)

// ChunkView is what a load generator reads from one stream chunk: the
// first choice's text per channel, its finish reason, the usage and an
// in-stream error. Byte slices point into the decoded data or into the
// decoder's scratch space and stay valid until the decoder's next Decode.
type ChunkView struct {
	// Choices is the length of choices: 0 on the usage-only last chunk
	// (include_usage) and on error chunks, 1 otherwise (thinkcap sends n=1).
	Choices int
	// Role is choices[0].delta.role, "assistant" on the first chat chunk.
	Role []byte
	// Content is choices[0].delta.content on chat chunks and
	// choices[0].text on completion chunks.
	Content []byte
	// Reasoning is choices[0].delta.reasoning, or delta.reasoning_content
	// when reasoning is absent or null: servers of the transition period
	// send both with the same text, which is one token, not two.
	Reasoning []byte
	// ToolCalls is the number of tool-call fragments in choices[0].delta.
	ToolCalls int
	// FinishReason is choices[0].finish_reason; nil while null.
	FinishReason []byte
	// HasUsage is set when the chunk carries a usage object (not null).
	HasUsage bool
	Usage    UsageCounts
	// HasError is set when the chunk has a non-null "error": vLLM's
	// mid-stream failure, {"error": {"message", "type", "code"}}.
	HasError bool
	Error    ErrorView
}

// UsageCounts are a usage object's counts.
type UsageCounts struct {
	PromptTokens, CompletionTokens, TotalTokens int
	// CachedTokens is prompt_tokens_details.cached_tokens (servers with
	// --enable-prompt-tokens-details).
	CachedTokens int
	// ReasoningTokens is completion_tokens_details.reasoning_tokens, which
	// only newer servers send (HasReasoningTokens).
	ReasoningTokens    int
	HasReasoningTokens bool
}

// ErrorView is an in-stream error's fields.
type ErrorView struct {
	Message, Type []byte
	// Code is a numeric code, or 0.
	Code int
}

// ChunkDecoder decodes stream chunks into ChunkViews without allocating
// once its scratch space has grown: at 100,000 token events a second,
// encoding/json's reflection and per-string allocations would be most of a
// load generator's CPU. It validates the whole chunk as JSON (Decode fails
// exactly when encoding/json.Valid does, or when the value is not an
// object) and reads only the fields above; a field of an unexpected type is
// skipped. Keys match exactly (encoding/json also accepts other cases). The
// zero value is ready to use; a decoder is not safe for concurrent use.
type ChunkDecoder struct {
	s jsonscan.Scanner
}

// maxDepth is encoding/json's nesting limit, so that Decode and json.Valid
// agree on every input.
const maxDepth = jsonscan.EncodingJSONDepth

var errNotObject = errors.New("chunk is not a json object")

// Decode reads data, one event's JSON, into v.
func (d *ChunkDecoder) Decode(data []byte, v *ChunkView) error {
	*v = ChunkView{}
	s := &d.s
	s.Reset(data)
	s.MaxDepth = maxDepth
	s.WS()
	if s.I >= len(s.B) || s.B[s.I] != '{' {
		if s.I < len(s.B) && s.Skip() {
			if s.WS(); s.I == len(s.B) {
				return errNotObject
			}
		}
		return d.syntaxError()
	}
	if !d.top(v) {
		return d.syntaxError()
	}
	if s.WS(); s.I != len(s.B) {
		return d.syntaxError()
	}
	return nil
}

func (d *ChunkDecoder) syntaxError() error {
	return fmt.Errorf("malformed chunk json at byte %d of %d", min(d.s.I, len(d.s.B)), len(d.s.B))
}

// top reads the chunk object.
func (d *ChunkDecoder) top(v *ChunkView) bool {
	return d.s.Object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			return d.choices(v)
		case "usage":
			return d.usage(v)
		case "error":
			return d.errorValue(v)
		}
		return d.s.Skip()
	})
}

func (d *ChunkDecoder) choices(v *ChunkView) bool {
	if d.s.Peek() != '[' {
		if d.null() {
			v.Choices = 0
			return true
		}
		return d.s.Skip()
	}
	v.Choices = 0
	return d.s.Array(func(n int) bool {
		v.Choices = n + 1
		if n == 0 && d.s.Peek() == '{' {
			return d.choice(v)
		}
		return d.s.Skip()
	})
}

func (d *ChunkDecoder) choice(v *ChunkView) bool {
	return d.s.Object(func(key []byte) bool {
		switch string(key) {
		case "delta":
			if d.s.Peek() == '{' {
				return d.delta(v)
			}
		case "text":
			return d.strField(&v.Content)
		case "finish_reason":
			return d.strField(&v.FinishReason)
		}
		return d.s.Skip()
	})
}

func (d *ChunkDecoder) delta(v *ChunkView) bool {
	// reasoning wins over reasoning_content when both are non-null, in
	// whichever order they come.
	var reasoning, reasoningContent []byte
	var hasReasoning bool
	ok := d.s.Object(func(key []byte) bool {
		switch string(key) {
		case "role":
			return d.strField(&v.Role)
		case "content":
			return d.strField(&v.Content)
		case "reasoning":
			if d.null() {
				hasReasoning, reasoning = false, nil
				return true
			}
			hasReasoning = d.s.Peek() == '"'
			return d.strField(&reasoning)
		case "reasoning_content":
			return d.strField(&reasoningContent)
		case "tool_calls":
			if d.s.Peek() == '[' {
				v.ToolCalls = 0
				return d.s.Array(func(n int) bool {
					v.ToolCalls = n + 1
					return d.s.Skip()
				})
			}
			if d.null() {
				v.ToolCalls = 0
				return true
			}
		}
		return d.s.Skip()
	})
	if hasReasoning {
		v.Reasoning = reasoning
	} else {
		v.Reasoning = reasoningContent
	}
	return ok
}

func (d *ChunkDecoder) usage(v *ChunkView) bool {
	if d.s.Peek() != '{' {
		if d.null() {
			v.HasUsage, v.Usage = false, UsageCounts{}
			return true
		}
		return d.s.Skip()
	}
	v.HasUsage = true
	u := &v.Usage
	return d.s.Object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return d.intField(&u.PromptTokens)
		case "completion_tokens":
			return d.intField(&u.CompletionTokens)
		case "total_tokens":
			return d.intField(&u.TotalTokens)
		case "prompt_tokens_details":
			if d.s.Peek() == '{' {
				return d.detail("cached_tokens", &u.CachedTokens, nil)
			}
		case "completion_tokens_details":
			if d.s.Peek() == '{' {
				return d.detail("reasoning_tokens", &u.ReasoningTokens, &u.HasReasoningTokens)
			}
		case "reasoning_tokens":
			// SGLang's place for it, the usage itself
			// (sglang/srt/entrypoints/openai/protocol.py UsageInfo).
			if d.s.Peek() != 'n' {
				u.HasReasoningTokens = true
				return d.intField(&u.ReasoningTokens)
			}
		}
		return d.s.Skip()
	})
}

// detail reads a usage details object for its integer member name, and
// sets *has (when has is not nil) if the member is there and not null.
func (d *ChunkDecoder) detail(name string, dst *int, has *bool) bool {
	return d.s.Object(func(key []byte) bool {
		if string(key) != name || d.s.Peek() == 'n' {
			return d.s.Skip()
		}
		if has != nil {
			*has = true
		}
		return d.intField(dst)
	})
}

func (d *ChunkDecoder) errorValue(v *ChunkView) bool {
	switch d.s.Peek() {
	case 'n':
		if d.null() {
			v.HasError, v.Error = false, ErrorView{}
			return true
		}
		return false
	case '"':
		v.HasError = true
		return d.strField(&v.Error.Message)
	case '{':
		v.HasError = true
		e := &v.Error
		return d.s.Object(func(key []byte) bool {
			switch string(key) {
			case "message":
				return d.strField(&e.Message)
			case "type":
				return d.strField(&e.Type)
			case "code":
				if d.s.Peek() == '"' {
					s, ok := d.s.String()
					if ok {
						e.Code = atoi(s)
					}
					return ok
				}
				return d.intField(&e.Code)
			}
			return d.s.Skip()
		})
	}
	v.HasError = true
	return d.s.Skip()
}
