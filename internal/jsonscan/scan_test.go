package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// valid reads a whole text as the readers do: one value between
// whitespace.
func valid(b []byte) bool {
	s := Scanner{MaxDepth: EncodingJSONDepth}
	s.Reset(b)
	s.WS()
	if !s.Skip() {
		return false
	}
	s.WS()
	return s.I == len(s.B)
}

func TestSkipAgreesWithValid(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":1}`, " \t\r\n{ \"a\" : [ 1 , 2 ] } \n", `"x"`, `null`, `true`, `false`,
		`0`, `-0`, `1.5e+10`, `-1E-5`, `2.25`, `{"a":{"b":[null,{"c":"d"}]}}`, `{"\u0041\n":"\ud83d\ude00"}`,
		"\"\xff\xfe\"", `"\ud800"`, `"\/\b\f\n\r\t\"\\"`,
		``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `[1 2]`, `[1,]`, `{1:2}`,
		`"\x"`, `"\u12"`, `"\u12g4"`, "\"\x01\"", `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `tru`, `nul`, `nulll`,
		`"unterminated`, `"\`, `{"a":"b"} x`, `{"a":"\u00e9\ud800\u0041"}`,
		strings.Repeat("[", EncodingJSONDepth) + strings.Repeat("]", EncodingJSONDepth),
		strings.Repeat("[", EncodingJSONDepth+1) + strings.Repeat("]", EncodingJSONDepth+1),
		`{"a":` + strings.Repeat("[", EncodingJSONDepth-1) + strings.Repeat("]", EncodingJSONDepth-1) + `}`,
		`{"a":` + strings.Repeat("[", EncodingJSONDepth) + strings.Repeat("]", EncodingJSONDepth) + `}`,
	} {
		if got, want := valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("%.40q: scanner %v, json.Valid %v", in, got, want)
		}
	}
}

func TestStringAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d\n\t\r\b\f"`, `"\u00e9t\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ude00"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`, "\"\xff\"", `"\u003cthink\u003e"`, `"été ☃"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		s := Scanner{MaxDepth: 1}
		s.Reset([]byte(in))
		got, ok := s.String()
		// encoding/json replaces invalid UTF-8 when it decodes; the
		// scanner passes the bytes, as the chunk decoder always has.
		if !ok || s.I != len(in) || (string(got) != want && !strings.ContainsRune(want, '\uFFFD')) {
			t.Errorf("%s: got %q (ok %v, at %d), encoding/json %q", in, got, ok, s.I, want)
		}
	}
}

// TestFailureOffsets pins where I stops on bad input: the chunk decoder
// reports it ("malformed chunk json at byte N").
func TestFailureOffsets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		read func(*Scanner) bool
		at   int
	}{
		{`"ab` + "\x01" + `"`, (*Scanner).SkipString, 3},
		{`"ab\q"`, (*Scanner).SkipString, 3},
		{`"ab\u12x4"`, (*Scanner).SkipString, 5},
		{`"ab\`, (*Scanner).SkipString, 3},
		{`"ab`, (*Scanner).SkipString, 3},
		{`"ab\q"`, func(s *Scanner) bool { _, ok := s.String(); return ok }, 5},
		{`"ab\u12x4"`, func(s *Scanner) bool { _, ok := s.String(); return ok }, 5},
		{`"\ud800\u12x4"`, func(s *Scanner) bool { _, ok := s.String(); return ok }, 9},
		{`{"a\q":1}`, (*Scanner).Skip, 5},
		{`{"a":"\q"}`, (*Scanner).Skip, 6},
		{`-x`, (*Scanner).Number, 1},
		{`1.x`, (*Scanner).Number, 2},
		{`1e+x`, (*Scanner).Number, 3},
		{`x`, (*Scanner).Skip, 0},
		{`tru`, (*Scanner).Skip, 0},
		{`{"a" x}`, (*Scanner).Skip, 5},
		{`{"a":1 x}`, (*Scanner).Skip, 7},
		{`[1 ,2 x]`, (*Scanner).Skip, 6},
		{`[[[1]]]`, func(s *Scanner) bool { s.MaxDepth = 2; return s.Skip() }, 2},
	} {
		s := Scanner{MaxDepth: EncodingJSONDepth}
		s.Reset([]byte(tc.in))
		if tc.read(&s) {
			t.Errorf("%s: accepted", tc.in)
		} else if s.I != tc.at {
			t.Errorf("%s: stopped at %d, want %d", tc.in, s.I, tc.at)
		}
	}
}

func TestObjectArray(t *testing.T) {
	s := Scanner{MaxDepth: 3}
	s.Reset([]byte(`{"a" : [ 1 , {"b":"\u0063"} ], "c\"" :null, "d":[]}`))
	var keys []string
	var elems int
	ok := s.Object(func(key []byte) bool {
		keys = append(keys, string(key))
		if string(key) == "a" {
			return s.Array(func(n int) bool { elems = n + 1; return s.Skip() })
		}
		return s.Skip()
	})
	if !ok || s.I != len(s.B) || s.Depth != 0 || strings.Join(keys, ",") != `a,c",d` || elems != 2 {
		t.Errorf("ok %v at %d depth %d keys %q elems %d", ok, s.I, s.Depth, keys, elems)
	}
}

func TestNoAllocations(t *testing.T) {
	line := []byte(`{"id":"r\u0031","arrival_s":1.5,"x":[true,false,null,{"k\"":"v\n"}]}`)
	s := Scanner{MaxDepth: EncodingJSONDepth}
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset(line)
		if !s.Object(func([]byte) bool { return s.Skip() }) {
			t.Fatal("rejected")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a run", allocs)
	}
}
