package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadtestCheckFlags: the checks' and records' flags that do not parse
// are refused before anything is sent, each message naming its flag, every
// problem at once; what the checks do is loadtest's TestThresholds,
// TestGoodput and TestSaveResultReadsLikeVLLMBench.
func TestLoadtestCheckFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--threshold", "ttft_p99<2"}, []string{"--threshold: ", "a latency needs a unit"}},
		{[]string{"--goodput", "tpot=50"}, []string{"--goodput: "}},
		{[]string{"--goodput", "itl=5ms"}, []string{"unknown metric"}},
		{[]string{"--threshold", "goodput_requests>1"}, []string{"--threshold goodput_requests>1: goodput is counted against --goodput's SLOs; give them"}},
		{[]string{"--metadata", "novalue"}, []string{`--metadata "novalue": want KEY=VALUE`}},
		{[]string{"--percentiles", "0"}, []string{"--percentiles: 0 is not a percentile"}},
		{[]string{"--save-text", "2", "--endpoint", "x", "--max-in-flight", "-1"},
			[]string{"--save-text must be a fraction", `--endpoint "x"`, "--max-in-flight must be at least 0"}},
		{[]string{"--warmup", "soon", "--start-at", "noon"}, []string{"--warmup: ", `--start-at "noon": want an RFC 3339 time`}},
	} {
		args := append([]string{"loadtest", "--url", "http://127.0.0.1:1", "--model", "m", "--requests", "1", "--out", filepath.Join(t.TempDir(), "x")}, c.args...)
		_, errOut, code := thinkcap(t, args...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, exitBadInput, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q: %s", c.args, w, errOut)
			}
		}
	}
}
