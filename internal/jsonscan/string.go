package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
)

// strByte marks the bytes that end or escape a string, or are invalid in
// one.
var strByte [256]bool

func init() {
	for c := range 256 {
		strByte[c] = c == '"' || c == '\\' || c < 0x20
	}
}

// SkipString reads and validates the string whose opening quote is at I,
// checking its escapes; bytes ≥ 0x80 pass as encoding/json passes them
// (invalid UTF-8 is replaced only on decoding). On failure I is left where
// the string went wrong: at a control byte, at the backslash of a bad
// escape, at the digits of a bad \u escape, or at the end.
func (s *Scanner) SkipString() bool { return s.skipString(0) }

// skipKey is SkipString for a key nobody reads: it fails where String
// would, after the letter of a bad escape.
func (s *Scanner) skipKey() bool { return s.skipString(2) }

// skipString is SkipString, leaving I badEscape bytes past the backslash
// of a bad escape.
func (s *Scanner) skipString(badEscape int) bool {
	b := s.B
	for i := s.I + 1; i < len(b); i++ {
		if !strByte[b[i]] {
			continue
		}
		switch c := b[i]; {
		case c == '"':
			s.I = i + 1
			return true
		case c < 0x20:
			s.I = i
			return false
		}
		// A backslash.
		if i+1 >= len(b) {
			s.I = i
			return false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if len(b)-(i+2) < 4 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				s.I = i + 2
				return false
			}
			i += 5
		default:
			s.I = i + badEscape
			return false
		}
	}
	s.I = len(b)
	return false
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// String reads the string at I and returns its unescaped bytes, as
// encoding/json decodes them: a slice of B when it has no escapes, else of
// Scratch (valid until Reset).
func (s *Scanner) String() ([]byte, bool) {
	if s.I >= len(s.B) || s.B[s.I] != '"' {
		return nil, false
	}
	s.I++
	start := s.I
	for s.I < len(s.B) {
		c := s.B[s.I]
		switch {
		case c == '"':
			v := s.B[start:s.I:s.I]
			s.I++
			return v, true
		case c == '\\':
			return s.unescape(start)
		case c < 0x20:
			return nil, false
		}
		s.I++
	}
	return nil, false
}

// unescape continues String from the first backslash, copying into
// Scratch.
func (s *Scanner) unescape(start int) ([]byte, bool) {
	from := len(s.Scratch)
	s.Scratch = append(s.Scratch, s.B[start:s.I]...)
	for s.I < len(s.B) {
		c := s.B[s.I]
		switch {
		case c == '"':
			s.I++
			return s.Scratch[from:len(s.Scratch):len(s.Scratch)], true
		case c < 0x20:
			return nil, false
		case c != '\\':
			s.Scratch = append(s.Scratch, c)
			s.I++
			continue
		}
		if s.I+1 >= len(s.B) {
			return nil, false
		}
		e := s.B[s.I+1]
		s.I += 2
		switch e {
		case '"', '\\', '/':
			s.Scratch = append(s.Scratch, e)
		case 'b':
			s.Scratch = append(s.Scratch, '\b')
		case 'f':
			s.Scratch = append(s.Scratch, '\f')
		case 'n':
			s.Scratch = append(s.Scratch, '\n')
		case 'r':
			s.Scratch = append(s.Scratch, '\r')
		case 't':
			s.Scratch = append(s.Scratch, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				r, ok = s.lowSurrogate(r)
				if !ok {
					return nil, false
				}
			}
			s.Scratch = utf8.AppendRune(s.Scratch, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

// lowSurrogate completes the surrogate r: a pair is two escapes; anything
// else is U+FFFD, as in encoding/json, and a second escape that does not
// pair stands alone.
func (s *Scanner) lowSurrogate(r rune) (rune, bool) {
	if len(s.B)-s.I < 6 || s.B[s.I] != '\\' || s.B[s.I+1] != 'u' {
		return utf8.RuneError, true
	}
	save := s.I
	s.I += 2
	r2, ok := s.hex4()
	if !ok {
		return 0, false
	}
	if dr := utf16.DecodeRune(r, r2); dr != utf8.RuneError {
		return dr, true
	}
	s.I = save
	return utf8.RuneError, true
}

// hex4 reads the four hex digits of a \u escape.
func (s *Scanner) hex4() (rune, bool) {
	if len(s.B)-s.I < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.B[s.I : s.I+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.I += 4
	return r, true
}
