package workload

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkRead holds a collected read to its invariants: an error and no
// requests, or valid requests sorted by arrival.
func checkRead(t *testing.T, reqs []Request, st ReadStats, err error) {
	t.Helper()
	if err != nil {
		if reqs != nil {
			t.Fatal("requests with an error")
		}
		return
	}
	if len(reqs) == 0 || st.Records != len(reqs) {
		t.Fatalf("%d requests, stats %+v", len(reqs), st)
	}
	for i, r := range reqs {
		if r.PromptTokens < 1 || r.ThinkTokens < 0 || r.AnswerTokens < 0 || r.PrefixTokens > r.PromptTokens ||
			math.IsNaN(r.ArrivalS) || r.ArrivalS < 0 || r.ArrivalS > MaxArrivalS {
			t.Fatalf("invalid request accepted: %+v", r)
		}
		if i > 0 && r.ArrivalS < reqs[i-1].ArrivalS {
			t.Fatal("not sorted")
		}
	}
}

func FuzzReadOpenAI(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(testdataDir, "openai_usage.jsonl")); err == nil {
		f.Add(b, false)
	}
	for _, line := range trickyLines {
		if strings.Contains(line, "usage") {
			f.Add([]byte(line), true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, skip bool) {
		opt := ReadOptions{Format: FormatOpenAI, SkipInvalid: skip}
		reqs, st, err := ReadWithOptions(strings.NewReader(string(data)), "f.jsonl", opt)
		checkRead(t, reqs, st, err)
		if err == nil && st.Records+st.Skipped == 0 {
			t.Fatal("records neither read nor skipped")
		}
		// encoding/json alone reads the same.
		slow := decodeLine(t, data, opt, true)
		fast := decodeLine(t, data, opt, false)
		if slow != fast {
			t.Fatalf("encoding/json: %s\nfast: %s", slow, fast)
		}
	})
}

// FuzzScanNative holds the fast JSON scanner to encoding/json on any line:
// for each schema (native, openai-usage, a mapping with nested paths) it
// finds the same values or steps aside, and whole reads give the same
// requests or the same errors.
func FuzzScanNative(f *testing.F) {
	for _, line := range trickyLines {
		f.Add([]byte(line))
	}
	f.Add(nativeLog(3))
	f.Add(openaiLog(3))
	decoders := differentialSchemas(f)
	m := mustMapping(f, "timestamp=ts,prompt=in,output=out.total,think=out.reasoning,category=tags[1]")
	f.Fuzz(func(t *testing.T, line []byte) {
		for name, d := range decoders {
			compareFast(t, name, d, line)
		}
		for _, opt := range []ReadOptions{{Format: FormatNative}, {}, {Mapping: m}} {
			slow := decodeLine(t, line, opt, true)
			fast := decodeLine(t, line, opt, false)
			if slow != fast {
				t.Fatalf("format %q: encoding/json: %s\nfast: %s", opt.Format, slow, fast)
			}
		}
	})
}

func FuzzParseMapping(f *testing.F) {
	for _, s := range []string{
		csvMapping, jsonMapping, "arrival=t,prompt=p", "timestamp=created,prompt=usage.prompt_tokens,output=usage.completion_tokens",
		"arrival=t,prompt=a[0][1].b", "arrival=t,prompt=p,think=p", "arrival_s=x,prompt_tokens=y", "arrival=t,prompt=p,foo=bar",
		"arrival=\u212a,prompt=p", "arrival=t,prompt=a[1048577]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		m, err := ParseMapping(spec)
		if err != nil {
			if m != nil {
				t.Fatal("mapping with an error")
			}
			return
		}
		again, err := ParseMapping(m.String())
		if err != nil || again.String() != m.String() {
			t.Fatalf("%q: canonical %q does not round-trip: %v", spec, m.String(), err)
		}
		// The mapping reads JSON and CSV without panicking.
		in := `{"t":1,"p":2,"a":[{"b":3}]}`
		reqs, st, err := ReadWithOptions(strings.NewReader(in), "m.jsonl", ReadOptions{Mapping: m, SkipInvalid: true})
		checkRead(t, reqs, st, err)
		reqs, st, err = ReadWithOptions(strings.NewReader("t,p\n1,2\n"), "m.csv", ReadOptions{Mapping: m})
		checkRead(t, reqs, st, err)
	})
}
