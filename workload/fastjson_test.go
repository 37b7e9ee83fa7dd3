package workload

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// trickyLines exercise the corners where a hand-written JSON scanner and
// encoding/json could part: escapes, unicode, number forms, repeated and
// case-folded keys, whitespace, nulls, nesting, and invalid JSON.
var trickyLines = []string{
	`{"arrival_s":0,"prompt_tokens":5}`,
	`{"arrival_s":1e3,"prompt_tokens":12.0,"think_tokens":1E2,"answer_tokens":1.5e+1}`,
	`{"arrival_s":-0,"prompt_tokens":5}`,
	`{"arrival_s":0.000001,"prompt_tokens":5e0}`,
	`{"arrival_s":123456789.123456,"prompt_tokens":5}`,
	"{ \"arrival_s\" : 0.5 ,\t\"prompt_tokens\" :\r\n5 }",
	`{"arrival_s":0,"prompt_tokens":5,"prompt_tokens":7}`,
	`{"arrival_s":0,"PROMPT_TOKENS":5}`,
	`{"arrival_s":0,"Prompt_Tokens":5,"prompt_tokens":6}`,
	`{"arrival_s":0,"prompt_tokens":6,"Prompt_Tokens":5}`,
	`{"arrival_s":0,"prompt_tokens":5,"id":"a\"b\\c\/d\n"}`,
	`{"arrival_s":0,"prompt_tokens":5,"id":"\u00e9t\u00e9"}`,
	`{"arrival_s":0,"prompt_tokens":5,"id":"été ☃"}`,
	`{"arrival_s":0,"prompt_tokens":5,"id":"\ud83d\ude00"}`,
	`{"arrival_s":0,"prompt_tokens":5,"id":"\ud83d"}`,
	"{\"arrival_s\":0,\"prompt_tokens\":5,\"id\":\"\xff\xfe\"}",
	"{\"arrival_s\":0,\"prompt_tokens\":5,\"x\":\"\xff\"}",
	`{"arrival_s":0,"prompt_tokens":5,"mode":null,"think_tokens":null}`,
	`{"arrival_s":0,"prompt_tokens":5,"mode":"high","mode":null}`,
	`{"arrival_s":0,"prompt_tokens":5,"extra":{"a":[1,2,{"b":null,"c":[[],{}]}],"d":"}"}}`,
	`{"arrival_s":0,"prompt_tokens":5,"extra":[}`,
	`{"arrival_s":0,"prompt_tokens":05}`,
	`{"arrival_s":0,"prompt_tokens":5,}`,
	`{"arrival_s":0,"prompt_tokens":5} x`,
	`{"arrival_s":0,"prompt_tokens":5}{}`,
	`{"arrival_s":0,"prompt_t\u006fkens":5}`,
	"{\"arrival_s\":0,\"prompt_to\u212aens\":5}", // Kelvin sign: encoding/json folds it to K
	"{\"arrival_s\":0,\"ſtatus\":5,\"prompt_tokens\":5}",
	`{"arrival_s":0,"prompt_tokens":5,"correct":true}`,
	`{"arrival_s":0,"prompt_tokens":5,"correct":false,"correct":1}`,
	`{"arrival_s":0,"prompt_tokens":5,"correct":"yes"}`,
	`{"arrival_s":0,"prompt_tokens":5,"mode":{"x":1}}`,
	`{"arrival_s":0,"prompt_tokens":tru}`,
	`{"arrival_s":0,"prompt_tokens":truex}`,
	"{\"arrival_s\":0,\"prompt_tokens\":5,\"s\":\"\x01\"}",
	`{"arrival_s":0,"prompt_tokens":5,"s":"\q"}`,
	`{"arrival_s":0,"prompt_tokens":5,"s":"\u12"}`,
	`{"arrival_s":0,"prompt_tokens":1.5e+3}`,
	`{"arrival_s":0,"prompt_tokens":1.}`,
	`{"arrival_s":0,"prompt_tokens":.5}`,
	`{"arrival_s":0,"prompt_tokens":-}`,
	`{"arrival_s":0,"prompt_tokens":1e}`,
	`{"arrival_s":0,"prompt_tokens":-1}`,
	`{"arrival_s":0,"prompt_tokens":5,"after":"a","id":7}`,
	`{"arrival_s":0,"prompt_tokens":5,"priority":-3,"prefix_id":"sys","prefix_tokens":2}`,
	`{"timestamp":"2025-06-01T12:00:00.123456789+02:00","prompt_tokens":5}`,
	`{"timestamp":"2025-06-01 12:00:00Z","prompt_tokens":5}`,
	`{"timestamp":1748779200.5,"prompt_tokens":5}`,
	`{"arrival_s":0,"prompt_tokens":5,"-":1}`,
	`{"":1,"arrival_s":0,"prompt_tokens":5}`,
	`{}`,
	`{"arrival_s":0,"prompt_tokens":5,"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"arrival_s":0,"prompt_tokens":5`,
	`{"arrival_s" 0}`,
	`{arrival_s:0}`,
	`[1,2]`,
	`null`,
	// openai-usage
	`{"created":1748779200,"usage":{"prompt_tokens":10,"completion_tokens":20,"completion_tokens_details":{"reasoning_tokens":5}},"choices":[{"finish_reason":"length"}]}`,
	`{"created":1748779200,"usage":{"prompt_tokens":10,"completion_tokens":20},"usage":{"completion_tokens":3}}`,
	`{"created":1748779200,"usage":{"prompt_tokens":10,"completion_tokens":20},"usage":null}`,
	`{"created":1748779200,"usage":5}`,
	`{"created":1748779200,"usage":null}`,
	`{"created":1748779200,"usage":[1]}`,
	`{"created_at":1748779200,"status":"completed","usage":{"input_tokens":10,"output_tokens":20,"output_tokens_details":{"reasoning_tokens":25}}}`,
	`{"created_at":1748779200,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":10,"output_tokens":20,"output_tokens_details":{"reasoning_tokens":20}}}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"choices":[{"finish_reason":"tool_calls"},{"finish_reason":"stop"}]}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"choices":["x"]}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"choices":[{"finish_reason":"stop"},7]}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"choices":[null,{"finish_reason":"stop"}]}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"choices":{}}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"choices":[]}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"long \"quoted\" text \u2603"}}]}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"metadata":{"mode":"high","category":"math"}}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"reasoning":{"effort":"minimal"}}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"reasoning_effort":"medium","mode":"low"}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2},"metadata":"oops"}`,
	`{"created":1748779200,"Usage":{"Prompt_Tokens":1,"COMPLETION_TOKENS":2}}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2,"completion_tokens_details":null}}`,
	`{"created":1748779200,"usage":{"prompt_tokens":1,"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":3}}}`,
	`{"created":17487792000000,"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
	// mapped
	`{"ts":"2025-06-01T12:00:00Z","in":3,"out":{"total":9,"reasoning":4},"tags":["a","b"]}`,
	`{"ts":1748779200,"in":3,"out":{"total":9},"tags":[]}`,
	`{"ts":1748779200,"in":3,"out":{"total":9},"tags":[null,"x",{"y":1}]}`,
	`{"ts":1748779200,"in":3,"out":[9],"tags":"a"}`,
}

// schemas the differential tests run on, with the format a Scanner names.
func differentialSchemas(t testing.TB) map[string]*jsonDecoder {
	m, err := ParseMapping("timestamp=ts,prompt=in,output=out.total,think=out.reasoning,category=tags[1]")
	if err != nil {
		t.Fatal(err)
	}
	md, err := m.jsonDecoder()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*jsonDecoder{"native": newNativeDecoder(), "openai": newOpenAIDecoder(), "mapped": md}
}

// compareFast holds the fast scanner to encoding/json on one line: where it
// does not step aside, it must find the same values, and the line must be
// valid for encoding/json too.
func compareFast(t testing.TB, name string, d *jsonDecoder, line []byte) {
	t.Helper()
	refVals := make([][]byte, len(d.schema.slots))
	refErr := d.schema.reference(line, refVals)
	if !d.fast.extract(d.schema, line) {
		return
	}
	if refErr != nil {
		t.Fatalf("%s: %q: fast scanner accepts what encoding/json rejects: %v", name, line, refErr)
	}
	for i := range refVals {
		if !bytes.Equal(refVals[i], d.fast.vals[i]) {
			t.Fatalf("%s: %q: slot %s: fast %q, encoding/json %q", name, line, d.schema.slots[i], d.fast.vals[i], refVals[i])
		}
	}
}

func TestFastJSONMatchesEncodingJSON(t *testing.T) {
	for name, d := range differentialSchemas(t) {
		for _, line := range trickyLines {
			compareFast(t, name, d, []byte(line))
		}
	}
}

// decodeLine reads one line as a whole request log would, with or without
// the fast scanner, and describes the outcome.
func decodeLine(t testing.TB, line []byte, opt ReadOptions, noFast bool) string {
	t.Helper()
	s, err := NewScanner(bytes.NewReader(line), "x.jsonl", opt)
	if err != nil {
		return "open: " + err.Error()
	}
	s.noFast = noFast
	var out []string
	for s.Scan() {
		req := s.Request()
		b, err := json.Marshal(&req)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if err := s.Err(); err != nil {
		out = append(out, "error: "+err.Error())
	}
	return strings.Join(out, "\n")
}

func TestFastJSONSameRequests(t *testing.T) {
	m, err := ParseMapping("timestamp=ts,prompt=in,output=out.total,think=out.reasoning,category=tags[1]")
	if err != nil {
		t.Fatal(err)
	}
	opts := []ReadOptions{{Format: FormatNative}, {Format: FormatOpenAI}, {Mapping: m}, {}}
	for _, opt := range opts {
		for _, line := range trickyLines {
			slow := decodeLine(t, []byte(line), opt, true)
			fast := decodeLine(t, []byte(line), opt, false)
			if slow != fast {
				t.Errorf("format %q mapped %v: %q:\nencoding/json: %s\nfast:          %s", opt.Format, opt.Mapping != nil, line, slow, fast)
			}
		}
	}
}

// The fast scanner must not step aside on the lines logs are made of, or
// it is no fast path.
func TestFastJSONTakesCommonLines(t *testing.T) {
	for name, d := range differentialSchemas(t) {
		var lines []string
		switch name {
		case "native":
			lines = strings.Split(strings.TrimSpace(string(nativeLog(50))), "\n")
			lines = append(lines, trickyLines[:13]...)
		case "openai":
			lines = strings.Split(strings.TrimSpace(string(openaiLog(50))), "\n")
			for _, l := range trickyLines {
				if strings.Contains(l, `"content"`) || strings.Contains(l, `"effort"`) || strings.Contains(l, "Usage") {
					lines = append(lines, l)
				}
			}
		default:
			continue
		}
		for _, line := range lines {
			if !d.fast.extract(d.schema, []byte(line)) {
				t.Errorf("%s: fast scanner stepped aside on %q", name, line)
			}
		}
	}
}

func TestJSONSchemaPaths(t *testing.T) {
	_, slots, err := newJSONSchema([]string{"a.b", "A.c", "a.B", "d[2].e", "d[2].f", "g[0][1]"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 2, 3, 4}; !reflect.DeepEqual(slots, want) {
		t.Errorf("slots %v, want %v", slots, want)
	}
	for _, tt := range []struct{ paths, want string }{
		{"a,a.b", "read both as a value and as an object"},
		{"a[0],a[1]", "read one element of an array"},
		{"a..b", "empty key"},
		{"a[x]", "want [N]"},
		{"a[01]", "want [N]"},
		{"a[0]b", "want . or ["},
		{`a"b`, `not allowed in a key`},
		{"[0]", "empty key"},
	} {
		_, _, err := newJSONSchema(strings.Split(tt.paths, ","))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.paths, err, tt.want)
		}
	}
}
