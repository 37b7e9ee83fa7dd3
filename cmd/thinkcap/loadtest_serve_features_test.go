package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadtestFeaturesAgainstServe runs one load test against the emulator
// (thinkcap serve, on loopback) with what users of vllm bench serve,
// GuideLLM and AIPerf expect: real prompts from a dataset, extra headers
// and body, a ramp, goodput, percentiles, vLLM's result file and the HTML
// report; each shows in what the run wrote.
func TestLoadtestFeaturesAgainstServe(t *testing.T) {
	if testing.Short() {
		t.Skip("drives an emulated server for a few seconds")
	}
	dir, _, url := truthServer(t, 16000, 20)
	t.Setenv("TENANT_FOR_TEST", "blue")
	run, result, report := filepath.Join(dir, "run"), filepath.Join(dir, "result.json"), filepath.Join(dir, "report.html")
	_, errOut, code := thinkcap(t, "loadtest", "--url", url, "--model", "Qwen/Qwen3-8B",
		"--dataset-name", "sharegpt", "--dataset-path", "../../testdata/sharegpt-sample.json", "--requests", "60", "--rate", "40",
		"--header", "X-Tenant=env:TENANT_FOR_TEST", "--extra-body", `{"top_p": 0.9}`, "--ramp-up", "linear:300ms",
		"--goodput", "ttft=5s,tpot=1s", "--percentiles", "50,95", "--save-result", result, "--metadata", "run=ci",
		"--report", report, "--scrape-interval", "50ms", "--out", run)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(run, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Requests struct{ Total, Completed int }
		Goodput  *struct{ Good, Requests int }
		LatencyS map[string]struct {
			Dist *struct{ Percentiles []struct{ P float64 } } `json:"distribution"`
		} `json:"latency_s"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	// The ramp's requests are left out; goodput counts every measured one
	// (the bounds are loose); TTFT has the 50th and 95th percentiles.
	if s.Requests.Total >= 60 || s.Requests.Total < 40 || s.Requests.Completed != s.Requests.Total {
		t.Errorf("%d measured of 60 (%d completed): the ramp's should be left out", s.Requests.Total, s.Requests.Completed)
	}
	if s.Goodput == nil || s.Goodput.Good != s.Requests.Total {
		t.Errorf("goodput %+v of %d requests", s.Goodput, s.Requests.Total)
	}
	if d := s.LatencyS["ttft"].Dist; d == nil || len(d.Percentiles) != 2 || d.Percentiles[1].P != 95 {
		t.Errorf("TTFT distribution %+v", d)
	}
	var res map[string]any
	rb, _ := os.ReadFile(result)
	if err := json.Unmarshal(rb, &res); err != nil || res["run"] != "ci" || res["p95_ttft_ms"] == nil || res["request_goodput"] == nil {
		t.Errorf("result file: %v; %s", err, rb)
	}
	html, _ := os.ReadFile(report)
	if !strings.Contains(string(html), "KV cache usage") {
		t.Error("the report lacks the server's plots")
	}
	// The dataset's prompts reached the server: its prompt_tokens are the
	// text's, not the synthetic ~1,000 of the default traffic.
	rs, _ := os.ReadFile(filepath.Join(run, "results.jsonl"))
	if !strings.Contains(string(rs), `"prompt_tokens"`) || strings.Contains(string(rs), "blue") {
		t.Error("results: no prompt tokens, or a header value written")
	}
}
