package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadtestHeaderAndBodyFlags: an unset variable in --header or a bad
// --extra-body is refused before anything is sent; what the headers and
// the body do is loadtest's TestHeadersAndExtraBody.
func TestLoadtestHeaderAndBodyFlags(t *testing.T) {
	for _, c := range []struct{ flag, value, want string }{
		{"--header", "X-Gw-Token=env:NOT_SET_ANYWHERE_42", "is not set"},
		{"--extra-body", `{"stream": false}`, "load test's own"},
		{"--extra-body", `[1]`, "want a JSON object"},
	} {
		_, errOut, code := thinkcap(t, "loadtest", "--url", "http://127.0.0.1:1", "--model", "slow-model", "--requests", "1", "--out", filepath.Join(t.TempDir(), "r"), c.flag, c.value)
		if code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %s: exit %d, want %d with %q: %s", c.flag, c.value, code, exitBadInput, c.want, errOut)
		}
	}
}
