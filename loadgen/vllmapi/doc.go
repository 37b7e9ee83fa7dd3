// Package vllmapi is vLLM's OpenAI-compatible wire format as thinkcap
// needs it: request bodies, stream chunks, usage, error bodies and metric
// names (with their aliases across versions). Both the load generator and
// the emulator import it, so the client and the server cannot drift apart.
// Their places in vLLM's source (github.com/vllm-project/vllm): metric names
// in vllm/v1/metrics/loggers.py; streams in
// vllm/entrypoints/openai/chat_completion/serving.py and
// completion/serving.py; /v1/models in entrypoints/openai/models/api_router.py.
//
// Read first: request.go (what a client sends), chunk.go (what a stream
// carries), errors.go (the error bodies and ParseError), metrics.go (the
// /metrics families, aliases and histogram buckets). decode.go is a
// zero-allocation reader of stream chunks for the load generator's hot
// path (internal/jsonscan underneath, decode_fields.go its field
// readers); view.go ties it to the encoding/json
// types it is tested against. response.go has the non-streaming bodies and
// /v1/models.
package vllmapi
