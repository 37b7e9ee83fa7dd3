package vllmapi

// The chunk decoder's field readers, on the shared scanner
// (internal/jsonscan): a field of an unexpected type is skipped.

// strField stores a string value in *dst, nil for null; other types are
// skipped and leave *dst alone.
func (d *ChunkDecoder) strField(dst *[]byte) bool {
	switch d.s.Peek() {
	case '"':
		s, ok := d.s.String()
		*dst = s
		return ok
	case 'n':
		if d.null() {
			*dst = nil
			return true
		}
		return false
	}
	return d.s.Skip()
}

// intField stores an integer value in *dst; other values are skipped.
func (d *ChunkDecoder) intField(dst *int) bool {
	start := d.s.I
	if !d.s.Skip() {
		return false
	}
	if n, ok := parseInt(d.s.B[start:d.s.I]); ok {
		*dst = n
	}
	return true
}

// null consumes a null literal.
func (d *ChunkDecoder) null() bool { return d.s.Literal("null") }

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
