package samplelog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// Files are the committed sample files and how they are made.
var Files = map[string]func() []byte{
	"production.jsonl":         func() []byte { return Log(Seed, 6000, 1) },
	"production-drifted.jsonl": func() []byte { return Log(Seed+1, 6000, 1.6) },
	"eval.jsonl":               func() []byte { return Eval(Seed, 120) },
	"sharegpt-sample.json":     func() []byte { return ShareGPT(Seed, 60) },
	"custom-prompts.jsonl":     func() []byte { return Custom(Seed, 40) },
}

// TestCommittedSamplesAreGenerated: the files in testdata/ are exactly what
// `go run ./testdata/gen` makes.
func TestCommittedSamplesAreGenerated(t *testing.T) {
	for name, gen := range Files {
		got, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			t.Fatalf("%v (run go run ./testdata/gen)", err)
		}
		if !bytes.Equal(got, gen()) {
			t.Errorf("testdata/%s is not what the generator makes (run go run ./testdata/gen)", name)
		}
	}
}

// TestSampleLogIsValid: the log reads back and has what its tests need: a
// cap spike with unclosed thinking, several classes, shared prefixes.
func TestSampleLogIsValid(t *testing.T) {
	reqs, err := workload.Read(bytes.NewReader(Log(Seed, 6000, 1)), "production.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]bool{}
	unclosed, prefixed := 0, 0
	for _, r := range reqs {
		classes[r.Mode+"/"+r.Category] = true
		if r.FinishReason == "length" && r.AnswerTokens == 0 {
			unclosed++
		}
		if r.PrefixID != "" {
			prefixed++
		}
	}
	if len(reqs) != 6000 || len(classes) != 5 || unclosed < 20 || prefixed < 1000 {
		t.Fatalf("%d requests, %d classes, %d unclosed, %d with a prefix", len(reqs), len(classes), unclosed, prefixed)
	}
	if last := reqs[len(reqs)-1].ArrivalS; last < 80000 || last > 86400 {
		t.Fatalf("log spans %g s, want about a day", last)
	}
}
