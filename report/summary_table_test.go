package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/analysis/analysistest"
	"github.com/thinkcap/thinkcap/workload"
)

// TestWriteTableDistributions: with percentiles the latency table shows
// mean, std, min, the percentiles and max; without, it is as before.
func TestWriteTableDistributions(t *testing.T) {
	results := []workload.Result{
		{Status: workload.StatusOK, Request: workload.Request{PromptTokens: 100, ThinkTokens: 200, AnswerTokens: 100},
			TTFTS: 0.1, TTFAS: 2.1, TPOTS: 0.01, E2ES: 3.1, QueueS: 0.01},
		{Status: workload.StatusOK, Request: workload.Request{PromptTokens: 200, AnswerTokens: 50},
			TTFTS: 0.2, TTFAS: 0.2, TPOTS: 0.02, E2ES: 1.2, QueueS: 0.02},
	}
	s := analysis.Summarize("loadtest", results, 10)
	var plain bytes.Buffer
	if err := WriteTable(&plain, &s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "std") {
		t.Fatal("a distribution without percentiles asked")
	}
	s.LatencyS.AddDistributions(analysis.SampleLatencies(results), []float64{95, 99.9})
	var out bytes.Buffer
	if err := WriteTable(&out, &s); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"std", "min", "p95", "p99.9", "max"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, out.String())
		}
	}
}

// TestWriteTableErrors: the failures table names statuses, HTTP codes and
// the most common messages, and the scrape line says how /metrics went.
func TestWriteTableErrors(t *testing.T) {
	rs := analysistest.Failures()
	s := analysis.Summary{Requests: analysis.RequestCounts{Total: len(rs), Completed: 3, Failed: len(rs) - 3}, Errors: analysis.Errors(rs),
		Scrape: &analysis.ScrapeCounts{Scrapes: 10, Failures: 2, LastError: "scrape: http 500"}}
	var out bytes.Buffer
	if err := WriteTable(&out, &s); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"failures", "http_error", "HTTP 404", "does not exist", "scrapes of /metrics: 10, failed 2"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("table lacks %q", w)
		}
	}
}

// TestWriteTableNoData: a summary read back with no data prints none as a
// measured zero.
func TestWriteTableNoData(t *testing.T) {
	s := analysis.Summarize("loadtest", []workload.Result{{Request: workload.Request{ID: "a"}, Status: workload.StatusHTTPError}}, 10)
	s.KVUsage, s.Running, s.Waiting = analysis.KVUsage{NoData: true}, analysis.Occupancy{NoData: true}, analysis.Occupancy{NoData: true}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back analysis.Summary
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	if err := WriteTable(&table, &back); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "0.0%") {
		t.Errorf("a KV usage never scraped prints as 0%%:\n%s", table.String())
	}
}
