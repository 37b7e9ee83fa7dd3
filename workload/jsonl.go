package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// jsonDecoder turns one JSONL line into raw field text for one format:
// the format's schema says which paths to read, fill how their values
// become fields.
type jsonDecoder struct {
	format string // FormatNative, FormatOpenAI or FormatJSONL (mapped)
	schema *jsonSchema
	fast   *fastJSON
	vals   [][]byte // the reference decoder's values
	fill   func(d *jsonDecoder, vals [][]byte, raw *rawRecord) *fieldError
	// sources, for fillSources: where each field comes from.
	sources []fieldSource
}

// fieldSource reads field f from the first slot that holds a value.
type fieldSource struct {
	f     field
	slots []int
}

// nativeSchema reads the request record's own keys; slot i is field i.
var nativePaths = fieldNames[:numNativeFields]

func newNativeDecoder() *jsonDecoder {
	s, _, err := newJSONSchema(nativePaths)
	if err != nil {
		panic("workload: native schema: " + err.Error()) // a programming error
	}
	return newJSONDecoder(FormatNative, s, fillNative)
}

func newJSONDecoder(format string, s *jsonSchema, fill func(*jsonDecoder, [][]byte, *rawRecord) *fieldError) *jsonDecoder {
	return &jsonDecoder{format: format, schema: s, fast: newFastJSON(s), vals: make([][]byte, len(s.slots)), fill: fill}
}

// decode reads line (trimmed, not blank) into raw, which it resets.
// noFast sends the line to encoding/json: for the tests that hold the fast
// scanner to it.
func (d *jsonDecoder) decode(line []byte, raw *rawRecord, noFast bool) *fieldError {
	*raw = rawRecord{}
	if line[0] != '{' {
		return &fieldError{msg: "want a JSON object, got " + truncate(string(line)), reason: "want a JSON object"}
	}
	vals := d.fast.vals
	if noFast || !d.fast.extract(d.schema, line) {
		vals = d.vals
		if err := d.schema.reference(line, vals); err != nil {
			return err
		}
	}
	return d.fill(d, vals, raw)
}

func fillNative(_ *jsonDecoder, vals [][]byte, raw *rawRecord) *fieldError {
	raw.clocks = clockBitArrival | clockBitTimestamp
	for f := range numNativeFields {
		text, err := jsonText(vals[f], f, fieldNames[f])
		if err != nil {
			return err
		}
		raw.text[f] = text
	}
	return nil
}

// fillSources fills each field from the first of its slots that holds a
// value, naming the slot's path in errors.
func fillSources(d *jsonDecoder, vals [][]byte, raw *rawRecord) *fieldError {
	for _, src := range d.sources {
		for _, slot := range src.slots {
			text, err := jsonText(vals[slot], src.f, d.schema.slots[slot])
			if err != nil {
				return err
			}
			if len(text) > 0 {
				raw.text[src.f] = text
				raw.name[src.f] = d.schema.slots[slot]
				break
			}
		}
		if raw.name[src.f] == "" {
			raw.name[src.f] = d.schema.slots[src.slots[0]]
		}
		switch src.f {
		case fArrivalS:
			raw.clocks |= clockBitArrival
		case fTimestamp:
			raw.clocks |= clockBitTimestamp
		}
	}
	return nil
}

// jsonText turns one raw JSON value of field f (named name in errors) into
// field text: strings unquoted, numbers as written, true and false as
// such for a boolean field, null and absent as empty. Other booleans,
// objects and arrays are errors. The text points into v unless the string
// holds escapes or invalid UTF-8, which encoding/json decodes.
func jsonText(v []byte, f field, name string) ([]byte, *fieldError) {
	if len(v) == 0 {
		return nil, nil
	}
	switch c := v[0]; {
	case c == '"':
		s := v[1 : len(v)-1]
		if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
			return s, nil
		}
		var text string
		if err := json.Unmarshal(v, &text); err != nil {
			return nil, &fieldError{field: name, msg: "invalid string: " + err.Error(), reason: "invalid string", err: err}
		}
		return []byte(text), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return v, nil
	case c == 'n': // null
		return nil, nil
	case (c == 't' || c == 'f') && kindOf(f) == kindBool:
		return v, nil
	}
	var want string
	switch kindOf(f) {
	case kindNumber:
		want = "a number"
	case kindTimestamp:
		want = "a string or a number"
	case kindBool:
		want = "true or false"
	default:
		want = "a string"
	}
	return nil, &fieldError{field: name, msg: "must be " + want + ", got " + truncate(string(v)), reason: "must be " + want}
}

// eachLine calls fn with each non-blank, non-comment line, trimmed, and its
// 1-based number, until fn returns false. Unlike bufio.Scanner it has no line
// length limit.
func eachLine(br *bufio.Reader, name string, fn func(lineNo int, line []byte) bool) error {
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: read: %w", name, lineNo, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			if !fn(lineNo, t) {
				return nil
			}
		}
		if err != nil { // io.EOF
			return nil
		}
	}
}

// lineReader reads lines without allocating: each line is valid until the
// next call. Lines longer than the buffer are gathered in long.
type lineReader struct {
	br     *bufio.Reader
	long   []byte
	lineNo int
	eof    bool
}

// next returns the next non-blank, non-comment line, trimmed, or io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	for !lr.eof {
		lr.lineNo++
		line, err := lr.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.long = append(lr.long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = lr.br.ReadSlice('\n')
				lr.long = append(lr.long, line...)
			}
			line = lr.long
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("read: %w", err)
			}
			lr.eof = true
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			return t, nil
		}
	}
	return nil, io.EOF
}
