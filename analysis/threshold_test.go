package analysis

import (
	"math"
	"strings"
	"testing"
)

func TestParseThresholds(t *testing.T) {
	for _, c := range []struct {
		specs []string
		want  []Threshold
		err   string
	}{
		{specs: []string{"ttft_p99<2s"}, want: []Threshold{{Metric: "ttft_p99", Op: "<", Value: 2, Text: "ttft_p99<2s"}}},
		{specs: []string{"tpot_p50<=50ms, failure_rate<1%"}, want: []Threshold{
			{Metric: "tpot_p50", Op: "<=", Value: 0.05, Text: "tpot_p50<=50ms"},
			{Metric: "failure_rate", Op: "<", Value: 0.01, Text: "failure_rate<1%"}}},
		{specs: []string{"throughput_requests>3", "kv_usage_peak >= 0.5"}, want: []Threshold{
			{Metric: "throughput_requests", Op: ">", Value: 3, Text: "throughput_requests>3"},
			{Metric: "kv_usage_peak", Op: ">=", Value: 0.5, Text: "kv_usage_peak>=0.5"}}},
		{specs: []string{"ttft_p99 2s"}, err: "want METRIC<VALUE"},
		{specs: []string{"ttft_p999<2s"}, err: `unknown metric "ttft_p999"`},
		{specs: []string{"ttft_p99<2"}, err: "a latency needs a unit"},
		{specs: []string{"ttft_p99<5%"}, err: "a percentage fits only"},
		{specs: []string{"failure_rate<-1"}, err: "at least 0"},
		{specs: []string{"failure_rate<NaN"}, err: "finite"},
		{specs: []string{"throughput_requests>"}, err: "no value"},
	} {
		got, err := ParseThresholds(c.specs)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.specs, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.specs, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: got %+v", c.specs, got)
			continue
		}
		for i := range got {
			g, w := got[i], c.want[i]
			if g.Metric != w.Metric || g.Op != w.Op || math.Abs(g.Value-w.Value) > 1e-12 || g.Text != w.Text {
				t.Errorf("%q: got %+v, want %+v", c.specs, g, w)
			}
		}
	}
}

func TestCheckThresholds(t *testing.T) {
	s := &Summary{Requests: RequestCounts{Total: 100, Completed: 98, Failed: 2}}
	s.LatencyS.TTFT = Stat{P99: 1.5}
	s.LatencyS.TTFA = Stat{NoData: true}
	ts, err := ParseThresholds([]string{"ttft_p99<2s,ttft_p99<1s,failure_rate<=2%,failure_rate<1%,ttfa_p50<10s"})
	if err != nil {
		t.Fatal(err)
	}
	rs := CheckThresholds(s, ts)
	want := []bool{true, false, true, false, false} // no TTFA data: not met
	for i, r := range rs {
		if r.Pass != want[i] {
			t.Errorf("%s: pass %v (actual %g), want %v", r.Text, r.Pass, r.Actual, want[i])
		}
	}
	if n := ThresholdsFailed(rs); n != 3 {
		t.Errorf("%d failed, want 3", n)
	}
}

func TestMaxFailureRate(t *testing.T) {
	th, err := MaxFailureRate(0.01)
	if err != nil || th.Metric != MetricFailureRate || th.Op != "<=" || th.Value != 0.01 {
		t.Fatalf("%+v, %v", th, err)
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := MaxFailureRate(bad); err == nil {
			t.Errorf("%g accepted", bad)
		}
	}
}
