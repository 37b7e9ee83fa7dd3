package workload

import (
	"strings"
	"testing"
)

func TestParseMapping(t *testing.T) {
	tests := []struct {
		spec, want string // want: the canonical spec
	}{
		{"arrival=ts,think=reasoning_tokens,answer=out_tokens,prompt=in_tokens",
			"arrival=ts,prompt=in_tokens,think=reasoning_tokens,answer=out_tokens"},
		{" Timestamp = created , PROMPT=usage.prompt_tokens,output=usage.completion_tokens ",
			"timestamp=created,prompt=usage.prompt_tokens,output=usage.completion_tokens"},
		{"arrival_s=t,prompt_tokens=p,think_tokens=r,output_tokens=o", "arrival=t,prompt=p,think=r,output=o"},
		{"arrival=t,prompt=p,finish_reason=choices[0].finish_reason,mode=x,category=x", "arrival=t,prompt=p,mode=x,category=x,finish_reason=choices[0].finish_reason"},
		{"id=request id,arrival=t (s),prompt=p,correct=grade.ok,after=parent,priority=prio,prefix_id=sys,prefix_tokens=sys_len",
			"id=request id,arrival=t (s),prompt=p,prefix_id=sys,prefix_tokens=sys_len,priority=prio,correct=grade.ok,after=parent"},
	}
	for _, tt := range tests {
		m, err := ParseMapping(tt.spec)
		if err != nil {
			t.Errorf("%q: %v", tt.spec, err)
			continue
		}
		if got := m.String(); got != tt.want {
			t.Errorf("%q: canonical %q, want %q", tt.spec, got, tt.want)
		}
		again, err := ParseMapping(m.String())
		if err != nil || again.String() != m.String() {
			t.Errorf("%q: canonical form does not round-trip: %v", tt.spec, err)
		}
	}
}

func TestParseMappingErrors(t *testing.T) {
	valid := "(valid: id, arrival, timestamp, prompt, think, answer, output, mode, category, prefix_id, prefix_tokens, finish_reason, priority, correct, after, session_id, turn, think_time)"
	tests := []struct {
		spec string
		want []string
	}{
		{"arrival=t,prompt=p,tokens=x", []string{`field mapping: unknown key "tokens" ` + valid}},
		{"arrival=t,prompt=p,think=", []string{"field mapping: think: empty source field"}},
		{"arrival=t,prompt=p,think", []string{`field mapping: "think": want key=source`, "valid keys: id, arrival"}},
		{"arrival=t,prompt=p,prompt=q", []string{`field mapping: prompt: mapped twice (to "p" and "q")`}},
		{"arrival=t,prompt=p,prompt_tokens=q", []string{"prompt_tokens: mapped twice"}},
		{"arrival=t,,prompt=p", []string{"field mapping: empty entry"}},
		{"", []string{"field mapping: empty entry"}},
		{"arrival=t", []string{"field mapping: prompt: must be mapped"}},
		{"prompt=p,think=r", []string{"field mapping: arrival or timestamp: one must be mapped"}},
		{"arrival=t,prompt=a.b,think=a", []string{"a is read both as a value and as an object"}},
		{"arrival=t,prompt=a[0].x,think=a[1].x", []string{"read one element of an array"}},
		{`arrival=t,prompt="p"`, []string{`field mapping: prompt: path "\"p\"": key "\"p\"": "\"" is not allowed in a key`}},
		{"arrival=t,prompt=a..b", []string{"field mapping: prompt: path \"a..b\": empty key"}},
		{"foo=1,bar=", []string{`unknown key "foo"`, `unknown key "bar"`}},
	}
	for _, tt := range tests {
		_, err := ParseMapping(tt.spec)
		if err == nil {
			t.Errorf("%q: no error", tt.spec)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q does not contain %q", tt.spec, err, w)
			}
		}
	}
}

