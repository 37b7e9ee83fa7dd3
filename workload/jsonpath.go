package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A jsonSchema is the set of JSON paths one format reads from each line
// ("prompt_tokens", "usage.prompt_tokens", "choices[0].finish_reason"): a
// tree of keys whose leaves are numbered slots. A line is reduced to the
// raw JSON text of each slot, by the fast scanner (fastjson.go) or, for
// anything it does not handle, by encoding/json (reference below). The
// reference defines the behaviour, encoding/json's own: keys match ignoring
// case, the last of repeated keys wins, and values of the wrong type are
// errors; the fast scanner agrees with it or steps aside.
type jsonSchema struct {
	root  *jsonNode
	slots []string // display path of each slot, for error messages
	nodes int      // nodes in the tree (ids 0..nodes-1)
	// fast is false when a key is not plain ASCII: encoding/json folds some
	// non-ASCII letters onto ASCII ones (the Kelvin sign onto K), which the
	// fast scanner does not attempt.
	fast    bool
	refType reflect.Type // the struct encoding/json decodes a line into
}

type nodeKind uint8

const (
	leafNode   nodeKind = iota // a value, read as raw JSON
	objectNode                 // an object whose members the schema reads
	arrayNode                  // an array of which one element is read
)

// jsonNode is one key of a schema's tree.
type jsonNode struct {
	key    string // the member's key; empty for an array's element
	fold   string // key folded as encoding/json matches keys (foldKey)
	path   string // display path from the root
	kind   nodeKind
	id     int
	slot   int         // leaves: where the value goes
	fields []*jsonNode // objects: members
	elem   *jsonNode   // arrays: the element type
	index  int         // arrays: the element that is read
	// The fast scanner's member table (see buildIndex).
	table []*jsonNode
	hash  uint32
}

// pathStep is one step of a path: a key, or an array index.
type pathStep struct {
	key   string
	index int // -1 for a key
}

// maxPathIndex bounds an array index in a path.
const maxPathIndex = 1 << 20

// parseJSONPath splits a dotted path with optional array indexes,
// "usage.completion_tokens_details.reasoning_tokens" or
// "choices[0].finish_reason". Keys may hold letters, digits and ASCII
// punctuation except the quote, backslash, comma and the path's own dots
// and brackets: the names encoding/json accepts in a struct tag.
func parseJSONPath(p string) ([]pathStep, error) {
	if p == "" {
		return nil, errors.New("empty path")
	}
	var steps []pathStep
	for _, part := range strings.Split(p, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" {
			return nil, fmt.Errorf("path %q: empty key", p)
		}
		if i := strings.IndexFunc(key, func(r rune) bool { return !validKeyRune(r) }); i >= 0 {
			return nil, fmt.Errorf("path %q: key %q: %q is not allowed in a key", p, key, key[i:i+1])
		}
		steps = append(steps, pathStep{key: key, index: -1})
		if len(part) == len(key) {
			continue
		}
		// One or more [N] after the key.
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || n < 0 || n > maxPathIndex || (num != "0" && num[0] == '0') || num[0] == '+' {
				return nil, fmt.Errorf("path %q: want [N] with N a non-negative integer after %q", p, key)
			}
			steps = append(steps, pathStep{index: n})
			if after == "" {
				break
			}
			if after[0] != '[' {
				return nil, fmt.Errorf("path %q: want . or [ after ]", p)
			}
			rest = after[1:]
		}
	}
	return steps, nil
}

// validKeyRune is encoding/json's rule for names in struct tags, less the
// characters that separate the steps of a path.
func validKeyRune(r rune) bool {
	switch {
	case strings.ContainsRune("!#$%&()*+-/:;<=>?@^_{|}~ ", r):
		return true
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return true
	}
	return false
}

// newJSONSchema builds the schema reading paths; slot i of its values is
// path i (paths equal up to case share a slot, which is returned for each).
func newJSONSchema(paths []string) (*jsonSchema, []int, error) {
	s := &jsonSchema{root: &jsonNode{kind: objectNode, index: -1}, fast: true}
	s.nodes = 1
	slotOf := make([]int, len(paths))
	for i, p := range paths {
		steps, err := parseJSONPath(p)
		if err != nil {
			return nil, nil, err
		}
		if slotOf[i], err = s.insert(p, steps); err != nil {
			return nil, nil, err
		}
	}
	s.refType = refStruct(s.root)
	s.root.buildIndex()
	return s, slotOf, nil
}

