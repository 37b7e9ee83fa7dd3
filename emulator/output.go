package emulator

import (
	"encoding/json"
	"strconv"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// output renders one request's tokens as vLLM's bodies: stream chunks
// (vllm/entrypoints/openai/chat_completion/serving.py
// chat_completion_stream_generator, completion/serving.py) or the whole
// response. Chunks keep vLLM's keys, null fields included (exclude_unset:
// fields the server passes as None appear as null), so a client that reads
// real vLLM reads the emulator.
type output struct {
	chat           bool
	inline         bool // thinking in the content between <think> tags
	reasoningField string
	prefix         []byte // {"id":…,"object":…,"created":…,"model":…
	seed           uint64
	prompt         int
	think          int // planned thinking tokens
	continuous     bool
	includeUsage   bool

	thinkDone, answerDone int
	rbuf, cbuf            []byte
}

func newOutput(s *Server, p *parsed, id string, think int) *output {
	o := &output{
		chat: p.chat, inline: !p.chat || s.cfg.NoReasoningParser, reasoningField: s.cfg.ReasoningField,
		seed: wordSeed(id, s.cfg.Seed), prompt: p.prompt, think: think, continuous: p.continuous, includeUsage: p.includeUsage,
	}
	object := vllmapi.ObjectTextCompletion
	if p.chat {
		object = vllmapi.ObjectChatChunk
	}
	o.prefix = o.head(nil, id, object, s.created, s.ModelName())
	return o
}

// head appends an object's opening fields (without the closing brace).
func (o *output) head(b []byte, id, object string, created int64, model string) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"object":`...)
	b = appendJSONString(b, object)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	return appendJSONString(b, model)
}

// text renders the next n thinking and m answer tokens into o.rbuf
// (reasoning) and o.cbuf (content).
func (o *output) text(n, m int) {
	o.rbuf, o.cbuf = o.rbuf[:0], o.cbuf[:0]
	if o.inline {
		if n > 0 && o.thinkDone == 0 {
			o.cbuf = append(o.cbuf, thinkOpen...)
		}
		o.cbuf = appendWords(o.cbuf, thinkWords[:], o.seed, o.thinkDone, n)
		if n > 0 && o.thinkDone+n >= o.think {
			o.cbuf = append(o.cbuf, thinkClose...)
		}
	} else {
		o.rbuf = appendWords(o.rbuf, thinkWords[:], o.seed, o.thinkDone, n)
	}
	o.cbuf = appendWords(o.cbuf, answerWords[:], o.seed^0xa5a5, o.answerDone, m)
	o.thinkDone += n
	o.answerDone += m
}

func (o *output) completion() int { return o.thinkDone + o.answerDone }

// roleChunk is the chat stream's first event, sent with the first engine
// output: role "assistant", content "" (not a token).
func (o *output) roleChunk(b []byte) []byte {
	b = append(b, "data: "...)
	b = append(b, o.prefix...)
	b = append(b, `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
	if o.continuous {
		b = append(b, `,"usage":`...)
		b = appendUsage(b, o.prompt, 0, false)
	}
	return append(b, ",\"prompt_token_ids\":null}\n\n"...)
}

// chunk is one engine step's event: n thinking and m answer tokens, with
// finish ("" while not the last).
func (o *output) chunk(b []byte, n, m int, finish string) []byte {
	o.text(n, m)
	b = append(b, "data: "...)
	b = append(b, o.prefix...)
	if o.chat {
		b = append(b, `,"choices":[{"index":0,"delta":{`...)
		if len(o.rbuf) > 0 {
			b = append(b, '"')
			b = append(b, o.reasoningField...)
			b = append(b, `":`...)
			b = appendJSONString(b, string(o.rbuf))
		}
		if len(o.cbuf) > 0 || len(o.rbuf) == 0 {
			if len(o.rbuf) > 0 {
				b = append(b, ',')
			}
			b = append(b, `"content":`...)
			b = appendJSONString(b, string(o.cbuf))
		}
		b = append(b, `},"logprobs":null,"finish_reason":`...)
	} else {
		b = append(b, `,"choices":[{"index":0,"text":`...)
		b = appendJSONString(b, string(o.cbuf))
		b = append(b, `,"logprobs":null,"finish_reason":`...)
	}
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, finish)
	}
	if o.chat {
		if finish != "" {
			b = append(b, `,"stop_reason":null`...)
		}
		b = append(b, `,"token_ids":null}]`...)
	} else {
		b = append(b, `,"stop_reason":null,"prompt_token_ids":null,"token_ids":null}]`...)
	}
	if o.continuous {
		b = append(b, `,"usage":`...)
		b = appendUsage(b, o.prompt, o.completion(), false)
	}
	return append(b, "}\n\n"...)
}

// usageChunk is the last event with include_usage: choices [] and the
// usage (exclude_none: no null fields).
func (o *output) usageChunk(b []byte) []byte {
	b = append(b, "data: "...)
	b = append(b, o.prefix...)
	b = append(b, `,"choices":[],"usage":`...)
	b = appendUsage(b, o.prompt, o.completion(), false)
	return append(b, "}\n\n"...)
}

// doneEvent ends every stream.
const doneEvent = "data: " + vllmapi.Done + "\n\n"

// errorChunk is a mid-stream failure: data: {"error": {...}}, then [DONE].
func errorChunk(b []byte, status int, typ, msg string) []byte {
	body, _ := json.Marshal(vllmapi.NewError(status, typ, msg))
	b = append(b, "data: "...)
	b = append(b, body...)
	b = append(b, "\n\n"...)
	return append(b, doneEvent...)
}

// full renders the whole response of a non-streaming request that
// generated think and answer tokens.
func (o *output) full(id string, created int64, model string, think, answer int, finish string) []byte {
	o.text(think, answer)
	var b []byte
	if o.chat {
		b = o.head(b, id, vllmapi.ObjectChatCompletion, created, model)
		b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
		b = appendJSONString(b, string(o.cbuf))
		b = append(b, `,"`...)
		b = append(b, o.reasoningField...)
		b = append(b, `":`...)
		if o.inline {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, string(o.rbuf))
		}
		b = append(b, `,"tool_calls":[]},"logprobs":null,"finish_reason":`...)
		b = appendJSONString(b, finish)
		b = append(b, `,"stop_reason":null}],"usage":`...)
		b = appendUsage(b, o.prompt, think+answer, true)
		return append(b, `,"prompt_logprobs":null,"kv_transfer_params":null}`...)
	}
	b = o.head(b, id, vllmapi.ObjectTextCompletion, created, model)
	b = append(b, `,"choices":[{"index":0,"text":`...)
	b = appendJSONString(b, string(o.cbuf))
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = appendJSONString(b, finish)
	b = append(b, `,"stop_reason":null,"prompt_logprobs":null}],"usage":`...)
	b = appendUsage(b, o.prompt, think+answer, true)
	return append(b, `,"kv_transfer_params":null}`...)
}
