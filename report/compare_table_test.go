package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
)

// TestMetricValuesInTheirUnits: latencies (given in seconds) print in
// milliseconds, KV usage in percent, counts and rates compactly.
func TestMetricValuesInTheirUnits(t *testing.T) {
	unit := map[string]string{}
	for _, m := range analysis.Metrics() {
		unit[m.Name] = m.Unit
	}
	for _, c := range []struct {
		name string
		v    float64
		want string
	}{
		{"ttft_p50", 0.0123, "12.3"},     // seconds → ms
		{"e2e_p99", 12.3456, "12,345.6"}, // thousands grouped
		{"kv_usage_peak", 0.4567, "45.7%"},
		{"running_peak", 12, "12.0"},
		{"throughput_requests", 3.456, "3.46"},
		{"ttfa_mean", 0, "0"},
	} {
		if got := formatValue(unit[c.name], c.v); got != c.want {
			t.Errorf("%s %v prints %q, want %q", c.name, c.v, got, c.want)
		}
	}
}

// comparisonFixture is a prediction with one failing metric (TTFT p99),
// no answers on either side (TTFA zero and unchecked) and a measured
// value of 0 (preemptions: no error).
func comparisonFixture() analysis.Comparison {
	var p, m analysis.Summary
	p.Throughput.RequestsPerS, m.Throughput.RequestsPerS = 2, 2.02
	p.LatencyS.TTFT = analysis.Stat{Mean: 0.1, P50: 0.08, P90: 0.2, P99: 0.3}
	m.LatencyS.TTFT = analysis.Stat{Mean: 0.12, P50: 0.09, P90: 0.22, P99: 1.2}
	p.LatencyS.TPOT = analysis.Stat{Mean: 0.02, P50: 0.02, P90: 0.025, P99: 0.03}
	m.LatencyS.TPOT = analysis.Stat{Mean: 0.021, P50: 0.02, P90: 0.026, P99: 0.031}
	p.KVUsage, m.KVUsage = analysis.KVUsage{Mean: 0.4, Peak: 0.9}, analysis.KVUsage{Mean: 0.42, Peak: 0.88}
	p.Preemptions, m.Preemptions = analysis.Int64(3), analysis.Int64(0)
	tol := map[string]float64{"throughput_requests": 0.05, "ttft_p99": 0.5, "tpot_mean": 0.1, "kv_usage_peak": 0.15, "ttfa_p50": 0.15}
	return analysis.Compare(&p, &m, tol)
}

func TestComparisonRowsMatchTable(t *testing.T) {
	c := comparisonFixture()
	rows := ComparisonRows(&c)
	var table bytes.Buffer
	if err := WriteComparison(&table, &c); err != nil {
		t.Fatal(err)
	}
	// The table's data lines: boxed cells, after the header.
	var dataLines []string
	for _, l := range strings.Split(table.String(), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "│") && !strings.HasPrefix(l, "│ metric ") {
			dataLines = append(dataLines, l)
		}
	}
	if len(rows) != len(dataLines) {
		t.Fatalf("%d rows, the table has %d:\n%s", len(rows), len(dataLines), table.String())
	}
	for i, r := range rows {
		for _, cell := range []string{r.Label, r.Predicted, r.Measured, r.Error, r.Tolerance, r.Bound, r.Result} {
			if !strings.Contains(dataLines[i], cell) {
				t.Errorf("row %s: cell %q not in the table's line %q", r.Name, cell, dataLines[i])
			}
		}
	}

	byName := map[string]ComparisonRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	if r := byName["ttft_p99"]; !r.Checked || r.Pass || r.Result != "FAIL" || r.Label != "TTFT p99 (ms)" || r.Predicted != "300.0" || r.Measured != "1,200.0" || r.Error != "-75.0%" ||
		r.Tolerance != "±50.0% + 20 ms" || r.Bound != "±620.0" {
		t.Errorf("ttft_p99 row = %+v", r)
	}
	if r := byName["tpot_mean"]; !r.Checked || !r.Pass || r.Result != "pass" || r.Tolerance != "±10.0% + 1 ms" || r.Bound != "±3.1" {
		t.Errorf("tpot_mean row = %+v", r)
	}
	if r := byName["kv_usage_peak"]; r.Tolerance != "±15.0% + 1.0 pt" || r.Bound != "±14.2%" {
		t.Errorf("kv_usage_peak row = %+v", r)
	}
	if r := byName["ttft_mean"]; r.Checked || r.Result != "" || r.Tolerance != "" || r.Bound != "" {
		t.Errorf("unchecked ttft_mean row = %+v", r)
	}
	if r := byName["preemptions"]; r.Error != "-" {
		t.Errorf("preemptions measured 0: error %q, want -", r.Error)
	}
	if _, ok := byName["ttfa_mean"]; ok {
		t.Error("ttfa_mean zero on both sides and unchecked, but listed")
	}
	// Checked metrics are listed even when zero on both sides: a check ran.
	if _, ok := byName["ttfa_p50"]; !ok {
		t.Error("checked ttfa_p50 left out")
	}
}