// insert adds the path's nodes and returns its slot.
func (s *jsonSchema) insert(p string, steps []pathStep) (int, error) {
	n := s.root
	for i, st := range steps {
		last := i == len(steps)-1
		want := leafNode
		if !last {
			want = objectNode
			if steps[i+1].index >= 0 {
				want = arrayNode
			}
		}
		var child *jsonNode
		if st.index >= 0 { // n is an array
			if n.index >= 0 && n.index != st.index {
				return 0, fmt.Errorf("path %q: reads element %d of %s, another path element %d: read one element of an array", p, st.index, n.path, n.index)
			}
			n.index = st.index
			child = n.elem
		} else {
			for _, f := range n.fields {
				if f.fold == foldKey(st.key) {
					child = f
				}
			}
		}
		if child == nil {
			child = &jsonNode{key: st.key, fold: foldKey(st.key), kind: want, id: s.nodes, index: -1, slot: -1}
			s.nodes++
			if st.index >= 0 {
				child.path = n.path + "[" + strconv.Itoa(st.index) + "]"
				n.elem = child
			} else {
				child.path = st.key
				if n != s.root {
					child.path = n.path + "." + st.key
				}
				n.fields = append(n.fields, child)
				for _, r := range st.key {
					if r >= 0x80 {
						s.fast = false
					}
				}
			}
			if want == leafNode {
				child.slot = len(s.slots)
				s.slots = append(s.slots, child.path)
			}
		}
		if child.kind != want {
			return 0, fmt.Errorf("path %q: %s is read both as a value and as an object or array", p, child.path)
		}
		n = child
	}
	return n.slot, nil
}

// foldKey folds a key as encoding/json does to match it with a field name
// regardless of case: ASCII letters upper-cased, other letters mapped
// through lower and then upper case.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z':
			b.WriteRune(r - ('a' - 'A'))
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		default:
			b.WriteRune(unicode.ToUpper(unicode.ToLower(r)))
		}
	}
	return b.String()
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// refStruct is the Go type encoding/json decodes an object node into:
// a struct with one field per member, tagged with the member's key.
// Objects are pointers (null and absent alike leave them nil), arrays
// slices, values json.RawMessage.
func refStruct(n *jsonNode) reflect.Type {
	fields := make([]reflect.StructField, len(n.fields))
	for i, f := range n.fields {
		fields[i] = reflect.StructField{
			Name: "F" + strconv.Itoa(i),
			Type: refType(f, true),
			// The trailing comma keeps a key "-" a key.
			Tag: reflect.StructTag(`json:"` + f.key + `,"`),
		}
	}
	return reflect.StructOf(fields)
}

func refType(n *jsonNode, member bool) reflect.Type {
	switch n.kind {
	case objectNode:
		if member {
			return reflect.PointerTo(refStruct(n))
		}
		return refStruct(n) // an array element
	case arrayNode:
		return reflect.SliceOf(refType(n.elem, false))
	}
	return rawMessageType
}

// reference reduces line to slot values with encoding/json. It allocates:
// it is the fallback and the yardstick of the fast scanner, not the rule.
func (s *jsonSchema) reference(line []byte, vals [][]byte) *fieldError {
	clear(vals)
	v := reflect.New(s.refType)
	if err := json.Unmarshal(line, v.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return s.typeError(te)
		}
		return &fieldError{msg: "invalid JSON: " + err.Error(), reason: "invalid JSON", err: err}
	}
	s.collect(s.root, v.Elem(), vals)
	return nil
}

// collect copies the values of a decoded object node into vals.
func (s *jsonSchema) collect(n *jsonNode, v reflect.Value, vals [][]byte) {
	for i, f := range n.fields {
		s.collectValue(f, v.Field(i), vals)
	}
}

func (s *jsonSchema) collectValue(n *jsonNode, v reflect.Value, vals [][]byte) {
	switch n.kind {
	case leafNode:
		vals[n.slot] = v.Bytes()
	case objectNode:
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		s.collect(n, v, vals)
	case arrayNode:
		if n.index >= 0 && n.index < v.Len() {
			s.collectValue(n.elem, v.Index(n.index), vals)
		}
	}
}

// typeError names the path whose value has the wrong type.
func (s *jsonSchema) typeError(te *json.UnmarshalTypeError) *fieldError {
	n := s.root
	for _, key := range strings.Split(te.Field, ".") {
		for n.kind == arrayNode {
			n = n.elem
		}
		var next *jsonNode
		for _, f := range n.fields {
			if f.fold == foldKey(key) {
				next = f
			}
		}
		if next == nil {
			return &fieldError{msg: "invalid JSON: " + te.Error(), reason: "invalid JSON", err: te}
		}
		n = next
	}
	want := "an object"
	if n.kind == arrayNode {
		want = "an array"
		if n.elem.kind == objectNode {
			want = "an array of objects"
		}
	}
	got := "a " + te.Value
	if te.Value == "array" || te.Value == "object" {
		got = "an " + te.Value
	}
	return &fieldError{field: n.path, msg: "must be " + want + ", got " + got, reason: "must be " + want, err: te}
}
