package analysis

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCompareInterval: a measured value outside the tolerance but inside
// the prediction's interval passes on that ground, said so in the JSON
// (report.TestWriteComparisonInterval: and the table); outside both it
// fails; without intervals nothing changes.
func TestCompareInterval(t *testing.T) {
	pred := Summary{LatencyS: Latencies{TPOT: Stat{Mean: 0.020, P50: 0.020, P90: 0.024, P99: 0.030}}}
	pred.Intervals = &Intervals{Confidence: 0.9, IntervalSet: IntervalSet{LatencyS: map[string]StatInterval{
		"tpot": {Mean: Range{0.016, 0.028}, P50: Range{0.016, 0.028}, P90: Range{0.019, 0.034}, P99: Range{0.024, 0.042}},
	}}}
	meas := Summary{LatencyS: Latencies{TPOT: Stat{Mean: 0.026, P50: 0.026, P90: 0.036, P99: 0.031}}}
	tol := map[string]float64{"tpot_mean": 0.10, "tpot_p90": 0.10, "tpot_p99": 0.10}
	c := Compare(&pred, &meas, tol)
	got := map[string]MetricComparison{}
	for _, m := range c.Metrics {
		got[m.Name] = m
	}
	// mean: 23% off, inside [16, 28] ms: passes by the interval.
	if m := got["tpot_mean"]; m.Pass == nil || !*m.Pass || m.PassedBy != "interval" || m.InInterval == nil || !*m.InInterval {
		t.Errorf("tpot_mean: pass %v by %q in %v; want a pass by the interval", m.Pass, m.PassedBy, m.InInterval)
	}
	// p90: 33% off and above the interval's 34 ms: fails.
	if m := got["tpot_p90"]; m.Pass == nil || *m.Pass || m.InInterval == nil || *m.InInterval {
		t.Errorf("tpot_p90: pass %v, in interval %v; want a failure outside it", m.Pass, m.InInterval)
	}
	// p99: within the tolerance: passes on its own ground.
	if m := got["tpot_p99"]; m.Pass == nil || !*m.Pass || m.PassedBy != "" {
		t.Errorf("tpot_p99: pass %v by %q; want a pass by the tolerance", m.Pass, m.PassedBy)
	}
	if c.Pass || len(c.Failed) != 1 || c.Failed[0] != "tpot_p90" {
		t.Errorf("verdict %s, failed %v; want tpot_p90 alone to fail", c.Verdict, c.Failed)
	}
	data, err := json.Marshal(got["tpot_mean"])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"interval":[0.016,0.028],"in_interval":true,"passed_by":"interval"`) {
		t.Errorf("JSON %s lacks the interval", data)
	}
	var back MetricComparison
	if err := json.Unmarshal(data, &back); err != nil || back.Interval == nil || back.PassedBy != "interval" {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	pred.Intervals = nil
	if c := Compare(&pred, &meas, tol); c.Pass || len(c.Failed) != 2 {
		t.Errorf("without intervals: failed %v; want tpot_mean and tpot_p90", c.Failed)
	}
}
