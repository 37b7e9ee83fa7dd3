package workload

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const okAndFailedResults = `{"id":"a","arrival_s":0,"prompt_tokens":58,"think_tokens":40,"answer_tokens":30,"status":"ok","ttft_s":0.01,"e2e_s":0.4}
# a comment
{"id":"b","arrival_s":0.1,"prompt_tokens":0,"think_tokens":0,"answer_tokens":0,"status":"http_error","http_status":404,"error":"The model does not exist."}

{"id":"c","arrival_s":0.2,"prompt_tokens":0,"status":"timeout"}
`

func TestIsResultsFile(t *testing.T) {
	tests := []struct {
		name, text string
		gz, want   bool
	}{
		{"results", okAndFailedResults, false, true},
		{"results gzip", okAndFailedResults, true, true},
		{"request log", `{"arrival_s":0,"prompt_tokens":1,"think_tokens":2,"answer_tokens":3}` + "\n" + `{"status":"ok"}`, false, false},
		{"csv", "arrival_s,prompt_tokens,think_tokens,answer_tokens\n0,1,2,3\n", false, false},
		{"comment then results", "# run 1\n\n" + okAndFailedResults, false, true},
		{"empty", "", false, false},
		{"not json", "{oops\n", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.jsonl")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.gz {
				zw := gzip.NewWriter(f)
				zw.Write([]byte(tt.text))
				zw.Close()
			} else {
				f.WriteString(tt.text)
			}
			f.Close()
			got, err := IsResultsFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("IsResultsFile = %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := IsResultsFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file is no error")
	}
}

func TestEachResult(t *testing.T) {
	var statuses, ids []string
	err := EachResult(strings.NewReader(okAndFailedResults), "results.jsonl", func(r *Result) {
		statuses = append(statuses, r.Status)
		ids = append(ids, r.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(statuses, ",") != "ok,http_error,timeout" || strings.Join(ids, ",") != "a,b,c" {
		t.Errorf("statuses %v ids %v", statuses, ids)
	}
	// The same errors as ReadResults, naming the line.
	for _, tt := range []struct{ text, want string }{
		{"", "no result records"},
		{`{"status":"bogus"}`, "results.jsonl:1: status: must be one of"},
		{"{\"status\":\"ok\"}\n{\"status\":", "results.jsonl:2:"},
	} {
		err := EachResult(strings.NewReader(tt.text), "results.jsonl", func(*Result) {})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
		_, rerr := ReadResults(strings.NewReader(tt.text), "results.jsonl")
		if (rerr == nil) != (err == nil) {
			t.Errorf("%q: EachResult %v, ReadResults %v", tt.text, err, rerr)
		}
	}
}

// FuzzEachResult checks the streaming reader never panics and agrees with
// ReadResults on what is valid and on the records.
func FuzzEachResult(f *testing.F) {
	f.Add([]byte(okAndFailedResults))
	f.Add([]byte("{\"status\":\"ok\"}\n{\"status\":"))
	f.Add([]byte(`{"status":"ok","think_tokens":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []Result
		err := EachResult(strings.NewReader(string(data)), "f", func(r *Result) { got = append(got, *r) })
		want, rerr := ReadResults(strings.NewReader(string(data)), "f")
		if (err == nil) != (rerr == nil) {
			t.Fatalf("EachResult %v, ReadResults %v", err, rerr)
		}
		if err == nil && len(got) != len(want) {
			t.Fatalf("EachResult %d records, ReadResults %d", len(got), len(want))
		}
	})
}
