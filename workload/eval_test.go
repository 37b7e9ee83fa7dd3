package workload

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadEval(t *testing.T) {
	want := []EvalRow{
		{Item: "q1", Category: "math", Budget: 0, Correct: false, TotalTokens: 210},
		{Item: "q1", Category: "math", Budget: 512, Correct: true, TotalTokens: 830},
		{Item: "q2", Category: "", Budget: 1024, Correct: true, TotalTokens: 1000},
	}
	tests := []struct {
		name, file, format, content string
	}{
		{"jsonl", "e.jsonl", "", `{"item":"q1","category":"math","budget":0,"correct":false,"total_tokens":210}
# a comment

{"item":"q1","category":"math","budget":"512","correct":1,"total_tokens":830.0,"extra":[1]}
{"item":"q2","budget":1024,"correct":"TRUE","total_tokens":1e3,"category":null}
`},
		{"csv", "e.csv", "", "Item, Category ,budget,correct,total_tokens,notes\n" +
			"q1,math,0,0,210,x\n# comment\nq1,math,512,true,830,\nq2,,1024,1,1e3,y\n"},
		{"sniffed csv", "eval", "", "budget,correct,total_tokens,item,category\n0,false,210,q1,math\n512,True,830,q1,math\n1024,1,1000,q2,\n"},
		{"named format", "eval.txt", "jsonl", `{"item":"q1","category":"math","budget":0,"correct":0,"total_tokens":210}
{"item":"q1","category":"math","budget":512,"correct":true,"total_tokens":830}
{"item":"q2","budget":1024,"correct":true,"total_tokens":1000}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadEval(strings.NewReader(tt.content), tt.file, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestReadEvalGzipFile(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("budget,correct,total_tokens\n256,1,400\n"))
	_ = zw.Close()
	path := filepath.Join(t.TempDir(), "eval.csv.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadEvalFile(path)
	if err != nil || len(rows) != 1 || rows[0] != (EvalRow{Budget: 256, Correct: true, TotalTokens: 400}) {
		t.Fatalf("rows %+v, err %v", rows, err)
	}
	if _, err := ReadEvalFile(filepath.Join(t.TempDir(), "missing.csv")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestReadEvalErrors(t *testing.T) {
	const header = "item,category,budget,correct,total_tokens\n"
	tests := []struct {
		name, file, content string
		want                []string
	}{
		{"empty", "e.jsonl", "", []string{"e.jsonl: no eval rows"}},
		{"header only", "e.csv", header, []string{"e.csv: no eval rows"}},
		{"missing columns", "e.csv", "item,budget\nq,1\n",
			[]string{"e.csv:1: header: correct: missing column", "total_tokens: missing column"}},
		{"duplicate column", "e.csv", "budget,budget,correct,total_tokens\n", []string{"e.csv:1: header: budget: column appears twice"}},
		{"missing field", "e.jsonl", `{"budget":1,"total_tokens":3}`, []string{"e.jsonl:1: correct: missing"}},
		{"negative tokens", "e.csv", header + "q,m,0,1,-1\n", []string{"e.csv:2: total_tokens: must be a non-negative integer, got -1"}},
		{"negative budget", "e.jsonl", `{"budget":-256,"correct":1,"total_tokens":3}`, []string{"e.jsonl:1: budget: must be a non-negative integer"}},
		{"fractional tokens", "e.jsonl", `{"budget":0,"correct":1,"total_tokens":3.5}`, []string{"e.jsonl:1: total_tokens"}},
		{"non-numeric", "e.csv", header + "q,m,x,1,5\n", []string{`e.csv:2: budget: must be a non-negative integer, got "x"`}},
		{"NaN", "e.jsonl", `{"budget":0,"correct":1,"total_tokens":"NaN"}`, []string{"e.jsonl:1: total_tokens"}},
		{"too large", "e.jsonl", `{"budget":0,"correct":1,"total_tokens":2e9}`, []string{"e.jsonl:1: total_tokens: must be at most"}},
		{"bad grade", "e.jsonl", `{"budget":0,"correct":"yes","total_tokens":1}`, []string{`e.jsonl:1: correct: must be true, false, 1 or 0, got "yes"`}},
		{"grade 2", "e.csv", header + "q,m,0,2,5\n", []string{"e.csv:2: correct"}},
		{"object value", "e.jsonl", `{"budget":{},"correct":1,"total_tokens":1}`, []string{"e.jsonl:1: budget: must be a string, number or boolean"}},
		{"not an object", "e.jsonl", "[1,2]\n", []string{"e.jsonl:1: want a JSON object"}},
		{"bad JSON", "e.jsonl", "{\"budget\":1,\n", []string{"e.jsonl:1: invalid JSON"}},
		{"ragged row", "e.csv", header + "q,m,0,1\n", []string{"e.csv:2: has 4 fields, the header has 5"}},
		{"unknown format", "e.csv", header, []string{"unknown format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			format := ""
			if tt.name == "unknown format" {
				format = "parquet"
			}
			rows, err := ReadEval(strings.NewReader(tt.content), tt.file, format)
			if err == nil {
				t.Fatalf("no error; rows %+v", rows)
			}
			if rows != nil {
				t.Error("rows returned with an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestReadEvalManyErrors: a file of bad rows reports ten, then stops.
func TestReadEvalManyErrors(t *testing.T) {
	content := strings.Repeat(`{"budget":-1,"correct":1,"total_tokens":1}`+"\n", 50)
	_, err := ReadEval(strings.NewReader(content), "e.jsonl", "")
	if err == nil || !strings.Contains(err.Error(), "too many errors, stopped at line 10") {
		t.Fatalf("error %v", err)
	}
}

func FuzzReadEval(f *testing.F) {
	f.Add([]byte(`{"item":"a","category":"math","budget":512,"correct":true,"total_tokens":900}`), "e.jsonl")
	f.Add([]byte("item,category,budget,correct,total_tokens\na,rag,0,1,120\nb,rag,256,false,\"3e2\"\n"), "e.csv")
	f.Add([]byte(`{"budget":"1e3","correct":0,"total_tokens":-0}`+"\n#\n"+`{"budget":1,"correct":"False","total_tokens":9007199254740993}`), "e")
	f.Add([]byte("budget,correct,total_tokens\n\"1,\"2\n"), "e.csv")
	f.Add([]byte("\x1f\x8b\x08"), "e.gz")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		rows, err := ReadEval(bytes.NewReader(data), name, "")
		if err != nil {
			if rows != nil {
				t.Fatal("rows with an error")
			}
			if err.Error() == "" || strings.Contains(err.Error(), "panic") {
				t.Fatalf("bad error %q", err)
			}
			return
		}
		if len(rows) == 0 {
			t.Fatal("no rows and no error")
		}
		for _, r := range rows {
			if r.Budget < 0 || r.Budget > MaxTokens || r.TotalTokens < 0 || r.TotalTokens > MaxTokens {
				t.Fatalf("invalid row accepted: %+v", r)
			}
		}
	})
}
