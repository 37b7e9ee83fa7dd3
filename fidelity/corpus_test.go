package fidelity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goodLine is a minimal valid record.
const goodLine = `{"id":"t-1","source":"test","ref":{"url":"https://example.org/run"},"model":"Qwen/Qwen3-8B","gpu":"h100-sxm","tp":1,"pp":1,"dp":1,"ep":false,"quantization":"","kv_cache_dtype":"auto","vllm_version":"0.11.0","engine":{},"workload":{"dataset":"random","input_len":{"min":800,"max":1000},"output_len":{"min":100,"max":100}},"concurrency":4,"request_rate":0,"measured":{"tpot_ms":{"mean":7.5}}}`

func writeCorpus(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReadCorpusErrors: every bad line is reported with its file:line and
// what is wrong, all of them at once.
func TestReadCorpusErrors(t *testing.T) {
	bad := []struct{ line, want string }{
		{`{"id":"x"`, "a.jsonl:2: unexpected EOF"},
		{strings.Replace(goodLine, `"tp":1`, `"tp":1,"tensor_parallel":2`, 1), `a.jsonl:3: json: unknown field "tensor_parallel"`},
		{strings.Replace(goodLine, `"tp":1`, `"tp":0`, 1), "a.jsonl:4: t-1: tp must be at least 1"},
		{strings.Replace(goodLine, `"concurrency":4`, `"concurrency":0`, 1), "a.jsonl:5: t-1: neither concurrency nor request_rate"},
		{strings.Replace(goodLine, `{"tpot_ms":{"mean":7.5}}`, `{}`, 1), "a.jsonl:6: t-1: nothing measured"},
		{strings.Replace(goodLine, `"url":"https://example.org/run"`, `"url":""`, 1), "a.jsonl:7: t-1: ref needs a url"},
		{strings.Replace(goodLine, `{"min":800,"max":1000}`, `{"min":900,"max":800}`, 1), "a.jsonl:8: t-1: workload.input_len: min 900 must be in [0, max 800]"},
		{strings.Replace(goodLine, `{"min":100,"max":100}`, `{"dist":"zipf","mean":3}`, 1), `a.jsonl:9: t-1: workload.output_len: unknown dist "zipf"`},
	}
	lines := []string{goodLine}
	for _, b := range bad {
		lines = append(lines, b.line)
	}
	dir := writeCorpus(t, map[string]string{"a.jsonl": strings.Join(lines, "\n") + "\n", "b.jsonl": "\n" + goodLine + "\n", "notes.md": "not read"})
	recs, err := ReadCorpus(dir)
	if err == nil {
		t.Fatal("ReadCorpus accepted bad lines")
	}
	for _, b := range bad {
		if !strings.Contains(err.Error(), b.want) {
			t.Errorf("error does not say %q:\n%v", b.want, err)
		}
	}
	// The duplicate id across files is named with both places.
	if !strings.Contains(err.Error(), `b.jsonl:2: id "t-1" already used at a.jsonl:1`) {
		t.Errorf("duplicate id not reported:\n%v", err)
	}
	if len(recs) != 2 {
		t.Errorf("%d good records read, want 2", len(recs))
	}
	if _, err := ReadCorpus(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.jsonl files") {
		t.Errorf("empty directory: %v", err)
	}
}

// FuzzReadRecords: any line either parses to a record that passes
// validation or is an error naming its line; never a panic.
func FuzzReadRecords(f *testing.F) {
	f.Add(goodLine)
	f.Add(`{"id":"a","source":"s","ref":{"repo":"o/n","path":"p","commit":"c"},"model":"m","gpu":"g","tp":2,"concurrency":0,"request_rate":-1,"workload":{"input_len":{"mean":200},"output_len":{"dist":"lognormal","mean":300,"sd":200}},"measured":{"output_throughput":5}}`)
	f.Add(`[]`)
	f.Add(`{"tp":-3}`)
	f.Fuzz(func(t *testing.T, line string) {
		recs, err := readRecords(strings.NewReader(line), "f.jsonl")
		if err != nil && !strings.Contains(err.Error(), "f.jsonl") {
			t.Fatalf("error without its file: %v", err)
		}
		for i := range recs {
			if recs[i].TP < 1 || recs[i].ID == "" {
				t.Fatalf("invalid record accepted: %+v", recs[i])
			}
			if _, err := lengthDist(recs[i].Workload.InputLen); err != nil && recs[i].Workload.InputLen.validate() == nil {
				t.Fatalf("valid length %+v has no distribution: %v", recs[i].Workload.InputLen, err)
			}
		}
	})
}
