package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadtestBadInput: bad flags exit 2 and leave no run directory; what
// a load test refuses is loadtest's TestRunRefusesBadInput.
func TestLoadtestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"loadtest", "--model", "m"},
		{"loadtest", "--url", "http://127.0.0.1:1", "--model", "m", "--endpoint", "embeddings"},
		{"loadtest", "--url", "http://127.0.0.1:1", "--model", "m", "--warmup", "soon"},
	} {
		dir := filepath.Join(t.TempDir(), "refused")
		_, errOut, code := thinkcap(t, append(args, "--out", dir)...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: refused run left %s behind (%v)", args, dir, err)
		}
	}
}
