package workload

// fastJSON reduces one JSON line to the raw values of a schema's slots
// without allocating: a hand-written scanner for the flat objects request
// logs are made of, with nested objects and arrays followed only along the
// schema's paths and skipped (but fully checked) elsewhere. encoding/json
// reads such logs at ~15 MB/s; this reads them at several hundred.
//
// It handles the common case and steps aside for the rest: extract reports
// false for anything it does not handle exactly as encoding/json does
// (escapes or non-ASCII bytes in keys, a repeated key holding an object,
// a value of the wrong type, any syntax error), and the caller then decodes
// the line with jsonSchema.reference, which defines the behaviour. Values
// point into the line.
type fastJSON struct {
	b    []byte
	i    int
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
	p.b, p.i = line, 0
	clear(p.vals)
	if p.gen++; p.gen == 0 {
		clear(p.seen)
		p.gen = 1
	}
	if !p.object(s.root, true, 0) {
		return false
	}
	p.ws()
	return p.i == len(p.b)
}

func (p *fastJSON) ws() {
	if p.i < len(p.b) && p.b[p.i] > ' ' {
		return // compact JSON: the common case
	}
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// object reads an object at p.i ('{'), recording the members of n (nil:
// none) when rec is true.
func (p *fastJSON) object(n *jsonNode, rec bool, depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return true
	}
	for {
		key, h, ok := p.key()
		if !ok {
			return false
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		var child *jsonNode
		if n != nil {
			child = n.member(key, h)
		}
		switch {
		case child == nil:
			if !p.skip(depth) {
				return false
			}
		case child.kind == leafNode:
			start := p.i
			if !p.skip(depth) {
				return false
			}
			if rec {
				p.vals[child.slot] = p.b[start:p.i]
			}
		default:
			if p.seen[child.id] == p.gen {
				return false
			}
			p.seen[child.id] = p.gen
			if !p.container(child, rec, depth) {
				return false
			}
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.ws()
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// container reads the value of an object or array node: null, or a value
// of the node's type. Any other type is an error encoding/json reports.
func (p *fastJSON) container(n *jsonNode, rec bool, depth int) bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == 'n':
		return p.literal("null")
	case c == '{' && n.kind == objectNode:
		return p.object(n, rec, depth+1)
	case c == '[' && n.kind == arrayNode:
		return p.array(n, rec, depth+1)
	}
	return false
}

// array reads an array at p.i ('['). Every element of an array node is
// checked against its type, as encoding/json decodes them all; only
// element n.index is recorded.
func (p *fastJSON) array(n *jsonNode, rec bool, depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return true
	}
	for k := 0; ; k++ {
		switch {
		case n == nil:
			if !p.skip(depth) {
				return false
			}
		case n.elem.kind == leafNode:
			start := p.i
			if !p.skip(depth) {
				return false
			}
			if rec && k == n.index {
				p.vals[n.elem.slot] = p.b[start:p.i]
			}
		default:
			// Each element is a new value: no repeated-key check here,
			// but one within it (a nested container seen twice steps
			// aside, which is merely slow).
			if !p.container(n.elem, rec && k == n.index, depth) {
				return false
			}
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.ws()
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// key reads an object key: a string without escapes or non-ASCII bytes
// (those keys are the reference decoder's, which unescapes and folds them).
// It returns the key's keyHash too.
func (p *fastJSON) key() ([]byte, uint32, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, 0, false
	}
	start := p.i + 1
	for i := start; i < len(p.b); i++ {
		if c := p.b[i]; keyByte[c] != 0 {
			if c != '"' {
				return nil, 0, false
			}
			p.i = i + 1
			k := p.b[start:i]
			return k, keyHash(k), true
		}
	}
	return nil, 0, false
}

// keyByte marks the bytes that end a key the fast scanner reads ('"') or
// that it leaves to encoding/json (escapes, control and non-ASCII bytes);
// strByte those that end or escape a string, or are invalid in one.
var keyByte, strByte [256]uint8

func init() {
	for c := range 256 {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			keyByte[c] = 1
		}
		if c == '"' || c == '\\' || c < 0x20 {
			strByte[c] = 1
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

// skip reads and checks any value.
func (p *fastJSON) skip(depth int) bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; c {
	case '"':
		return p.str()
	case '{':
		return p.object(nil, false, depth+1)
	case '[':
		return p.array(nil, false, depth+1)
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	default:
		return p.number()
	}
}

func (p *fastJSON) literal(lit string) bool {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		return false
	}
	p.i += len(lit)
	return true
}

// str reads a string, checking its escapes; bytes ≥ 0x80 pass as
// encoding/json passes them (invalid UTF-8 is replaced only on decoding).
func (p *fastJSON) str() bool {
	for i := p.i + 1; i < len(p.b); i++ {
		if strByte[p.b[i]] == 0 {
			continue
		}
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			i++
			if i >= len(p.b) {
				return false
			}
			switch p.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(p.b) {
					return false
				}
				for _, h := range p.b[i+1 : i+5] {
					if !isHex(h) {
						return false
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastJSON) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	p.i = i
	return true
}
