package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestLoadtestHelpGroups: loadtest --help prints its flags under headings,
// each short enough for one screen, every flag under the heading it
// belongs to (a new flag the groups do not name would land under the
// prediction's, which only holds --predict's flags).
func TestLoadtestHelpGroups(t *testing.T) {
	out, errOut, code := thinkcap(t, "loadtest", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sections := regexp.MustCompile(`(?m)^([A-Z][^\n]*):\n((?:  [^\n]*\n)+)`).FindAllStringSubmatch(out, -1)
	var titles []string
	for _, s := range sections {
		titles = append(titles, s[1])
		lines := strings.Count(s[2], "\n")
		if lines > 40 {
			t.Errorf("%s: %d lines, more than a screen", s[1], lines)
		}
		if !strings.HasPrefix(s[1], "Prediction") {
			continue
		}
		for _, l := range strings.Split(strings.TrimSuffix(s[2], "\n"), "\n") {
			if !strings.Contains(l, "--predict") {
				t.Errorf("a flag under the prediction's heading is not --predict's: %s", l)
			}
		}
	}
	want := []string{"Usage", "Examples", "Target and connection", "Traffic", "Sessions", "What-if transforms",
		"Dataset (vllm bench serve's prompts)", "Pacing", "Measurement", "Output and report", "Checks (exit 1 when one fails)",
		"Sweep (also: a list of --rate or --concurrency)", "Sharding", "Kubernetes Job",
		"Prediction (--predict: the simulated deployment)", "Other flags"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Errorf("headings\n%q\nwant\n%q", titles, want)
	}
	for _, flag := range []string{"--url string", "--sweep int", "--k8s-job string", "--shard string", "--threshold stringArray", "--save-result string", "-h, --help"} {
		if !strings.Contains(out, flag) {
			t.Errorf("--help does not list %s", flag)
		}
	}
}
