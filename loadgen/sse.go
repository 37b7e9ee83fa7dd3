package loadgen

import (
	"bytes"
	"fmt"
	"io"
	"time"
)

// SSEEvent is one dispatched server-sent event.
type SSEEvent struct {
	// Data is the event's data: its data fields' values joined with "\n".
	// It aliases the reader's buffers and is valid until the next Next.
	Data []byte
	// At is when the read that completed the event returned, taken before
	// anything decodes the event. Events completed by the same read share
	// it: their gaps are honestly about 0 (TCP coalesced them).
	At time.Time
	// Done marks the "[DONE]" event that ends an OpenAI-style stream.
	Done bool
}

// SSEReader reads server-sent events (the WHATWG HTML "event stream"
// format) from a byte stream, as vLLM's streaming routes write them:
// "data: <json>\n\n" per event. It has no line-length limit (bufio.Scanner's
// 64 KiB would cut long events: logprobs, tool calls, per-request metrics);
// lines may end in "\r\n", "\n" or "\r"; a leading byte-order mark is
// dropped; comment lines (":" keep-alives) and fields other than data are
// ignored; several data lines in one event are joined with "\n"; an event
// cut off by the end of the stream is dropped (see Next). Reading reuses one buffer: a single-line event
// (all of vLLM's) costs no allocation. The zero value is not usable; see
// NewSSEReader.
type SSEReader struct {
	r io.Reader
	// MaxEventBytes bounds one event's size (0: no bound); a bigger event
	// fails Next with an error rather than growing the buffer without end.
	MaxEventBytes int

	buf  []byte
	end  int // buf[:end] holds data read
	pos  int // next byte to scan
	seen int // buf[pos:seen] is known to hold no line end
	ev   int // start of the event being parsed (buf[ev:pos] are its lines)
	err  error
	bom  bool // the byte-order-mark check is done
	crlf bool // the last line ended in "\r": a "\n" right after belongs to it

	nData          int    // data fields seen in the event
	dataOff, dataN int    // the first data value, relative to ev
	multi          []byte // the joined values once there are two or more

	readAt, firstAt time.Time
}

const sseInitialBuffer = 4 << 10

// maxEmptyReads bounds consecutive reads that return nothing and no
// error, which io.Reader discourages but allows.
const maxEmptyReads = 100

// NewSSEReader returns a reader of the events in r.
func NewSSEReader(r io.Reader) *SSEReader {
	s := &SSEReader{}
	s.Reset(r)
	return s
}

// Reset makes s read a new stream from r, keeping its buffers (a buffer
// grown past 1 MiB by one huge event is let go).
func (s *SSEReader) Reset(r io.Reader) {
	buf, multi := s.buf, s.multi
	if cap(buf) > 1<<20 || cap(buf) == 0 {
		buf = make([]byte, sseInitialBuffer)
	}
	if cap(multi) > 1<<20 {
		multi = nil
	}
	*s = SSEReader{r: r, MaxEventBytes: s.MaxEventBytes, buf: buf[:cap(buf)], multi: multi[:0]}
}

// FirstByteAt is when the first bytes of the stream arrived; zero before.
func (s *SSEReader) FirstByteAt() time.Time { return s.firstAt }

// Next returns the next event. At the end of the stream it returns io.EOF;
// a read error is returned as is. An event cut off by the end of the
// stream is dropped, as the specification says, unless the stream ended
// right after a complete line: then only the blank line is missing and the
// data is whole, so the event is dispatched (a published vLLM capture ends
// that way, and line-oriented clients accept it).
func (s *SSEReader) Next() (SSEEvent, error) {
	for {
		if ev, ok := s.scan(); ok {
			return ev, nil
		}
		if s.err != nil {
			if s.err == io.EOF && s.pos == s.end && s.nData > 0 {
				ev, _ := s.dispatch()
				return ev, nil
			}
			return SSEEvent{}, s.err
		}
		if err := s.fill(); err != nil {
			s.err = err // bytes that came with it are scanned first
		}
	}
}

