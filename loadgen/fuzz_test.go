package loadgen

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// fuzzSeeds are the real captures plus the shapes that tripped other
// tools: split CRLF, comments, multi-line data, a BOM, a long line.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte("data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n"),
		[]byte(": ping\n\nevent: x\ndata: a\ndata: b\n\n\ufeffdata: c\r\r"),
		[]byte("data:" + string(bytes.Repeat([]byte("z"), 9000)) + "\n\n"), // past the first buffer
		[]byte("data: x\n"),
	}
	for _, name := range []string{
		"completions-stream-qwen3-4b-xpu-2025-06.sse",
		"chat-stream-reasoning-dualfield-qwen3vl-thinking-2025-11-excerpt.sse",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "vllmapi", name))
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzSSE: under any bytes and any read splitting, the reader never
// panics and yields exactly the reference parser's events.
func FuzzSSE(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, []byte{byte(i), 1, 0, 200})
	}
	f.Fuzz(func(t *testing.T, data, splits []byte) {
		// Read sizes 0..96; 0 is an empty read, never twice in a row (a
		// reader that returns nothing a hundred times is broken).
		var sizes []int
		for _, b := range splits {
			n := int(b % 97)
			if n == 0 && len(sizes) > 0 && sizes[len(sizes)-1] == 0 {
				n = 1
			}
			sizes = append(sizes, n)
		}
		if len(sizes) == 1 && sizes[0] == 0 {
			sizes = nil
		}
		got, evs, err := readEvents(t, NewSSEReader(&splitReader{data: data, sizes: sizes}))
		if err != io.EOF {
			t.Fatalf("error %v", err)
		}
		want := refSSE(data)
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("split %v: got %q, want %q", sizes, got, want)
		}
		for i, ev := range evs {
			if ev.Done != (got[i] == vllmapi.Done) {
				t.Fatalf("event %d: done %v", i, ev.Done)
			}
		}
	})
}

// FuzzChunk: the chunk decoder never panics; it fails exactly when the
// input is not a valid JSON object; it reads what encoding/json reads
// from every chunk encoding/json can decode (in its canonical encoding,
// which has no duplicate or case-folded keys); and the measurement takes
// any decoded chunk without panicking.
func FuzzChunk(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		for line := range bytes.Lines(s) {
			if d, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: ")); ok {
				f.Add(d)
			}
		}
	}
	for _, s := range []string{
		roleChunk(), contentChunk("<think>\n\u00e9\"x"), reasoningChunk("r"), finishChunk("length"), usageChunk(3, 4),
		`{"error":{"message":"m","type":"t","code":500}}`, `{"error":"x"}`, `{"choices":[{"text":"a"},{"text":"b"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":1}}}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0}],"reasoning_content":"\ud83d\ude00"}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d vllmapi.ChunkDecoder
		var v vllmapi.ChunkView
		err := d.Decode(data, &v)
		isObject := json.Valid(data) && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
		if (err == nil) != isObject {
			t.Fatalf("decode error %v, but valid object %v", err, isObject)
		}
		for _, parser := range []bool{false, true} {
			var s stream
			s.reset(parser, true, DefaultThinkStart, DefaultThinkEnd)
			s.chunk(&v, mt0)
			s.chunk(&v, mt0.Add(mStep))
			var m Measurement
			s.finishInto(&m)
			if m.ThinkTokens < 0 || m.AnswerTokens < 0 || m.PromptTokens < 0 {
				t.Fatalf("negative counts %+v", m)
			}
		}
		var c vllmapi.StreamChunk
		if json.Unmarshal(data, &c) != nil {
			return
		}
		canon, err := json.Marshal(&c)
		if err != nil {
			return
		}
		if err := d.Decode(canon, &v); err != nil {
			t.Fatalf("canonical %s: %v", canon, err)
		}
		if ref := c.View(); !ref.Equal(&v) {
			t.Fatalf("canonical %s:\n got %+v\nwant %+v", canon, v, ref)
		}
	})
}
