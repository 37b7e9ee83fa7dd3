package main

import (
	"path/filepath"
	"testing"

	"github.com/thinkcap/thinkcap/internal/golden"
)

// The sample production log, its drifted twin and the eval (testdata/,
// made by go run ./testdata/gen) through every analysis command: golden
// outputs.
func TestSampleDataGolden(t *testing.T) {
	root := filepath.Join("..", "..", "testdata")
	cases := []struct {
		golden string
		code   int
		args   []string
	}{
		{"sample-stats.json", 0, []string{"stats", filepath.Join(root, "production.jsonl"), "-o", "json"}},
		{"sample-drift.txt", 1, []string{"drift", filepath.Join(root, "production.jsonl"), filepath.Join(root, "production-drifted.jsonl")}},
		{"sample-curve.json", 0, []string{"curve", filepath.Join(root, "eval.jsonl"), "-o", "json"}},
		{"sample-simulate.json", 0, []string{"simulate", "--workload", filepath.Join(root, "production.jsonl"), "--speedup", "8", "-o", "json"}},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := thinkcap(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errOut)
			}
			golden.Check(t, c.golden, []byte(out))
		})
	}
}
