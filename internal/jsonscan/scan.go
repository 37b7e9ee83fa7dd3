// Package jsonscan is the one JSON scanner under thinkcap's hot paths: the
// request-log reader (workload's fast path, a million lines a second) and
// the stream-chunk decoder (loadgen/vllmapi, one chunk per token event).
// It validates exactly as encoding/json's scanner does and allocates
// nothing: a cursor with the pieces both readers share (whitespace,
// separators, strings with their escapes, numbers, literals, skipping a
// value), while each reader walks its own objects with them.
//
// The maintained libraries were measured first (gjson 1.20 and
// fastjson 1.6 behind the same function signatures): both need a separate
// validation pass to agree with encoding/json, fastjson stops at depth 300
// and keeps no value's text, and both read the 1M-line logs 2 to 4 times
// slower and decode a chunk about 3 to 5 times slower. encoding/json/v2
// is still an experiment (GOEXPERIMENT=jsonv2) in Go 1.26.
package jsonscan

// Scanner is a cursor over one JSON text. The zero value with MaxDepth set
// is ready: Reset it with each text. A Scanner is not safe for concurrent
// use.
type Scanner struct {
	// B is the text and I the offset of the next byte in it.
	B []byte
	I int
	// Depth counts the containers open at I; Open fails past MaxDepth.
	Depth, MaxDepth int
	// Scratch holds the strings String unescaped since the last Reset.
	Scratch []byte
}

// EncodingJSONDepth is encoding/json's nesting limit: a Scanner with this
// MaxDepth accepts exactly what json.Valid accepts.
const EncodingJSONDepth = 10000

// Reset starts the scanner on b.
func (s *Scanner) Reset(b []byte) {
	s.B, s.I, s.Depth, s.Scratch = b, 0, 0, s.Scratch[:0]
}

// Peek is the byte at I, or 0 at the end.
func (s *Scanner) Peek() byte {
	if s.I < len(s.B) {
		return s.B[s.I]
	}
	return 0
}

// space marks JSON's whitespace. The separators below skip it with a
// loop on this table so that they stay small enough to be inlined into
// the readers' loops, which call them for every member.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// WS skips whitespace.
func (s *Scanner) WS() {
	i := s.I
	for i < len(s.B) && space[s.B[i]] {
		i++
	}
	s.I = i
}

// Open enters the object or array whose bracket is at I and skips the
// whitespace after it. empty reports that the container closed at once
// (close, '}' or ']', consumed too); ok is false past MaxDepth.
func (s *Scanner) Open(close byte) (empty, ok bool) {
	if s.Depth++; s.Depth > s.MaxDepth {
		return false, false
	}
	b, i := s.B, s.I+1
	for i < len(b) && space[b[i]] {
		i++
	}
	if i < len(b) && b[i] == close {
		s.I = i + 1
		s.Depth--
		return true, true
	}
	s.I = i
	return false, true
}

// Colon reads the colon after an object key, with the whitespace around it.
func (s *Scanner) Colon() bool {
	b, i := s.B, s.I
	for i < len(b) && space[b[i]] {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		s.I = i
		return false
	}
	i++
	for i < len(b) && space[b[i]] {
		i++
	}
	s.I = i
	return true
}

// Comma reads what may follow a member or element: whitespace, and a
// comma with the whitespace after it (true: another member comes). When
// it is false, Close must find the container's end.
func (s *Scanner) Comma() bool {
	b, i := s.B, s.I
	for i < len(b) && space[b[i]] {
		i++
	}
	if i < len(b) && b[i] == ',' {
		i++
		for i < len(b) && space[b[i]] {
			i++
		}
		s.I = i
		return true
	}
	s.I = i
	return false
}

// Close leaves the container Open entered at its closing bracket close
// ('}' or ']'), which must be at I.
func (s *Scanner) Close(close byte) bool {
	if s.I < len(s.B) && s.B[s.I] == close {
		s.I++
		s.Depth--
		return true
	}
	return false
}

// Object reads the object at I, calling field with each key (unescaped,
// as String returns it) and I at its value; field must consume the value.
// Callbacks that capture only pointers stay on the caller's stack.
func (s *Scanner) Object(field func(key []byte) bool) bool {
	empty, ok := s.Open('}')
	if empty || !ok {
		return ok
	}
	for {
		key, ok := s.String()
		if !ok || !s.Colon() || !field(key) {
			return false
		}
		if !s.Comma() {
			return s.Close('}')
		}
	}
}

// Array reads the array at I, calling elem with each element's index and
// I at the element, which elem must consume.
func (s *Scanner) Array(elem func(n int) bool) bool {
	empty, ok := s.Open(']')
	if empty || !ok {
		return ok
	}
	for n := 0; ; n++ {
		if !elem(n) {
			return false
		}
		if !s.Comma() {
			return s.Close(']')
		}
	}
}

// Skip reads and validates one value of any type.
func (s *Scanner) Skip() bool {
	if s.I >= len(s.B) {
		return false
	}
	switch s.B[s.I] {
	case '"':
		return s.SkipString()
	case '{':
		return s.skipObject()
	case '[':
		return s.skipArray()
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	}
	return s.Number()
}

// skipObject fails on a bad key where Object would have failed.
func (s *Scanner) skipObject() bool {
	empty, ok := s.Open('}')
	if empty || !ok {
		return ok
	}
	for {
		if s.Peek() != '"' || !s.skipKey() || !s.Colon() || !s.Skip() {
			return false
		}
		if !s.Comma() {
			return s.Close('}')
		}
	}
}

func (s *Scanner) skipArray() bool {
	empty, ok := s.Open(']')
	if empty || !ok {
		return ok
	}
	for {
		if !s.Skip() {
			return false
		}
		if !s.Comma() {
			return s.Close(']')
		}
	}
}

// Literal reads lit (true, false or null).
func (s *Scanner) Literal(lit string) bool {
	if len(s.B)-s.I < len(lit) || string(s.B[s.I:s.I+len(lit)]) != lit {
		return false
	}
	s.I += len(lit)
	return true
}

// Number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// On failure I is left at the byte that does not fit.
func (s *Scanner) Number() bool {
	i, ok := number(s.B, s.I)
	s.I = i
	return ok
}

func number(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		if i = digits(b, i); i == start {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		if i = digits(b, i); i == start {
			return i, false
		}
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
