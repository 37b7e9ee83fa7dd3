package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
)

// TestWriteThresholds: each threshold as written, its measured value in
// its metric's unit, and a failure for no data.
func TestWriteThresholds(t *testing.T) {
	s := &analysis.Summary{Requests: analysis.RequestCounts{Total: 100, Completed: 98, Failed: 2}}
	s.LatencyS.TTFT = analysis.Stat{P99: 1.5}
	s.LatencyS.TTFA = analysis.Stat{NoData: true}
	ts, err := analysis.ParseThresholds([]string{"ttft_p99<2s,ttft_p99<1s,failure_rate<=2%,failure_rate<1%,ttfa_p50<10s"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteThresholds(&b, analysis.CheckThresholds(s, ts)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"ttft_p99<2s", "1,500.0 ms", "2.00%", "fail (no data)"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, b.String())
		}
	}
}
