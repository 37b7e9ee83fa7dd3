package workload

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// mappedSample is what mapped.csv and mapped.jsonl hold, sorted.
var mappedSample = []Request{
	{ID: "a", ArrivalS: 0, PromptTokens: 512, ThinkTokens: 1200, AnswerTokens: 180, Mode: "high", Category: "math", Correct: ptr(true)},
	{ID: "b", ArrivalS: 0.25, PromptTokens: 2048, AnswerTokens: 96, Mode: "low", Category: "extraction", Correct: ptr(true)},
	{ID: "d", ArrivalS: 1.0, PromptTokens: 64, ThinkTokens: 12, AnswerTokens: 40},
	{ID: "c", ArrivalS: 1.5, PromptTokens: 300, ThinkTokens: 8000, Mode: "medium", Correct: ptr(false)},
}

const (
	csvMapping  = "timestamp=ts,id=req,prompt=in_tokens,output=out_tokens,think=reasoning_tokens,mode=effort,category=task,correct=graded"
	jsonMapping = "timestamp=ts,id=request.id,prompt=tokens.in,output=tokens.out,think=tokens.reasoning,mode=labels.effort,category=labels.task,correct=grade.ok"
)

func mustMapping(t testing.TB, spec string) *Mapping {
	t.Helper()
	m, err := ParseMapping(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestReadFileFormats(t *testing.T) {
	const start = 1748779200 // 2025-06-01T12:00:00Z
	openaiWant := []Request{
		{ID: "chatcmpl-a", ArrivalS: 0, PromptTokens: 512, ThinkTokens: 1200, AnswerTokens: 180, Mode: "high", Category: "math", FinishReason: "stop"},
		{ID: "resp-b", ArrivalS: 1, PromptTokens: 2048, AnswerTokens: 96, Mode: "low", Category: "extraction", FinishReason: "stop"},
		{ID: "chatcmpl-c", ArrivalS: 2, PromptTokens: 300, ThinkTokens: 8000, Mode: "medium", FinishReason: "length"},
		{ID: "chatcmpl-d", ArrivalS: 3, PromptTokens: 64, ThinkTokens: 12, AnswerTokens: 40, FinishReason: "stop"},
	}
	tests := []struct {
		file   string
		opt    ReadOptions
		want   []Request
		wantSt ReadStats
	}{
		{"openai_usage.jsonl", ReadOptions{}, openaiWant,
			ReadStats{Format: FormatOpenAI, Records: 4, Reordered: 1, Timestamps: true, StartUnix: start}},
		{"openai_usage.jsonl", ReadOptions{Format: "openai-usage"}, openaiWant,
			ReadStats{Format: FormatOpenAI, Records: 4, Reordered: 1, Timestamps: true, StartUnix: start}},
		{"mapped.csv", ReadOptions{Mapping: mustMapping(t, csvMapping)}, mappedSample,
			ReadStats{Format: FormatCSV, Mapped: true, Records: 4, Reordered: 1, Timestamps: true, StartUnix: start}},
		{"mapped.jsonl", ReadOptions{Mapping: mustMapping(t, jsonMapping)}, mappedSample,
			ReadStats{Format: FormatJSONL, Mapped: true, Records: 4, Reordered: 1, Timestamps: true, StartUnix: start}},
		{"mapped.jsonl", ReadOptions{Format: "jsonl", Mapping: mustMapping(t, jsonMapping)}, mappedSample,
			ReadStats{Format: FormatJSONL, Mapped: true, Records: 4, Reordered: 1, Timestamps: true, StartUnix: start}},
		{"requests.jsonl", ReadOptions{Format: "native"}, sampleRequests,
			ReadStats{Format: FormatNative, Records: 4, Reordered: 1}},
		{"requests.jsonl.gz", ReadOptions{}, sampleRequests,
			ReadStats{Format: FormatNative, Gzip: true, Records: 4, Reordered: 1}},
		{"requests.csv", ReadOptions{Format: "csv"}, sampleRequests,
			ReadStats{Format: FormatCSV, Records: 4, Reordered: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.opt.Format, func(t *testing.T) {
			reqs, st, err := ReadFileOptions(filepath.Join(testdataDir, tt.file), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(reqs, tt.want) {
				t.Errorf("requests:\n got %s\nwant %s", describe(reqs), describe(tt.want))
			}
			if !reflect.DeepEqual(st, tt.wantSt) {
				t.Errorf("stats: got %+v, want %+v", st, tt.wantSt)
			}
		})
	}
}

// describe prints requests with their pointers followed.
func describe(reqs []Request) string {
	var b strings.Builder
	for _, r := range reqs {
		c := "nil"
		if r.Correct != nil {
			c = fmt.Sprint(*r.Correct)
		}
		fmt.Fprintf(&b, "\n  %+v correct=%s", r, c)
	}
	return b.String()
}

func TestDetectFormat(t *testing.T) {
	const (
		native = `{"arrival_s":0,"prompt_tokens":5,"usage":7}`
		openai = `{"created":1748779200,"usage":{"prompt_tokens":5,"completion_tokens":3}}`
	)
	tests := []struct {
		name, input, want string
	}{
		{"native", native, FormatNative},
		{"openai", openai, FormatOpenAI},
		{"openai after comment", "# log\n\n" + openai, FormatOpenAI},
		{"usage is null", `{"arrival_s":0,"prompt_tokens":5,"usage":null}`, FormatNative},
		{"first record decides", native + "\n" + `{"arrival_s":1,"prompt_tokens":5,"usage":{}}`, FormatNative},
		{"csv", "arrival_s,prompt_tokens\n0,5\n", FormatCSV},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, st, err := ReadWithOptions(strings.NewReader(tt.input), "stdin", ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Format != tt.want {
				t.Errorf("format %q, want %q", st.Format, tt.want)
			}
		})
	}

	// A line that is not JSON neither decides nor hides the format of the
	// next.
	s, err := NewScanner(strings.NewReader("{oops\n"+openai+"\n"), "x.jsonl", ReadOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	for s.Scan() {
	}
	if st := s.Stats(); s.Err() != nil || st.Format != FormatOpenAI || st.Records != 1 || st.Skipped != 1 {
		t.Errorf("err %v, stats %+v", s.Err(), st)
	}
}

func TestReadFormatOptionErrors(t *testing.T) {
	m := mustMapping(t, "arrival=t,prompt=p")
	tests := []struct {
		opt  ReadOptions
		want string
	}{
		{ReadOptions{Format: "xml"}, `x.jsonl: unknown format "xml" (valid: native, openai-usage, csv, mooncake)`},
		{ReadOptions{Format: "openai-usage", Mapping: m}, "does not combine with a field mapping"},
	}
	for _, tt := range tests {
		_, err := NewScanner(strings.NewReader(""), "x.jsonl", tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.opt, err, tt.want)
		}
	}
}

func TestReadNewFieldErrors(t *testing.T) {
	const oaOK = `{"created":1748779200,"usage":{"prompt_tokens":5,"completion_tokens":3}}` + "\n"
	tests := []struct {
		name, file, input string
		opt               ReadOptions
		want              []string
	}{
		{"reasoning beyond completion", "o.jsonl", oaOK + `{"created":1748779201,"usage":{"prompt_tokens":5,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":4}}}`, ReadOptions{},
			[]string{"o.jsonl:2: usage.completion_tokens_details.reasoning_tokens: must not exceed usage.completion_tokens (3), got 4"}},
		{"responses reasoning beyond output", "o.jsonl", `{"created_at":1748779200,"usage":{"input_tokens":5,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":9}}}`, ReadOptions{Format: FormatOpenAI},
			[]string{"o.jsonl:1: usage.output_tokens_details.reasoning_tokens: must not exceed usage.output_tokens (3), got 9"}},
		{"no usage", "o.jsonl", oaOK + `{"created":1748779201,"id":"x"}`, ReadOptions{},
			[]string{"o.jsonl:2: usage: missing"}},
		{"no completion", "o.jsonl", `{"created":1748779201,"usage":{"prompt_tokens":4}}`, ReadOptions{Format: FormatOpenAI},
			[]string{"o.jsonl:1: usage.completion_tokens: missing"}},
		{"negative prompt", "o.jsonl", `{"created":1748779201,"usage":{"prompt_tokens":-4,"completion_tokens":1}}`, ReadOptions{},
			[]string{"o.jsonl:1: usage.prompt_tokens: must be a non-negative integer, got -4"}},
		{"no clock", "o.jsonl", `{"usage":{"prompt_tokens":4,"completion_tokens":1}}`, ReadOptions{},
			[]string{"o.jsonl:1: arrival_s: missing (give arrival_s or timestamp)"}},
		{"millisecond created", "o.jsonl", `{"created":1748779200000,"usage":{"prompt_tokens":4,"completion_tokens":1}}`, ReadOptions{},
			[]string{"o.jsonl:1: created: must be unix seconds", "milliseconds"}},
		{"usage not an object", "o.jsonl", oaOK + `{"created":1748779201,"usage":"lots"}`, ReadOptions{},
			[]string{"o.jsonl:2: usage: must be an object, got a string"}},
		{"choices not an array", "o.jsonl", `{"created":1,"choices":{},"usage":{"prompt_tokens":4,"completion_tokens":1}}`, ReadOptions{},
			[]string{"o.jsonl:1: choices: must be an array of objects, got an object"}},
		{"bad effort", "o.jsonl", `{"created":1,"reasoning":{"effort":"max"},"usage":{"prompt_tokens":4,"completion_tokens":1}}`, ReadOptions{},
			[]string{`o.jsonl:1: reasoning.effort: must be one of low, medium, high, got "max"`}},
		{"bad correct", "r.jsonl", `{"arrival_s":0,"prompt_tokens":1,"correct":"maybe"}`, ReadOptions{},
			[]string{`r.jsonl:1: correct: must be true, false, 1 or 0, got "maybe"`}},
		{"correct as object", "r.jsonl", `{"arrival_s":0,"prompt_tokens":1,"correct":{}}`, ReadOptions{},
			[]string{`r.jsonl:1: correct: must be true or false, got {}`}},
		{"bool in a number", "r.jsonl", `{"arrival_s":0,"prompt_tokens":1,"think_tokens":false}`, ReadOptions{},
			[]string{`r.jsonl:1: think_tokens: must be a number, got false`}},
		{"csv bad correct", "r.csv", "arrival_s,prompt_tokens,correct\n0,1,yes\n", ReadOptions{},
			[]string{`r.csv:2: correct: must be true, false, 1 or 0, got "yes"`}},
		{"mapped output below think", "m.csv", "t,p,o,r\n0,5,3,4\n", ReadOptions{Mapping: mustMapping(t, "arrival=t,prompt=p,output=o,think=r")},
			[]string{"m.csv:2: r: must not exceed o (3), got 4"}},
		{"mapped bad value", "m.jsonl", `{"t":0,"x":{"p":"many"}}`, ReadOptions{Mapping: mustMapping(t, "arrival=t,prompt=x.p")},
			[]string{`m.jsonl:1: x.p: must be a non-negative integer, got "many"`}},
		{"mapped missing value", "m.jsonl", `{"t":0,"x":{}}`, ReadOptions{Mapping: mustMapping(t, "arrival=t,prompt=x.p")},
			[]string{`m.jsonl:1: x.p: missing`}},
		{"mapped missing clock", "m.jsonl", `{"x":{"p":1}}`, ReadOptions{Mapping: mustMapping(t, "timestamp=when,prompt=x.p")},
			[]string{`m.jsonl:1: when: missing`}},
		{"mapped path through a value", "m.jsonl", `{"t":0,"x":5}`, ReadOptions{Mapping: mustMapping(t, "arrival=t,prompt=x.p")},
			[]string{`m.jsonl:1: x: must be an object, got a number`}},
		{"mapped csv column missing", "m.csv", "t,prompt\n0,5\n", ReadOptions{Mapping: mustMapping(t, "arrival=t,prompt=p,think=r")},
			[]string{"m.csv:1: header: p: missing column (mapped to prompt)", "m.csv:1: header: r: missing column (mapped to think)"}},
		{"mapped csv column twice", "m.csv", "t,P,p\n0,5,6\n", ReadOptions{Mapping: mustMapping(t, "arrival=t,prompt=p")},
			[]string{"m.csv:1: header: p: column appears twice"}},
		{"timestamps too far apart", "t.jsonl", `{"timestamp":0,"prompt_tokens":1}` + "\n" + `{"timestamp":2e9,"prompt_tokens":1}`, ReadOptions{},
			[]string{"t.jsonl:2: timestamp: must be within 1e+09 seconds of the first record's"}},
		{"timestamps too far apart after rebasing", "t.jsonl", `{"timestamp":0,"prompt_tokens":1}` + "\n" + `{"timestamp":-9e8,"prompt_tokens":1}` + "\n" + `{"timestamp":9e8,"prompt_tokens":1}`, ReadOptions{},
			[]string{"t.jsonl:3: timestamp: more than 1e+09 seconds after the earliest timestamp"}},
		{"all skipped", "r.jsonl", `{"arrival_s":-1,"prompt_tokens":1}`, ReadOptions{SkipInvalid: true},
			[]string{"r.jsonl: no valid request records (1 skipped)"}},
		{"broken gzip is not skipped", "r.jsonl.gz", gzipped(t, `{"arrival_s":1,"prompt_tokens":1}`+"\n")[:30], ReadOptions{SkipInvalid: true},
			[]string{"r.jsonl.gz:1: read:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, _, err := ReadWithOptions(strings.NewReader(tt.input), tt.file, tt.opt)
			if err == nil {
				t.Fatalf("no error; got %s", describe(reqs))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func gzipped(t testing.TB, s string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestSkipInvalid(t *testing.T) {
	in := strings.Join([]string{
		`{"arrival_s":0,"prompt_tokens":5}`,
		`{"arrival_s":1,"prompt_tokens":5,"think_tokens":-3}`,
		`{"arrival_s":2,"prompt_tokens":5,"think_tokens":"x"}`,
		`{"arrival_s":3,"prompt_tokens":0}`,
		`{"arrival_s":4,`,
		`{"arrival_s":5,"prompt_tokens":5,"mode":"max"}`,
		`{"arrival_s":6,"prompt_tokens":5}`,
		`{"timestamp":7,"prompt_tokens":5}`,
		`{"arrival_s":8,"prompt_tokens":5,"think_tokens":1.5}`,
		`[8]`,
	}, "\n")
	reqs, st, err := ReadWithOptions(strings.NewReader(in), "s.jsonl", ReadOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[1].ArrivalS != 6 || st.Records != 2 {
		t.Errorf("got %s, stats %+v", describe(reqs), st)
	}
	wantReasons := map[string]int{
		"think_tokens: must be a non-negative integer": 3,
		"prompt_tokens: must be at least 1":            1,
		"invalid JSON":                                 1,
		"mode: must be one of low, medium, high":       1,
		"arrival_s: missing":                           1,
		"want a JSON object":                           1,
	}
	if st.Skipped != 8 || !reflect.DeepEqual(st.SkipReasons, wantReasons) {
		t.Errorf("skipped %d, reasons %v; want 8, %v", st.Skipped, st.SkipReasons, wantReasons)
	}
	wantExamples := []string{
		"s.jsonl:2: think_tokens: must be a non-negative integer, got -3",
		`s.jsonl:3: think_tokens: must be a non-negative integer, got "x"`,
		"s.jsonl:4: prompt_tokens: must be at least 1, got 0",
		"s.jsonl:5: invalid JSON: unexpected end of JSON input",
		`s.jsonl:6: mode: must be one of low, medium, high, got "max"`,
	}
	if !reflect.DeepEqual(st.SkipExamples, wantExamples) {
		t.Errorf("examples:\n%s\nwant\n%s", strings.Join(st.SkipExamples, "\n"), strings.Join(wantExamples, "\n"))
	}

	// The same in CSV, with a row of the wrong width and a bad quote.
	csvIn := "arrival_s,prompt_tokens,think_tokens\n0,5,1\n1,5\n2,5,-1\n3,\"5,1\n"
	reqs, st, err = ReadWithOptions(strings.NewReader(csvIn), "s.csv", ReadOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	wantReasons = map[string]int{
		"wrong number of fields":                       1,
		"think_tokens: must be a non-negative integer": 1,
		`csv: extraneous or missing " in quoted-field`: 1,
	}
	if len(reqs) != 1 || st.Skipped != 3 || !reflect.DeepEqual(st.SkipReasons, wantReasons) {
		t.Errorf("got %s, skipped %d, reasons %v", describe(reqs), st.Skipped, st.SkipReasons)
	}
	if len(st.SkipExamples) != 3 || st.SkipExamples[0] != "s.csv:3: has 2 fields, the header has 3" {
		t.Errorf("examples %q", st.SkipExamples)
	}

	// Without SkipInvalid the same input is an error at each bad line.
	_, _, err = ReadWithOptions(strings.NewReader(in), "s.jsonl", ReadOptions{})
	for _, line := range []int{2, 3, 4, 5, 6, 8, 9, 10} {
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("s.jsonl:%d: ", line)) {
			t.Errorf("error %v does not name line %d", err, line)
		}
	}
}

// writeTestLog writes a log of n records with timestamps, some out of
// order, in the given format (native, openai-usage, csv), optionally
// gzipped.
func writeTestLog(t *testing.T, n int, format string, gz bool) string {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	var buf bytes.Buffer
	if format == FormatCSV {
		buf.WriteString("id,timestamp,prompt_tokens,think_tokens,answer_tokens,mode\n")
	}
	ts := 1748779200.0
	for i := range n {
		ts += r.ExpFloat64()
		at := ts
		if r.IntN(10) == 0 || i == 1 {
			at -= 30 * r.Float64() // logged late
		}
		p, th, a := 1+r.IntN(4000), r.IntN(9000), r.IntN(700)
		mode := []string{"low", "medium", "high"}[r.IntN(3)]
		switch format {
		case FormatNative:
			fmt.Fprintf(&buf, `{"id":"r%d","timestamp":%.3f,"prompt_tokens":%d,"think_tokens":%d,"answer_tokens":%d,"mode":"%s"}`+"\n", i, at, p, th, a, mode)
		case FormatOpenAI:
			fmt.Fprintf(&buf, `{"id":"r%d","timestamp":%.3f,"usage":{"prompt_tokens":%d,"completion_tokens":%d,"completion_tokens_details":{"reasoning_tokens":%d}},"metadata":{"mode":"%s"}}`+"\n", i, at, p, th+a, th, mode)
		case FormatCSV:
			fmt.Fprintf(&buf, "r%d,%.3f,%d,%d,%d,%s\n", i, at, p, th, a, mode)
		}
	}
	data := buf.Bytes()
	name := "log." + map[string]string{FormatNative: "jsonl", FormatOpenAI: "jsonl", FormatCSV: "csv"}[format]
	if gz {
		data = []byte(gzipped(t, string(data)))
		name += ".gz"
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScannerEqualsCollected(t *testing.T) {
	for _, format := range []string{FormatNative, FormatOpenAI, FormatCSV} {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/gzip=%v", format, gz), func(t *testing.T) {
				path := writeTestLog(t, 3000, format, gz)
				all, st, err := ReadFileOptions(path, ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if st.Format != format || st.Gzip != gz || st.Records != 3000 || st.Reordered == 0 || !st.Timestamps {
					t.Errorf("stats %+v", st)
				}

				s, err := OpenScanner(path, ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				var streamed []Request
				negative := 0
				for s.Scan() {
					req := s.Request()
					if req.ArrivalS < 0 {
						negative++
					}
					streamed = append(streamed, req)
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				sst := s.Stats()
				if sst.Records != st.Records || sst.Reordered != st.Reordered || sst.Format != st.Format {
					t.Errorf("streamed stats %+v, collected %+v", sst, st)
				}
				// Streamed arrivals count from the first record; rebase
				// and sort them as the collected read does.
				earliest := slices.MinFunc(streamed, func(a, b Request) int { return cmpFloat(a.ArrivalS, b.ArrivalS) }).ArrivalS
				if negative == 0 || earliest >= 0 {
					t.Errorf("no record before the first: the test log should have some")
				}
				for i := range streamed {
					streamed[i].ArrivalS -= earliest
				}
				if got := sst.StartUnix + earliest; got != st.StartUnix {
					t.Errorf("start %v, collected %v", got, st.StartUnix)
				}
				sortByArrival(streamed)
				if !reflect.DeepEqual(streamed, all) {
					t.Error("streamed records differ from collected ones")
				}
			})
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestScannerStopsAtFirstError(t *testing.T) {
	in := "{\"arrival_s\":0,\"prompt_tokens\":5}\n{\"arrival_s\":1}\n{\"arrival_s\":2,\"prompt_tokens\":5}\n{\"arrival_s\":3}\n"
	s, err := NewScanner(strings.NewReader(in), "e.jsonl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for s.Scan() {
		n++
		if s.Line() != 1 {
			t.Errorf("line %d", s.Line())
		}
	}
	err = s.Err()
	if n != 1 || err == nil || !strings.Contains(err.Error(), "e.jsonl:2: prompt_tokens: missing") || !strings.Contains(err.Error(), "e.jsonl:4:") {
		t.Errorf("%d records, error %v", n, err)
	}
	if s.Scan() {
		t.Error("Scan after the end")
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

func TestOpenScannerErrors(t *testing.T) {
	if _, err := OpenScanner(filepath.Join(t.TempDir(), "absent.jsonl"), ReadOptions{}); err == nil {
		t.Error("no error for a missing file")
	}
	s, err := OpenScanner(filepath.Join(testdataDir, "requests.csv"), ReadOptions{Format: "native"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for s.Scan() {
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "requests.csv:2: want a JSON object") {
		t.Errorf("error %v", err)
	}
}

func TestReadTimestampValues(t *testing.T) {
	tests := []struct {
		ts   string
		want float64
	}{
		{`"2025-06-01T12:00:00Z"`, 1748779200},
		{`"2025-06-01T12:00:00.5Z"`, 1748779200.5},
		{`"2025-06-01 14:00:00+02:00"`, 1748779200},
		{`"2025-06-01T07:30:00-04:30"`, 1748779200},
		{`"2025-06-01T12:00:00.123456789Z"`, 1748779200.123456789},
		{`"2024-02-29T00:00:00Z"`, 1709164800},
		{`"1970-01-01T00:00:00Z"`, 0},
		{`"1969-12-31T23:59:59Z"`, -1},
		{`"0001-01-01T00:00:00Z"`, -62135596800},
		{`"2025-06-01T12:00:00.1234567891Z"`, 1748779200.123456789}, // via time.Parse
		{`1748779200`, 1748779200},
		{`"1748779200.25"`, 1748779200.25},
	}
	for _, tt := range tests {
		in := `{"timestamp":` + tt.ts + `,"prompt_tokens":1}`
		_, st, err := ReadWithOptions(strings.NewReader(in), "t.jsonl", ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", tt.ts, err)
			continue
		}
		if st.StartUnix != tt.want {
			t.Errorf("%s: %v, want %v", tt.ts, st.StartUnix, tt.want)
		}
	}
	for _, bad := range []string{`"2025-02-29T00:00:00Z"`, `"2025-06-01T24:00:00Z"`, `"2025-06-01T12:00:00"`, `"2025-13-01T00:00:00Z"`} {
		in := `{"timestamp":` + bad + `,"prompt_tokens":1}`
		if _, _, err := ReadWithOptions(strings.NewReader(in), "t.jsonl", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "t.jsonl:1: timestamp:") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// The fast RFC 3339 parser agrees with time.Parse.
func TestParseRFC3339Fast(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", r.IntN(10000), 1+r.IntN(12), 1+r.IntN(31), r.IntN(24), r.IntN(60), r.IntN(60))
		if r.IntN(2) == 0 {
			s += fmt.Sprintf(".%0*d", 1+r.IntN(9), r.IntN(1000))
		}
		switch r.IntN(3) {
		case 0:
			s += "Z"
		default:
			s += fmt.Sprintf("%c%02d:%02d", "+-"[r.IntN(2)], r.IntN(24), r.IntN(60))
		}
		fast, fok := parseRFC3339Fast([]byte(s))
		tm, err := timeParse(s)
		if fok != (err == nil) || (fok && fast != tm) {
			t.Fatalf("%s: fast %v %v, time.Parse %v %v", s, fast, fok, tm, err)
		}
	}
}

// Lines longer than the read buffer are read whole.
func TestReadLongLines(t *testing.T) {
	long := strings.Repeat("é", 200_000)
	in := `{"id":"` + long + `","arrival_s":0,"prompt_tokens":5}` + "\n" +
		`{"arrival_s":1,"prompt_tokens":6,"note":"` + long + `"}` + "\n" +
		`{"arrival_s":2,"prompt_tokens":7}`
	reqs, err := readAll(in, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 || reqs[0].ID != long || reqs[1].PromptTokens != 6 || reqs[2].PromptTokens != 7 {
		t.Errorf("got %d requests", len(reqs))
	}
}
