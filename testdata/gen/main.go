// Command gen writes thinkcap's sample data files into testdata/ from a
// fixed seed: go run ./testdata/gen
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/thinkcap/thinkcap/internal/samplelog"
)

func main() {
	files := map[string][]byte{
		"production.jsonl":         samplelog.Log(samplelog.Seed, 6000, 1),
		"production-drifted.jsonl": samplelog.Log(samplelog.Seed+1, 6000, 1.6),
		"eval.jsonl":               samplelog.Eval(samplelog.Seed, 120),
		"sharegpt-sample.json":     samplelog.ShareGPT(samplelog.Seed, 60),
		"custom-prompts.jsonl":     samplelog.Custom(samplelog.Seed, 40),
	}
	for name, data := range files {
		path := filepath.Join("testdata", name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("wrote", path)
	}
}
