package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadtestRampFlags: a --ramp-up that is not linear or exponential and
// --max-rate with --concurrency are refused; what a ramp does is
// loadtest's TestRampUp.
func TestLoadtestRampFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ramp-up", "step:1s"}, "linear or exponential"},
		{[]string{"--max-rate", "5", "--concurrency", "2"}, "without --concurrency"},
	} {
		args := append([]string{"loadtest", "--url", "http://127.0.0.1:1", "--model", "slow-model", "--requests", "2", "--out", filepath.Join(t.TempDir(), "x")}, c.args...)
		if _, errOut, code := thinkcap(t, args...); code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, exitBadInput, c.want, errOut)
		}
	}
}
