package workload

import "github.com/thinkcap/thinkcap/internal/jsonscan"

// fastJSON reduces one JSON line to the raw values of a schema's slots
// without allocating: a walk, on the shared scanner (internal/jsonscan),
// of the flat objects request logs are made of, with nested objects and
// arrays followed only along the schema's paths and skipped (but fully
// checked) elsewhere. encoding/json reads such logs at ~15 MB/s; this
// reads them at several hundred.
//
// It handles the common case and steps aside for the rest: extract reports
// false for anything it does not handle exactly as encoding/json does
// (escapes or non-ASCII bytes in the keys along the schema's paths, a
// repeated key holding an object,
// a value of the wrong type, any syntax error), and the caller then decodes
// the line with jsonSchema.reference, which defines the behaviour. Values
// point into the line.
type fastJSON struct {
	s    jsonscan.Scanner
	vals [][]byte
	// seen marks the object and array nodes entered on this line (seen[id]
	// == gen): encoding/json merges a repeated object key into the first
	// value, a case left to it.
	seen []uint32
	gen  uint32
}

// maxFastDepth is how deep the fast scanner nests before it steps aside;
// encoding/json's own limit is far deeper.
const maxFastDepth = 64

func newFastJSON(s *jsonSchema) *fastJSON {
	return &fastJSON{vals: make([][]byte, len(s.slots)), seen: make([]uint32, s.nodes)}
}

// extract fills p.vals from line, a whole JSON object. It reports false
// when the line is for the reference decoder; p.vals is then undefined.
func (p *fastJSON) extract(s *jsonSchema, line []byte) bool {
	if !s.fast || len(line) == 0 || line[0] != '{' {
		return false
	}
	p.s.Reset(line)
	// The root object and maxFastDepth containers within it.
	p.s.MaxDepth = maxFastDepth + 1
	clear(p.vals)
	if p.gen++; p.gen == 0 {
		clear(p.seen)
		p.gen = 1
	}
	if !p.object(s.root, true) {
		return false
	}
	p.s.WS()
	return p.s.I == len(p.s.B)
}

// object reads an object at p.s.I ('{'), recording the members of n when
// rec is true.
func (p *fastJSON) object(n *jsonNode, rec bool) bool {
	sc := &p.s
	if empty, ok := sc.Open('}'); empty || !ok {
		return ok
	}
	for {
		key, h, ok := p.key()
		if !ok || !sc.Colon() {
			return false
		}
		switch child := n.member(key, h); {
		case child == nil:
			if !sc.Skip() {
				return false
			}
		case child.kind == leafNode:
			start := sc.I
			if !sc.Skip() {
				return false
			}
			if rec {
				p.vals[child.slot] = sc.B[start:sc.I]
			}
		default:
			if p.seen[child.id] == p.gen {
				return false
			}
			p.seen[child.id] = p.gen
			if !p.container(child, rec) {
				return false
			}
		}
		if !sc.Comma() {
			return sc.Close('}')
		}
	}
}

// container reads the value of an object or array node: null, or a value
// of the node's type. Any other type is an error encoding/json reports.
func (p *fastJSON) container(n *jsonNode, rec bool) bool {
	switch c := p.s.Peek(); {
	case c == 'n':
		return p.s.Literal("null")
	case c == '{' && n.kind == objectNode:
		return p.object(n, rec)
	case c == '[' && n.kind == arrayNode:
		return p.array(n, rec)
	}
	return false
}

// array reads an array at p.s.I ('['). Every element of an array node is
// checked against its type, as encoding/json decodes them all; only
// element n.index is recorded.
func (p *fastJSON) array(n *jsonNode, rec bool) bool {
	sc := &p.s
	if empty, ok := sc.Open(']'); empty || !ok {
		return ok
	}
	for k := 0; ; k++ {
		if n.elem.kind == leafNode {
			start := sc.I
			if !sc.Skip() {
				return false
			}
			if rec && k == n.index {
				p.vals[n.elem.slot] = sc.B[start:sc.I]
			}
		} else if !p.container(n.elem, rec && k == n.index) {
			// Each element is a new value: no repeated-key check here,
			// but one within it (a nested container seen twice steps
			// aside, which is merely slow).
			return false
		}
		if !sc.Comma() {
			return sc.Close(']')
		}
	}
}

// key reads an object key: a string without escapes or non-ASCII bytes
// (those keys are the reference decoder's, which unescapes and folds them).
// It returns the key's keyHash too.
func (p *fastJSON) key() ([]byte, uint32, bool) {
	b := p.s.B
	if p.s.I >= len(b) || b[p.s.I] != '"' {
		return nil, 0, false
	}
	start := p.s.I + 1
	for i := start; i < len(b); i++ {
		if c := b[i]; keyByte[c] != 0 {
			if c != '"' {
				return nil, 0, false
			}
			p.s.I = i + 1
			k := b[start:i]
			return k, keyHash(k), true
		}
	}
	return nil, 0, false
}

// keyByte marks the bytes that end a key the fast scanner reads ('"') or
// that it leaves to encoding/json (escapes, control and non-ASCII bytes).
var keyByte [256]uint8

func init() {
	for c := range 256 {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			keyByte[c] = 1
		}
	}
}

// keyHash is a cheap hash of a key regardless of ASCII case: its length
// and three of its bytes, folded. Members are found by one probe of the
// member table and a comparison.
func keyHash(k []byte) uint32 {
	if len(k) == 0 {
		return 0
	}
	const fold = 0xdf // clears the ASCII lower-case bit of letters
	return uint32(len(k))*0x9e3779b1 ^ uint32(k[0]&fold)*0x85ebca6b ^
		uint32(k[len(k)-1]&fold)*0xc2b2ae35 ^ uint32(k[len(k)/2]&fold)*0x27d4eb2f
}

// index builds the member table of n and its descendants: open addressing
// on keyHash, at most half full.
func (n *jsonNode) buildIndex() {
	if n.kind == arrayNode {
		n.elem.buildIndex()
		return
	}
	if n.kind != objectNode {
		return
	}
	size := 4
	for size < 2*len(n.fields) {
		size *= 2
	}
	n.table = make([]*jsonNode, size)
	for _, f := range n.fields {
		f.hash = keyHash([]byte(f.fold))
		i := f.hash & uint32(size-1)
		for n.table[i] != nil {
			i = (i + 1) & uint32(size-1)
		}
		n.table[i] = f
		f.buildIndex()
	}
}

// member finds the member of n whose key matches key (of keyHash h)
// regardless of ASCII case, as encoding/json matches keys with field names.
func (n *jsonNode) member(key []byte, h uint32) *jsonNode {
	mask := uint32(len(n.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		f := n.table[i]
		if f == nil {
			return nil
		}
		if f.hash != h || len(f.fold) != len(key) {
			continue
		}
		if string(key) == f.key {
			return f
		}
		match := true
		for j, c := range key {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c != f.fold[j] {
				match = false
				break
			}
		}
		if match {
			return f
		}
	}
}
