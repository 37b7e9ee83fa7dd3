package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzScan holds the scanner to encoding/json on any text: a value is read
// exactly when json.Valid accepts it, and a string reads as encoding/json
// decodes it (where its bytes are valid UTF-8: the scanner passes invalid
// bytes on, encoding/json replaces them).
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-2.5e+3,true,false,null,{"b":"c"}]}`, `"\u00e9\ud83d\ude00\ud800\u0041\n\"\\\/"`, `[1 2]`, `{"a\q":1}`,
		benchLogLine, string(benchChunk), `"\ud800\u12"`, "\"\xff\x01\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := valid(data), json.Valid(data); got != want {
			t.Fatalf("scanner %v, json.Valid %v", got, want)
		}
		if len(data) == 0 || data[0] != '"' {
			return
		}
		s := Scanner{MaxDepth: 1}
		s.Reset(data)
		got, ok := s.String()
		k := Scanner{MaxDepth: 1}
		k.Reset(data)
		if k.SkipString() != ok || (ok && k.I != s.I) {
			t.Fatalf("String %v at %d, SkipString at %d", ok, s.I, k.I)
		}
		var want string
		if !ok || json.Unmarshal(data[:s.I], &want) != nil {
			if ok {
				t.Fatalf("String reads %q, encoding/json rejects it", data[:s.I])
			}
			return
		}
		if utf8.Valid(got) && string(got) != want {
			t.Fatalf("String %q, encoding/json %q", got, want)
		}
	})
}
