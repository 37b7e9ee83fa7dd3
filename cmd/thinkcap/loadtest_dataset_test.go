package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/workload"
)

// TestLoadtestDatasets: --dataset-name sharegpt|custom sends the dataset's
// prompts as given with its output lengths as max tokens, on the traffic's
// schedule; bad datasets and contradicting flags are refused.
func TestLoadtestDatasets(t *testing.T) {
	backend, _ := vllmtest.Slow(t, time.Millisecond)
	var mu sync.Mutex
	type sent struct {
		prompt string
		max    int
	}
	var bodies []sent
	srv := vllmtest.Gateway(t, backend.URL, func(_ http.ResponseWriter, _ *http.Request, chat []byte) bool {
		if chat != nil {
			var body struct {
				Messages []struct{ Content string }
				Max      int `json:"max_completion_tokens"`
			}
			_ = json.Unmarshal(chat, &body)
			mu.Lock()
			bodies = append(bodies, sent{body.Messages[0].Content, body.Max})
			mu.Unlock()
		}
		return true
	})

	for _, c := range []struct{ name, path, lenFlag string }{
		{"sharegpt", "../../testdata/sharegpt-sample.json", "--sharegpt-output-len"},
		{"custom", "../../testdata/custom-prompts.jsonl", ""},
	} {
		mu.Lock()
		bodies = nil
		mu.Unlock()
		args := []string{"loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "12", "--rate", "100",
			"--dataset-name", c.name, "--dataset-path", c.path, "--out", filepath.Join(t.TempDir(), "run")}
		if c.lenFlag != "" {
			args = append(args, c.lenFlag, "16")
		}
		if _, errOut, code := thinkcap(t, args...); code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		ps, err := workload.ReadDataset(c.name, c.path, workload.DatasetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		byText := map[string]int{}
		for _, p := range ps {
			byText[p.Text] = p.OutputTokens
		}
		mu.Lock()
		if len(bodies) != 12 {
			t.Fatalf("%s: %d requests", c.name, len(bodies))
		}
		for _, b := range bodies {
			out, ok := byText[b.prompt]
			if !ok {
				t.Errorf("%s: a prompt not in the dataset: %.60q", c.name, b.prompt)
			}
			if want := map[bool]int{true: 16, false: out}[c.lenFlag != ""]; b.max != want {
				t.Errorf("%s: max tokens %d, want %d", c.name, b.max, want)
			}
		}
		mu.Unlock()
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset-name", "sharegpt"}, "--dataset-path"},
		{[]string{"--dataset-path", "x.json"}, "--dataset-name too"},
		{[]string{"--dataset-name", "hf", "--dataset-path", "x"}, "want one of sharegpt, custom"},
		{[]string{"--dataset-name", "custom", "--dataset-path", "../../testdata/custom-prompts.jsonl", "--prompt-tokens", "100"}, "the dataset gives the prompts"},
		{[]string{"--dataset-name", "custom", "--dataset-path", "../../testdata/sharegpt-sample.json"}, "sharegpt-sample.json:1: custom dataset"},
	} {
		args := append([]string{"loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "2", "--out", filepath.Join(t.TempDir(), "x")}, c.args...)
		if _, errOut, code := thinkcap(t, args...); code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, exitBadInput, c.want, errOut)
		}
	}
}
