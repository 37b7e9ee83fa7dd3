package workload

import (
	"os"
	"strings"
	"testing"
)

// TestReadMooncake: the real trace's excerpt reads with arrivals in
// seconds, the output as answer tokens, and every request's shared first
// block (hash 0, 512 tokens) as one prefix group; a trace of requests that
// share longer runs shares those.
func TestReadMooncake(t *testing.T) {
	f, err := os.Open("testdata/mooncake/conversation_trace-head.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reqs, st, err := ReadWithOptions(f, "head.jsonl", ReadOptions{Format: FormatMooncake})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 12 || st.Format != FormatMooncake || reqs[11].ArrivalS != 5.999 {
		t.Fatalf("%d requests, format %s, last at %g s", len(reqs), st.Format, reqs[len(reqs)-1].ArrivalS)
	}
	for _, r := range reqs {
		if r.PrefixID != reqs[0].PrefixID || r.PrefixTokens != 512 || r.ThinkTokens != 0 {
			t.Errorf("%s: prefix %s/%d, think %d: want the shared first block", r.ID, r.PrefixID, r.PrefixTokens, r.ThinkTokens)
		}
	}
	if reqs[0].PromptTokens != 6758 || reqs[0].AnswerTokens != 500 {
		t.Errorf("first request %+v", reqs[0])
	}

	trace := `{"timestamp": 0, "input_length": 1100, "output_length": 5, "hash_ids": [1, 2, 3]}
{"timestamp": 10, "input_length": 1200, "output_length": 5, "hash_ids": [1, 2, 4]}
{"timestamp": 20, "input_length": 300, "output_length": 5, "hash_ids": [7]}
{"timestamp": 30, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}
`
	reqs, _, err = ReadWithOptions(strings.NewReader(trace), "t.jsonl", ReadOptions{Format: FormatMooncake})
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].PrefixTokens != 1024 || reqs[1].PrefixID != reqs[0].PrefixID || reqs[2].PrefixID != "" || reqs[3].PrefixTokens != 599 {
		t.Errorf("prefixes %+v", reqs)
	}
	for _, bad := range []string{`{"input_length": 5, "output_length": 1}`, `{"timestamp": 0, "input_length": 0, "output_length": 1}`, `{"timestamp": -1, "input_length": 5, "output_length": 1}`, `not json`} {
		if _, _, err := ReadWithOptions(strings.NewReader(bad+"\n"), "bad.jsonl", ReadOptions{Format: FormatMooncake}); err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// FuzzReadMooncake: any input is read or refused with its line, never a panic.
func FuzzReadMooncake(f *testing.F) {
	f.Add(`{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]}`)
	f.Add(`{"timestamp": 1e300, "input_length": 10, "output_length": 1}`)
	f.Fuzz(func(t *testing.T, s string) {
		reqs, _, err := ReadWithOptions(strings.NewReader(s), "f.jsonl", ReadOptions{Format: FormatMooncake})
		if err == nil {
			for _, r := range reqs {
				if r.PromptTokens < 1 || r.PrefixTokens >= r.PromptTokens && r.PrefixTokens > 0 {
					t.Fatalf("%+v", r)
				}
			}
		}
	})
}