// A mapping is explicit: an unmapped field is absent even when the source
// has a column of that name.
func TestMappingIsExplicit(t *testing.T) {
	m := mustMapping(t, "arrival=t,prompt=p,output=o")
	for _, in := range []string{
		"t,p,o,think_tokens,mode\n0,5,9,4,high\n",
		`{"t":0,"p":5,"o":9,"think_tokens":4,"mode":"high"}`,
	} {
		reqs, err := readAll(in, ReadOptions{Mapping: m})
		if err != nil {
			t.Fatal(err)
		}
		if want := (Request{PromptTokens: 5, AnswerTokens: 9}); reqs[0] != want {
			t.Errorf("%q: got %+v, want %+v", in, reqs[0], want)
		}
	}
}

func readAll(in string, opt ReadOptions) ([]Request, error) {
	reqs, _, err := ReadWithOptions(strings.NewReader(in), "stdin", opt)
	return reqs, err
}

func TestMappingValues(t *testing.T) {
	tests := []struct {
		name, spec, input string
		want              Request
	}{
		{"answer wins over output", "arrival=t,prompt=p,answer=a,output=o,think=r", `{"t":1,"p":5,"a":3,"o":100,"r":4}`,
			Request{ArrivalS: 1, PromptTokens: 5, ThinkTokens: 4, AnswerTokens: 3}},
		{"output without think", "arrival=t,prompt=p,output=o", "t,p,o\n1,5,7\n",
			Request{ArrivalS: 1, PromptTokens: 5, AnswerTokens: 7}},
		{"case-insensitive keys and columns", "arrival=T,prompt=Usage.In", `{"t":1,"USAGE":{"in":5}}`,
			Request{ArrivalS: 1, PromptTokens: 5}},
		{"csv column names trimmed and folded", "arrival=Time,prompt=In Tokens", " time , in tokens \n1,5\n",
			Request{ArrivalS: 1, PromptTokens: 5}},
		{"array index", "arrival=t,prompt=p,finish_reason=choices[1].why", `{"t":1,"p":5,"choices":[{"why":"stop"},{"why":"length"}]}`,
			Request{ArrivalS: 1, PromptTokens: 5, FinishReason: "length"}},
		{"one source, two fields", "arrival=t,prompt=p,mode=m,category=m", `{"t":1,"p":5,"m":"low"}`,
			Request{ArrivalS: 1, PromptTokens: 5, Mode: "low", Category: "low"}},
		{"dots in a csv column", "arrival=t.s,prompt=p", "t.s,p\n1,5\n",
			Request{ArrivalS: 1, PromptTokens: 5}},
		{"after and priority", "arrival=t,prompt=p,after=parent,priority=prio,id=id", `{"t":1,"p":5,"parent":"x","prio":-2,"id":"y"}`,
			Request{ID: "y", ArrivalS: 1, PromptTokens: 5, After: "x", Priority: -2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, err := readAll(tt.input, ReadOptions{Mapping: mustMapping(t, tt.spec)})
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != 1 || reqs[0] != tt.want {
				t.Errorf("got %+v, want %+v", reqs, tt.want)
			}
		})
	}
}

func TestReadCorrectAndAfter(t *testing.T) {
	const jsonl = `{"id":"a","arrival_s":0,"prompt_tokens":5,"correct":true}
{"id":"b","arrival_s":0.5,"prompt_tokens":5,"correct":0,"after":"a"}
{"id":"c","arrival_s":1,"prompt_tokens":5,"correct":null}
`
	const csvText = "id,arrival_s,prompt_tokens,correct,after\na,0,5,TRUE,\nb,0.5,5,0,a\nc,1,5,,\n"
	for _, in := range []string{jsonl, csvText} {
		reqs, err := readAll(in, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) != 3 || reqs[0].Correct == nil || !*reqs[0].Correct || reqs[1].Correct == nil || *reqs[1].Correct ||
			reqs[2].Correct != nil || reqs[1].After != "a" || reqs[0].After != "" {
			t.Errorf("%q: got %s", in, describe(reqs))
		}
	}
}
