package vllmapi

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON scanner under ChunkDecoder: containers, strings (unescaped into
// scratch space only when they have escapes), numbers and literals, each
// validated as encoding/json's scanner does.

// object reads an object at d.i, calling field for each key with d.i at
// the value; field must consume the value. The callbacks are closures
// that capture only pointers, which the compiler keeps on the stack.
func (d *ChunkDecoder) object(field func(key []byte) bool) bool {
	if d.depth++; d.depth > maxDepth {
		return false
	}
	d.i++ // '{'
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return true
	}
	for {
		key, ok := d.str()
		if !ok {
			return false
		}
		d.ws()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.ws()
		if !field(key) {
			return false
		}
		d.ws()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// array reads an array at d.i, calling elem with each element's index.
func (d *ChunkDecoder) array(elem func(n int) bool) bool {
	if d.depth++; d.depth > maxDepth {
		return false
	}
	d.i++ // '['
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return true
	}
	for n := 0; ; n++ {
		if !elem(n) {
			return false
		}
		d.ws()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.ws()
		case ']':
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// strField stores a string value in *dst, nil for null; other types are
// skipped and leave *dst alone.
func (d *ChunkDecoder) strField(dst *[]byte) bool {
	switch d.peek() {
	case '"':
		s, ok := d.str()
		*dst = s
		return ok
	case 'n':
		if d.null() {
			*dst = nil
			return true
		}
		return false
	}
	return d.skip()
}

// intField stores an integer value in *dst; other values are skipped.
func (d *ChunkDecoder) intField(dst *int) bool {
	start := d.i
	if !d.skip() {
		return false
	}
	if n, ok := parseInt(d.b[start:d.i]); ok {
		*dst = n
	}
	return true
}

func (d *ChunkDecoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *ChunkDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// null consumes a null literal.
func (d *ChunkDecoder) null() bool {
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// str reads a string at d.i and returns its unescaped bytes: a slice of
// the input when it has no escapes, else of the scratch space.
func (d *ChunkDecoder) str() ([]byte, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false
	}
	d.i++
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i:d.i]
			d.i++
			return s, true
		case c == '\\':
			return d.unescape(start)
		case c < 0x20:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// unescape continues str from the first backslash, copying into scratch.
func (d *ChunkDecoder) unescape(start int) ([]byte, bool) {
	from := len(d.scratch)
	d.scratch = append(d.scratch, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.scratch[from:len(d.scratch):len(d.scratch)], true
		case c < 0x20:
			return nil, false
		case c != '\\':
			d.scratch = append(d.scratch, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return nil, false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			d.scratch = append(d.scratch, e)
		case 'b':
			d.scratch = append(d.scratch, '\b')
		case 'f':
			d.scratch = append(d.scratch, '\f')
		case 'n':
			d.scratch = append(d.scratch, '\n')
		case 'r':
			d.scratch = append(d.scratch, '\r')
		case 't':
			d.scratch = append(d.scratch, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				// A pair is two escapes; anything else is U+FFFD, as in
				// encoding/json.
				r2 := rune(-1)
				if len(d.b)-d.i >= 6 && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					if x, ok := d.hex4(); ok {
						r2 = x
					} else {
						return nil, false
					}
					if dr := utf16.DecodeRune(r, r2); dr != utf8.RuneError {
						r = dr
					} else {
						d.i = save // the second escape stands alone
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			d.scratch = utf8.AppendRune(d.scratch, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

func (d *ChunkDecoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
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
	d.i += 4
	return r, true
}

// skip consumes and validates one value of any type.
func (d *ChunkDecoder) skip() bool {
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(func([]byte) bool { return d.skip() })
	case c == '[':
		return d.array(func(int) bool { return d.skip() })
	case c == '"':
		return d.skipString()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	}
	return false
}

// skipString validates a string without decoding it.
func (d *ChunkDecoder) skipString() bool {
	d.i++
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return false
			}
			switch d.b[d.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i += 2
			case 'u':
				d.i += 2
				if _, ok := d.hex4(); !ok {
					return false
				}
			default:
				return false
			}
			continue
		}
		d.i++
	}
	return false
}

func (d *ChunkDecoder) literal(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *ChunkDecoder) number() bool {
	if d.peek() == '-' {
		d.i++
	}
	switch c := d.peek(); {
	case c == '0':
		d.i++
	case '1' <= c && c <= '9':
		d.digits()
	default:
		return false
	}
	if d.peek() == '.' {
		d.i++
		if !d.digits() {
			return false
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.i++
		if c := d.peek(); c == '+' || c == '-' {
			d.i++
		}
		if !d.digits() {
			return false
		}
	}
	return true
}

// digits consumes one or more digits.
func (d *ChunkDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// parseInt reads a JSON integer that fits an int32-safe range; fractions,
// exponents and overflow are not integers here (encoding/json refuses them
// for an int field).
func parseInt(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// atoi reads a numeric string code ("400"), else 0.
func atoi(s []byte) int {
	n, _ := parseInt(s)
	return n
}
