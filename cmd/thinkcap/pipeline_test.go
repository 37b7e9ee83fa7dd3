package main

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestPipelineShorthand: -pp works as with vllm serve, and a PP stage's
// GPU holds the KV of its layers only.
func TestPipelineShorthand(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		layers int64
	}{
		{[]string{"-pp", "2"}, 32},
		{[]string{"-pp=2"}, 32},
		{[]string{"--pipeline-parallel-size", "2"}, 32},
		{[]string{"-pp", "2", "-tp", "2"}, 32}, // 4 KV heads per GPU below
		{[]string{"-pp", "1", "-tp", "2"}, 64},
	} {
		out, errOut, code := thinkcap(t, append([]string{"capacity", "--model", "qwen3-32b", "-o", "json"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		var c struct {
			KVBytesPerToken int64 `json:"kv_bytes_per_token"`
		}
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatal(err)
		}
		heads := int64(8)
		if slices.Contains(tt.args, "-tp") {
			heads = 4
		}
		// layers per stage x KV heads per GPU x 128 x 2 (K,V) x 2 bytes.
		if want := tt.layers * heads * 128 * 2 * 2; c.KVBytesPerToken != want {
			t.Errorf("%v: kv bytes per token %d; want %d", tt.args, c.KVBytesPerToken, want)
		}
	}
}