// scan parses the complete lines in buf[pos:end] until an event is
// dispatched.
func (s *SSEReader) scan() (SSEEvent, bool) {
	if !s.bom {
		rest := s.buf[s.pos:s.end]
		const bom = "\xef\xbb\xbf"
		if len(rest) < len(bom) && s.err == nil && bytes.HasPrefix([]byte(bom), rest) {
			return SSEEvent{}, false // too few bytes to tell
		}
		if bytes.HasPrefix(rest, []byte(bom)) {
			s.pos += len(bom)
			s.ev = s.pos
		}
		s.bom = true
	}
	for {
		if s.crlf && s.pos < s.end {
			s.crlf = false
			if s.buf[s.pos] == '\n' {
				s.pos++
				if s.nData == 0 {
					s.ev = s.pos
				}
			}
		}
		start := s.pos
		from := max(start, s.seen)
		rest := s.buf[from:s.end]
		n := bytes.IndexByte(rest, '\n')
		if n < 0 {
			n = len(rest)
		}
		var lineEnd, next int
		if cr := bytes.IndexByte(rest[:n], '\r'); cr >= 0 {
			lineEnd, next = from+cr, from+cr+1
			switch {
			case next < s.end && s.buf[next] == '\n':
				next++
			case next == s.end:
				s.crlf = true // a "\n" in the next read belongs to this line end
			}
		} else if n < len(rest) {
			lineEnd, next = from+n, from+n+1
		} else {
			s.seen = s.end // no complete line: resume the search here
			return SSEEvent{}, false
		}
		s.pos = next
		if lineEnd == start {
			if ev, ok := s.dispatch(); ok {
				return ev, true
			}
			continue
		}
		s.field(start, lineEnd)
	}
}

// field handles one non-empty line, buf[from:to].
func (s *SSEReader) field(from, to int) {
	line := s.buf[from:to]
	colon := bytes.IndexByte(line, ':')
	switch {
	case colon == 0:
		return // a comment
	case colon < 0:
		if string(line) == "data" {
			s.data(to, to)
		}
		return
	case string(line[:colon]) != "data":
		return // event, id, retry and unknown fields
	}
	v := from + colon + 1
	if v < to && s.buf[v] == ' ' {
		v++
	}
	s.data(v, to)
}

// data appends the value buf[from:to] to the event's data.
func (s *SSEReader) data(from, to int) {
	s.nData++
	switch s.nData {
	case 1:
		s.dataOff, s.dataN = from-s.ev, to-from
		return
	case 2:
		first := s.buf[s.ev+s.dataOff : s.ev+s.dataOff+s.dataN]
		s.multi = append(s.multi[:0], first...)
	}
	s.multi = append(s.multi, '\n')
	s.multi = append(s.multi, s.buf[from:to]...)
}

// dispatch ends the event at a blank line; an event without data fields
// is no event.
func (s *SSEReader) dispatch() (SSEEvent, bool) {
	var ev SSEEvent
	ok := s.nData > 0
	if ok {
		if s.nData == 1 {
			o := s.ev + s.dataOff
			ev.Data = s.buf[o : o+s.dataN : o+s.dataN]
		} else {
			ev.Data = s.multi
		}
		ev.At = s.readAt
		ev.Done = string(ev.Data) == "[DONE]"
	}
	s.nData = 0
	s.ev = s.pos
	return ev, ok
}

// fill reads more bytes, first moving the unfinished event to the front
// of the buffer or growing it.
func (s *SSEReader) fill() error {
	if s.ev > 0 {
		n := copy(s.buf, s.buf[s.ev:s.end])
		s.pos -= s.ev
		s.seen = max(s.seen-s.ev, 0)
		s.end = n
		s.ev = 0
	}
	if s.end == len(s.buf) {
		if s.MaxEventBytes > 0 && s.end >= s.MaxEventBytes {
			return fmt.Errorf("sse: event larger than %d bytes", s.MaxEventBytes)
		}
		grown := make([]byte, 2*len(s.buf))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	for range maxEmptyReads {
		n, err := s.r.Read(s.buf[s.end:])
		if n > 0 {
			s.readAt = time.Now()
			if s.firstAt.IsZero() {
				s.firstAt = s.readAt
			}
			s.end += n
			return err
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}