// TestWriteComparisonInterval: a measured value outside the tolerance but
// inside the prediction's interval shows the band and the ground it passed
// on.
func TestWriteComparisonInterval(t *testing.T) {
	pred := analysis.Summary{LatencyS: analysis.Latencies{TPOT: analysis.Stat{Mean: 0.020, P50: 0.020, P90: 0.024, P99: 0.030}}}
	pred.Intervals = &analysis.Intervals{Confidence: 0.9, IntervalSet: analysis.IntervalSet{LatencyS: map[string]analysis.StatInterval{
		"tpot": {Mean: analysis.Range{0.016, 0.028}, P50: analysis.Range{0.016, 0.028}, P90: analysis.Range{0.019, 0.034}, P99: analysis.Range{0.024, 0.042}},
	}}}
	meas := analysis.Summary{LatencyS: analysis.Latencies{TPOT: analysis.Stat{Mean: 0.026, P50: 0.026, P90: 0.036, P99: 0.031}}}
	c := analysis.Compare(&pred, &meas, map[string]float64{"tpot_mean": 0.10, "tpot_p90": 0.10, "tpot_p99": 0.10})
	var b strings.Builder
	if err := WriteComparison(&b, &c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "16.0 – 28.0") || !strings.Contains(b.String(), "pass (in interval)") {
		t.Errorf("table lacks the band or the ground:\n%s", b.String())
	}
}

// TestWriteComparisonNoData: a check with no data on a side prints "-"
// for the missing side and the bound, and "no data" as the result.
func TestWriteComparisonNoData(t *testing.T) {
	var p, m analysis.Summary
	p.LatencyS.TPOT = analysis.Stat{Mean: 0.02, P50: 0.019, P90: 0.03, P99: 0.05}
	m.LatencyS.TPOT = p.LatencyS.TPOT
	p.KVUsage = analysis.KVUsage{Mean: 0.5, Peak: 0.9}
	m.KVUsage = analysis.KVUsage{NoData: true} // never scraped
	c := analysis.Compare(&p, &m, map[string]float64{"tpot_mean": 0.1, "kv_usage_mean": 0.15, "kv_usage_peak": 0.15})
	var buf bytes.Buffer
	if err := WriteComparison(&buf, &c); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "KV usage mean") {
			found = true
			if !strings.Contains(l, "no data") || strings.Contains(l, "pass") || !strings.Contains(l, " - ") {
				t.Errorf("KV usage mean line %q: want -, no data", l)
			}
		}
	}
	if !found {
		t.Errorf("no KV usage mean line:\n%s", buf.String())
	}
}

// TestComparisonRowsBound: a 38% TPOT miss on a ±10% check shows the
// tolerance, the bound and the error in its row; at time scale 20 the row
// says the slack was stretched.
func TestComparisonRowsBound(t *testing.T) {
	var p, m analysis.Summary
	m.LatencyS.TPOT.Mean, p.LatencyS.TPOT.Mean = 0.020, 0.0276 // 38% high
	tol := map[string]float64{"tpot_mean": 0.1, "kv_usage_mean": 0.15, "running_peak": 0.2}
	c := analysis.Compare(&p, &m, tol)
	rows := ComparisonRows(&c)
	i := slices.IndexFunc(rows, func(r ComparisonRow) bool { return r.Name == "tpot_mean" })
	if r := rows[i]; r.Tolerance != "±10.0% + 1 ms" || r.Bound != "±3.0" || r.Result != "FAIL" || r.Error != "+38.0%" {
		t.Errorf("row %+v", r)
	}
	c = analysis.CompareScaled(&p, &m, tol, 20)
	rows = ComparisonRows(&c)
	if r := rows[i]; r.Tolerance != "±10.0% + 1 ms ×20" || r.Bound != "±22.0" {
		t.Errorf("scale 20: row %+v", r)
	}
}
