package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const testdataDir = "../testdata/workload"

// sampleRequests is what every sample file in testdata/workload holds, sorted
// by arrival (d comes before c).
var sampleRequests = []Request{
	{ID: "a", ArrivalS: 0, PromptTokens: 512, ThinkTokens: 1200, AnswerTokens: 180, Mode: "high", Category: "math", FinishReason: "stop"},
	{ID: "b", ArrivalS: 0.25, PromptTokens: 2048, AnswerTokens: 96, Mode: "low", Category: "extraction", PrefixID: "sys-1", PrefixTokens: 700},
	{ID: "d", ArrivalS: 1.0, PromptTokens: 64, ThinkTokens: 12, AnswerTokens: 40, Priority: -1},
	{ID: "c", ArrivalS: 1.5, PromptTokens: 300, ThinkTokens: 8000, Mode: "medium", FinishReason: "length"},
}

// essentials keeps the fields every sample file has, for the files that
// carry fewer columns.
func essentials(reqs []Request) []Request {
	out := make([]Request, len(reqs))
	for i, r := range reqs {
		out[i] = Request{ID: r.ID, ArrivalS: r.ArrivalS, PromptTokens: r.PromptTokens, ThinkTokens: r.ThinkTokens, AnswerTokens: r.AnswerTokens}
	}
	return out
}

