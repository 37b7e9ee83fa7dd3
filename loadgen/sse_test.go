package loadgen

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// refSSE is the event-stream algorithm of the WHATWG HTML standard written
// as plainly as possible over a whole input: the reference SSEReader must
// match under any read splitting.
func refSSE(in []byte) []string {
	s := strings.TrimPrefix(string(in), "\ufeff")
	var events []string
	var data strings.Builder
	hasData := false
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			// An unfinished line, and its event, are dropped; an event whose
			// lines are all complete is dispatched (SSEReader.Next says why).
			if s == "" && hasData {
				events = append(events, strings.TrimSuffix(data.String(), "\n"))
			}
			return events
		}
		line := s[:i]
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			s = s[i+2:]
		} else {
			s = s[i+1:]
		}
		switch {
		case line == "":
			if hasData {
				events = append(events, strings.TrimSuffix(data.String(), "\n"))
			}
			data.Reset()
			hasData = false
		case line[0] == ':':
		default:
			name, value, found := strings.Cut(line, ":")
			if found {
				value = strings.TrimPrefix(value, " ")
			}
			if name == "data" {
				data.WriteString(value)
				data.WriteByte('\n')
				hasData = true
			}
		}
	}
}

// splitReader returns its data in pieces whose sizes cycle through sizes
// (0: an empty read with no error).
type splitReader struct {
	data  []byte
	sizes []int
	n     int
}

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	size := len(r.data)
	if len(r.sizes) > 0 {
		size = r.sizes[r.n%len(r.sizes)]
		r.n++
	}
	size = min(size, len(p), len(r.data))
	n := copy(p, r.data[:size])
	r.data = r.data[n:]
	return n, nil
}

// readAll reads every event of r.
func readEvents(t testing.TB, r *SSEReader) ([]string, []SSEEvent, error) {
	t.Helper()
	var out []string
	var evs []SSEEvent
	for range 1 << 20 {
		ev, err := r.Next()
		if err != nil {
			return out, evs, err
		}
		out = append(out, string(ev.Data))
		ev.Data = nil
		evs = append(evs, ev)
	}
	t.Fatal("no end")
	return nil, nil, nil
}

func TestSSEReader(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // past bufio.Scanner's 64 KiB
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"vllm", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`{"a":1}`, "[DONE]"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"cr only", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"mixed endings", "data: a\r\n\ndata: b\n\r\ndata: c\r\r\n", []string{"a", "b", "c"}},
		{"no space after colon", "data:a\n\n", []string{"a"}},
		{"two spaces keep one", "data:  a\n\n", []string{" a"}},
		{"multi-line data", "data: a\ndata: b\ndata:\ndata: c\n\n", []string{"a\nb\n\nc"}},
		{"comments and other fields", ": ping\nevent: message\nid: 7\nretry: 10\ndata: x\n: mid\n\n", []string{"x"}},
		{"keep-alive only", ": keep-alive\n\n: again\n\n", nil},
		{"field without colon", "data\n\ndata\ndata\n\n", []string{"", "\n"}},
		{"empty data", "data:\n\n", []string{""}},
		{"unknown field names", "Data: no\ndatax: no\n data: no\n\n", nil},
		{"bom", "\ufeffdata: a\n\n", []string{"a"}},
		{"bom only once", "\ufeff\ufeffdata: a\n\n", nil},
		{"missing last blank line", "data: a\n\ndata: b\n", []string{"a", "b"}},
		{"missing last blank line, cr", "data: a\r", []string{"a"}},
		{"unfinished last line dropped", "data: a\n\ndata: b\ndata: c", []string{"a"}},
		{"blank lines between", "\n\n\ndata: a\n\n\n\ndata: b\n\n", []string{"a", "b"}},
		{"colon in value", "data: {\"k\":\"v:w\"}\n\n", []string{`{"k":"v:w"}`}},
		{"long event", "data: " + big + "\n\ndata: b\n\n", []string{big, "b"}},
		{"long multi-line event", "data: " + big + "\ndata: " + big + "\n\n", []string{big + "\n" + big}},
	} {
		if ref := refSSE([]byte(tc.in)); !reflect.DeepEqual(ref, tc.want) {
			t.Fatalf("%s: reference gives %q", tc.name, ref)
		}
		for _, sizes := range [][]int{nil, {1}, {2, 0, 3}, {7}, {4096}, {5, 1, 0, 64 << 10}} {
			r := NewSSEReader(&splitReader{data: []byte(tc.in), sizes: sizes})
			got, evs, err := readEvents(t, r)
			if err != io.EOF {
				t.Errorf("%s %v: error %v", tc.name, sizes, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s %v: got %.80q, want %.80q", tc.name, sizes, got, tc.want)
			}
			for i, ev := range evs {
				if ev.Done != (got[i] == "[DONE]") || ev.At.IsZero() {
					t.Errorf("%s %v: event %d done=%v at=%v", tc.name, sizes, i, ev.Done, ev.At)
				}
			}
		}
	}
}

