package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadDatasetSamples: the committed samples (made by testdata/gen)
// read whole, the texts as given, lengths estimated, vLLM's filter applied.
func TestReadDatasetSamples(t *testing.T) {
	sg, err := ReadDataset(DatasetShareGPT, "../testdata/sharegpt-sample.json", DatasetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sg) < 40 || len(sg) > 60 {
		t.Fatalf("%d ShareGPT prompts of 60 conversations", len(sg))
	}
	for _, p := range sg {
		if p.PromptTokens != EstimateTokens(p.Text) || !keep(p) || !strings.HasSuffix(p.Text, ".") {
			t.Fatalf("prompt %+v", p)
		}
	}
	fixed, _ := ReadDataset(DatasetShareGPT, "../testdata/sharegpt-sample.json", DatasetOptions{OutputLen: 64})
	for _, p := range fixed {
		if p.OutputTokens != 64 {
			t.Fatalf("--sharegpt-output-len 64: %d", p.OutputTokens)
		}
	}
	cu, err := ReadDataset(DatasetCustom, "../testdata/custom-prompts.jsonl", DatasetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	own, dflt := 0, 0
	for _, p := range cu {
		if p.OutputTokens == DefaultCustomOutputLen {
			dflt++
		} else {
			own++
		}
	}
	if len(cu) != 40 || own == 0 || dflt == 0 {
		t.Fatalf("%d custom prompts, %d with their own output length, %d vLLM's default", len(cu), own, dflt)
	}
}

// TestDatasetFilterAndErrors: vLLM's length filter drops short and long
// prompts; bad input names the file and line.
func TestDatasetFilterAndErrors(t *testing.T) {
	long := strings.Repeat("word ", 1000) // ~1,250 tokens: over the 1,024 prompt limit
	p := writeFile(t, "c.jsonl", `{"prompt": "hi"}
{"prompt": "`+long+`"}
{"prompt": "a question long enough to keep", "output_tokens": 100}
{"prompt": "a question long enough to drop", "output_tokens": 2}
`)
	ps, err := ReadDataset(DatasetCustom, p, DatasetOptions{})
	if err != nil || len(ps) != 1 || ps[0].OutputTokens != 100 {
		t.Fatalf("%+v %v", ps, err)
	}
	for _, c := range []struct{ name, file, body, want string }{
		{DatasetCustom, "bad.jsonl", "{\"prompt\": \"ok ok ok ok ok ok ok\"}\n{\"prompt\": 3}\n", "bad.jsonl:2:"},
		{DatasetCustom, "noprompt.jsonl", "\n\n{\"text\": \"x\"}\n", "noprompt.jsonl:3: custom dataset: no \"prompt\""},
		{DatasetShareGPT, "obj.json", "{\"conversations\": []}", "want a JSON array"},
		{DatasetShareGPT, "broken.json", "[\n {\"conversations\": [{\"value\": \"a\"}]},\n {\"conversations\": oops}\n]", "broken.json:3:"},
		{DatasetShareGPT, "empty.json", "[]", "no prompt passes"},
		{"hf", "x.json", "[]", "want one of sharegpt, custom"},
	} {
		_, err := ReadDataset(c.name, writeFile(t, c.file, c.body), DatasetOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
	}
}

// TestUseDataset: each request takes a prompt's lengths and its text by
// ID, keeps its arrival, and loses the synthetic classes.
func TestUseDataset(t *testing.T) {
	reqs := []Request{
		{ID: "r1", ArrivalS: 1, PromptTokens: 9, ThinkTokens: 9, AnswerTokens: 9, Mode: "high", PrefixID: "p", PrefixTokens: 4},
		{ID: "r2", ArrivalS: 2},
	}
	ps := []DatasetPrompt{{Text: "hello there", PromptTokens: 3, OutputTokens: 7}}
	texts := map[string]string{}
	UseDataset(reqs, DatasetCustom, ps, 1, texts)
	for _, r := range reqs {
		if r.PromptTokens != 3 || r.ThinkTokens != 0 || r.AnswerTokens != 7 || r.Mode != "" || r.PrefixID != "" || r.PrefixTokens != 0 ||
			r.Category != DatasetCustom || texts[r.ID] != "hello there" {
			t.Errorf("request %+v, text %q", r, texts[r.ID])
		}
	}
	if reqs[0].ArrivalS != 1 || reqs[1].ArrivalS != 2 {
		t.Errorf("arrivals moved: %+v", reqs)
	}
}

// TestSampleDatasetCycles: n prompts drawn in a seeded order, every prompt
// once before any twice.
func TestSampleDatasetCycles(t *testing.T) {
	ps := []DatasetPrompt{{Text: "a"}, {Text: "b"}, {Text: "c"}}
	got := SampleDataset(ps, 7, 1)
	seen := map[string]int{}
	for i, p := range got {
		seen[p.Text]++
		if i == 2 && len(seen) != 3 {
			t.Fatalf("a prompt repeated before every one was used: %v", got)
		}
	}
	if len(got) != 7 || seen["a"]+seen["b"]+seen["c"] != 7 {
		t.Fatalf("%v", got)
	}
	if again := SampleDataset(ps, 7, 1); again[0] != got[0] || again[5] != got[5] {
		t.Fatal("not reproducible from the seed")
	}
}

func FuzzReadDataset(f *testing.F) {
	f.Add(true, []byte(`[{"conversations":[{"from":"human","value":"hello there friend"},{"from":"gpt","value":"hi, how can I help you today"}]}]`))
	f.Add(false, []byte("{\"prompt\": \"a question\", \"output_tokens\": 10}\n"))
	f.Add(true, []byte("[{]"))
	f.Fuzz(func(t *testing.T, sharegpt bool, data []byte) {
		name := DatasetCustom
		if sharegpt {
			name = DatasetShareGPT
		}
		p := filepath.Join(t.TempDir(), "d")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ps, err := ReadDataset(name, p, DatasetOptions{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, q := range ps {
			if !keep(q) || q.PromptTokens != EstimateTokens(q.Text) {
				t.Fatalf("kept %+v", q)
			}
		}
	})
}
