// Package vllmapi is vLLM's OpenAI-compatible wire format as thinkcap
// needs it: request bodies, stream chunks, usage, error bodies and metric
// names (with their aliases across versions). Both the load generator and
// the emulator import it, so the client and the server cannot drift apart.
// Facts and their places in vLLM's source: reference/vllm-facts.md §4-§6.
package vllmapi