func TestSSEReaderErrors(t *testing.T) {
	boom := errors.New("connection reset by peer")
	r := NewSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), &failingReader{boom}))
	got, _, err := readEvents(t, r)
	if !reflect.DeepEqual(got, []string{"a"}) || err != boom {
		t.Errorf("got %q, %v", got, err)
	}
	// The error sticks.
	if _, err := r.Next(); err != boom {
		t.Errorf("again: %v", err)
	}

	r = NewSSEReader(strings.NewReader("data: " + strings.Repeat("y", 100<<10) + "\n\n"))
	r.MaxEventBytes = 64 << 10
	if _, _, err := readEvents(t, r); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("max event: %v", err)
	}

	r = NewSSEReader(&splitReader{data: []byte("data: a\n\n"), sizes: []int{0}})
	if _, err := r.Next(); err != io.ErrNoProgress {
		t.Errorf("empty reads: %v", err)
	}
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// TestSSEReaderTimes: each event carries the time its read returned, not
// the time Next was called, and events of one read share it.
func TestSSEReaderTimes(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("data: 1\n\ndata: 2\n\n"))
		time.Sleep(30 * time.Millisecond)
		pw.Write([]byte("data: 3\n"))
		time.Sleep(30 * time.Millisecond)
		pw.Write([]byte("\n"))
		pw.Close()
	}()
	r := NewSSEReader(pr)
	start := time.Now()
	e1, _ := r.Next()
	time.Sleep(20 * time.Millisecond) // a slow consumer
	e2, _ := r.Next()
	e3, _ := r.Next()
	if !e1.At.Equal(e2.At) {
		t.Errorf("events of one read: %v and %v", e1.At, e2.At)
	}
	if d := e1.At.Sub(start); d < 0 || d > 20*time.Millisecond {
		t.Errorf("first event stamped %v after start", d)
	}
	// Event 3 completes with the last write, ~60 ms in.
	if d := e3.At.Sub(e1.At); d < 50*time.Millisecond {
		t.Errorf("third event %v after the first, want its completing read's time", d)
	}
	if first := r.FirstByteAt(); !first.Equal(e1.At) {
		t.Errorf("first byte %v, first event %v", first, e1.At)
	}
}

// TestSSEReaderReset reuses one reader for several streams.
func TestSSEReaderReset(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: " + strings.Repeat("z", 2<<20) + "\n\n"))
	if got, _, _ := readEvents(t, r); len(got) != 1 || len(got[0]) != 2<<20 {
		t.Fatalf("big: %d events", len(got))
	}
	r.Reset(strings.NewReader("data: a\n\ndata: b"))
	if got, _, _ := readEvents(t, r); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("after reset: %q", got)
	}
	if cap(r.buf) > 1<<20 {
		t.Errorf("kept a %d-byte buffer", cap(r.buf))
	}
}

// TestSSEReaderAllocs: single-line events cost no allocation once the
// buffer exists.
func TestSSEReaderAllocs(t *testing.T) {
	stream := bytes.Repeat([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"), 200)
	src := bytes.NewReader(stream)
	r := NewSSEReader(src)
	allocs := testing.AllocsPerRun(20, func() {
		src.Reset(stream)
		r.Reset(src)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 200 events", allocs)
	}
}

func TestSSEReaderRandomSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"data: ", "a", "b", ":", " ", "\n", "\r", "\r\n", "\n\n", "data", ": c\n", "[DONE]", "\ufeff", "event: x\n"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		in := []byte(b.String())
		sizes := []int{1 + rng.IntN(8), rng.IntN(3), 1 + rng.IntN(64)}
		got, _, _ := readEvents(t, NewSSEReader(&splitReader{data: in, sizes: sizes}))
		if want := refSSE(in); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("%q split %v: got %q, want %q", in, sizes, got, want)
		}
	}
}

// BenchmarkSSE reads a stream of vLLM-sized chat chunks from memory.
func BenchmarkSSE(b *testing.B) {
	const events = 1000
	event := []byte(`data: {"id":"chatcmpl-84fcf3946abda724","object":"chat.completion.chunk","created":1781964066,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":" Hello"},"logprobs":null,"finish_reason":null,"token_ids":null}]}` + "\n\n")
	stream := bytes.Repeat(event, events)
	src := bytes.NewReader(stream)
	r := NewSSEReader(src)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		src.Reset(stream)
		r.Reset(src)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}