func TestReadFileSamples(t *testing.T) {
	tests := []struct {
		file       string
		format     string
		gzip       bool
		timestamps bool
		essential  bool // compare only the fields the file has
	}{
		{file: "requests.jsonl", format: FormatNative},
		{file: "requests.csv", format: FormatCSV},
		{file: "requests.jsonl.gz", format: FormatNative, gzip: true},
		{file: "requests.log", format: FormatNative}, // sniffed past the comment line
		{file: "requests_timestamps.jsonl", format: FormatNative, timestamps: true, essential: true},
		{file: "requests_unix.csv", format: FormatCSV, timestamps: true, essential: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			reqs, st, err := ReadFileWithStats(filepath.Join(testdataDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			want := sampleRequests
			if tt.essential {
				want, reqs = essentials(want), essentials(reqs)
			}
			if !reflect.DeepEqual(reqs, want) {
				t.Errorf("requests:\n got %+v\nwant %+v", reqs, want)
			}
			wantSt := ReadStats{Format: tt.format, Gzip: tt.gzip, Records: 4, Reordered: 1, Timestamps: tt.timestamps}
			if tt.timestamps {
				wantSt.StartUnix = 1748779200 // 2025-06-01T12:00:00Z
			}
			if !reflect.DeepEqual(st, wantSt) {
				t.Errorf("stats: got %+v, want %+v", st, wantSt)
			}
		})
	}
}

func TestReadSniffAndFormat(t *testing.T) {
	const jsonl = "\n  # comment first\n{\"arrival_s\":1,\"prompt_tokens\":5}\n"
	const csvText = "prompt_tokens,arrival_s\n5,1\n"
	want := []Request{{ArrivalS: 1, PromptTokens: 5}}
	tests := []struct {
		name, format, input, wantFormat string
	}{
		{"stdin", "", jsonl, FormatNative},
		{"stdin", "", csvText, FormatCSV},
		{"stdin", "", "\xef\xbb\xbf" + csvText, FormatCSV}, // byte-order mark
		{"data.txt", "", jsonl, FormatNative},
		{"log.CSV", "", csvText, FormatCSV},
		{"x.ndjson", "", jsonl, FormatNative},
		{"x.csv.gz", "", csvText, FormatCSV},
		{"x.csv", "jsonl", jsonl, FormatNative}, // an explicit format wins
		{"x.csv", "native", jsonl, FormatNative},
		{"x.jsonl", "CSV", csvText, FormatCSV},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.wantFormat, func(t *testing.T) {
			reqs, st, err := ReadWithStats(strings.NewReader(tt.input), tt.name, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			if st.Format != tt.wantFormat {
				t.Errorf("format %q, want %q", st.Format, tt.wantFormat)
			}
			if !reflect.DeepEqual(reqs, want) {
				t.Errorf("got %+v, want %+v", reqs, want)
			}
		})
	}
}

func TestReadGzipSniffed(t *testing.T) {
	// gzip is recognised by its magic bytes, whatever the name says.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("prompt_tokens,arrival_s\n5,1\n7,0\n"))
	zw.Close()
	reqs, st, err := ReadWithStats(&buf, "upload", "")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Gzip || st.Format != FormatCSV || len(reqs) != 2 || reqs[0].PromptTokens != 7 {
		t.Errorf("got %+v, stats %+v", reqs, st)
	}
}

func TestReadValues(t *testing.T) {
	tests := []struct {
		name, input string
		want        Request
	}{
		{"float tokens", `{"arrival_s":0,"prompt_tokens":1e3,"think_tokens":12.0}`, Request{PromptTokens: 1000, ThinkTokens: 12}},
		{"numeric strings", `{"arrival_s":"2.5","prompt_tokens":"7"}`, Request{ArrivalS: 2.5, PromptTokens: 7}},
		{"nulls are absent", `{"arrival_s":0,"prompt_tokens":3,"think_tokens":null,"mode":null}`, Request{PromptTokens: 3}},
		{"numeric id", `{"id":42,"arrival_s":0,"prompt_tokens":3}`, Request{ID: "42", PromptTokens: 3}},
		{"arrival_s wins over timestamp", `{"arrival_s":3,"timestamp":"junk-free 1","prompt_tokens":3}`, Request{ArrivalS: 3, PromptTokens: 3}},
		{"unix timestamp number", `{"timestamp":1748779200.5,"prompt_tokens":3}`, Request{PromptTokens: 3}},
		{"crlf", "{\"arrival_s\":0,\"prompt_tokens\":3}\r\n", Request{PromptTokens: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, err := Read(strings.NewReader(tt.input), "r.jsonl", "")
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != 1 || reqs[0] != tt.want {
				t.Errorf("got %+v, want %+v", reqs, tt.want)
			}
		})
	}
}

func TestReadTimestampsRelative(t *testing.T) {
	in := `{"timestamp":"1748779210","prompt_tokens":1}
{"timestamp":1748779200,"prompt_tokens":2}
{"timestamp":"2025-06-01T12:00:05Z","prompt_tokens":3}
`
	reqs, err := Read(strings.NewReader(in), "t.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	got := []float64{reqs[0].ArrivalS, reqs[1].ArrivalS, reqs[2].ArrivalS}
	if want := []float64{0, 5, 10}; !reflect.DeepEqual(got, want) {
		t.Errorf("arrivals %v, want %v", got, want)
	}
	if reqs[0].PromptTokens != 2 || reqs[2].PromptTokens != 1 {
		t.Errorf("order: %+v", reqs)
	}
}

func TestReadSortIsStable(t *testing.T) {
	in := "id,arrival_s,prompt_tokens\n" +
		"x,2,1\n" +
		"a,1,1\n" +
		"b,1,1\n" +
		"c,0,1\n" +
		"d,1,1\n"
	reqs, st, err := ReadWithStats(strings.NewReader(in), "s.csv", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range reqs {
		ids = append(ids, r.ID)
	}
	if got, want := strings.Join(ids, ""), "cabdx"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if st.Reordered != 4 {
		t.Errorf("out of order %d, want 4", st.Reordered)
	}
}

func TestReadErrors(t *testing.T) {
	const ok = `{"arrival_s":0,"prompt_tokens":5}` + "\n"
	tests := []struct {
		name, file, input string
		want              []string // substrings of the error
	}{
		{"negative think", "requests.jsonl", ok + `{"arrival_s":1,"prompt_tokens":5,"think_tokens":-3}`,
			[]string{"requests.jsonl:2: think_tokens: must be a non-negative integer, got -3"}},
		{"fractional tokens", "r.jsonl", `{"arrival_s":1,"prompt_tokens":5,"answer_tokens":12.5}`,
			[]string{"r.jsonl:1: answer_tokens: must be a non-negative integer, got 12.5"}},
		{"text tokens", "r.jsonl", `{"arrival_s":1,"prompt_tokens":"many"}`,
			[]string{"r.jsonl:1: prompt_tokens:", `"many"`}},
		{"bool tokens", "r.jsonl", `{"arrival_s":1,"prompt_tokens":true}`,
			[]string{"r.jsonl:1: prompt_tokens: must be a number, got true"}},
		{"too many tokens", "r.jsonl", `{"arrival_s":1,"prompt_tokens":1e12}`,
			[]string{"r.jsonl:1: prompt_tokens: must be at most"}},
		{"zero prompt", "r.jsonl", `{"arrival_s":1,"prompt_tokens":0}`,
			[]string{"r.jsonl:1: prompt_tokens: must be at least 1, got 0"}},
		{"missing prompt", "r.jsonl", `{"arrival_s":1}`,
			[]string{"r.jsonl:1: prompt_tokens: missing"}},
		{"missing arrival", "r.jsonl", `{"prompt_tokens":1}`,
			[]string{"r.jsonl:1: arrival_s: missing"}},
		{"negative arrival", "r.jsonl", `{"arrival_s":-1,"prompt_tokens":1}`,
			[]string{"r.jsonl:1: arrival_s: must be non-negative, got -1"}},
		{"nan arrival", "r.csv", "arrival_s,prompt_tokens\nNaN,1\n",
			[]string{"r.csv:2: arrival_s: must be a finite number"}},
		{"inf tokens", "r.csv", "arrival_s,prompt_tokens\n0,+Inf\n",
			[]string{"r.csv:2: prompt_tokens: must be a non-negative integer"}},
		{"bad mode", "r.jsonl", `{"arrival_s":1,"prompt_tokens":1,"mode":"extreme"}`,
			[]string{"r.jsonl:1: mode: must be one of low, medium, high", `"extreme"`}},
		{"bad finish", "r.jsonl", `{"arrival_s":1,"prompt_tokens":1,"finish_reason":"abort"}`,
			[]string{"r.jsonl:1: finish_reason: must be stop or length"}},
		{"prefix beyond prompt", "r.jsonl", `{"arrival_s":1,"prompt_tokens":10,"prefix_tokens":11}`,
			[]string{"r.jsonl:1: prefix_tokens: must not exceed prompt_tokens (10), got 11"}},
		{"bad priority", "r.jsonl", `{"arrival_s":1,"prompt_tokens":1,"priority":0.5}`,
			[]string{"r.jsonl:1: priority: must be an integer"}},
		{"object value", "r.jsonl", `{"arrival_s":1,"prompt_tokens":1,"mode":{}}`,
			[]string{"r.jsonl:1: mode: must be a string"}},
		{"bad timestamp", "r.jsonl", `{"timestamp":"yesterday","prompt_tokens":1}`,
			[]string{"r.jsonl:1: timestamp: must be RFC 3339 or unix seconds"}},
		{"millisecond timestamp", "r.jsonl", `{"timestamp":1748779200000,"prompt_tokens":1}`,
			[]string{"r.jsonl:1: timestamp: must be unix seconds", "milliseconds"}},
		{"mixed clocks", "r.jsonl", ok + `{"timestamp":1748779200,"prompt_tokens":1}`,
			[]string{"r.jsonl:2: arrival_s: missing", "do not mix"}},
		{"mixed clocks reversed", "r.jsonl", `{"timestamp":1748779200,"prompt_tokens":1}` + "\n" + ok,
			[]string{"r.jsonl:2: timestamp: missing", "do not mix"}},
		{"invalid json", "r.jsonl", ok + `{"arrival_s":1,`,
			[]string{"r.jsonl:2: invalid JSON"}},
		{"not an object", "r.jsonl", ok + `[1,2]`,
			[]string{"r.jsonl:2: want a JSON object"}},
		{"json array file", "stdin", `[{"arrival_s":1,"prompt_tokens":1}]`,
			[]string{"stdin: a JSON array is not JSONL"}},
		{"empty jsonl", "r.jsonl", "\n# nothing\n\n",
			[]string{"r.jsonl: no request records"}},
		{"empty csv", "r.csv", "arrival_s,prompt_tokens\n",
			[]string{"r.csv: no request records"}},
		{"empty input", "r.csv", "",
			[]string{"r.csv: no request records"}},
		{"csv missing prompt column", "r.csv", "arrival_s,tokens\n1,2\n",
			[]string{"r.csv:1: header: prompt_tokens: missing column"}},
		{"csv missing clock column", "r.csv", "prompt_tokens\n2\n",
			[]string{"r.csv:1: header: arrival_s: missing column"}},
		{"csv duplicate column", "r.csv", "prompt_tokens,arrival_s,Prompt_Tokens\n1,2,3\n",
			[]string{"r.csv:1: header: prompt_tokens: column appears twice"}},
		{"csv field count", "r.csv", "# c\narrival_s,prompt_tokens\n1,2\n1,2,3\n",
			[]string{"r.csv:4: has 3 fields, the header has 2"}},
		{"csv bad quote", "r.csv", "arrival_s,prompt_tokens\n1,\"2\n",
			[]string{"r.csv:", "csv:"}},
		{"csv empty prompt cell", "r.csv", "arrival_s,prompt_tokens\n1,\n",
			[]string{"r.csv:2: prompt_tokens: missing"}},
		{"bad gzip", "r.jsonl.gz", "\x1f\x8b\x00garbage",
			[]string{"r.jsonl.gz: gzip:"}},
		{"several errors", "r.jsonl", `{"arrival_s":1,"prompt_tokens":0}` + "\n" + ok + `{"arrival_s":-1,"prompt_tokens":1}`,
			[]string{"r.jsonl:1: prompt_tokens", "r.jsonl:3: arrival_s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, err := Read(strings.NewReader(tt.input), tt.file, "")
			if err == nil {
				t.Fatalf("no error; got %+v", reqs)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestReadStopsAfterTooManyErrors(t *testing.T) {
	in := strings.Repeat(`{"arrival_s":1}`+"\n", 100)
	_, err := Read(strings.NewReader(in), "r.jsonl", "")
	if err == nil || !strings.Contains(err.Error(), "too many errors") {
		t.Fatalf("error %v, want too many errors", err)
	}
	if n := strings.Count(err.Error(), "prompt_tokens: missing"); n != maxErrors {
		t.Errorf("%d errors reported, want %d", n, maxErrors)
	}
}

func TestReadFormatErrors(t *testing.T) {
	if _, err := Read(strings.NewReader("x"), "r", "xml"); err == nil || !strings.Contains(err.Error(), "valid: native, openai-usage, csv") {
		t.Errorf("error %v, want the valid formats", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "absent.jsonl")); err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v, want not-exist", err)
	}
}
