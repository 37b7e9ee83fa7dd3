package report

import (
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
)

// TestWriteSLOs: each SLO as written, its value in ms and its verdict,
// no data said as such; the interval column only where there are
// intervals.
func TestWriteSLOs(t *testing.T) {
	s := &analysis.Summary{}
	s.LatencyS.TTFT = analysis.Stat{P99: 1.5}
	s.LatencyS.TPOT = analysis.Stat{P50: 0.05}
	s.LatencyS.TTFA = analysis.Stat{NoData: true}
	slos, err := analysis.ParseSLOs("ttft_p99=2s,tpot_p50=40ms,ttfa_p99=1s")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteSLOs(&b, analysis.CheckSLOs(s, slos)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"ttft_p99=2s", "1,500.0 ms", "met", "tpot_p50=40ms", "50.0 ms", "missed", "missed (no data)"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "interval") {
		t.Errorf("an interval column without intervals:\n%s", b.String())
	}

	s.Intervals = &analysis.Intervals{IntervalSet: analysis.IntervalSet{LatencyS: map[string]analysis.StatInterval{
		"ttft": {P99: analysis.Range{1.2, 1.9}}}}}
	b.Reset()
	if err := WriteSLOs(&b, analysis.CheckSLOs(s, slos[:1])); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "interval") || !strings.Contains(b.String(), "1,200.0 – 1,900.0 ms") {
		t.Errorf("the interval is missing:\n%s", b.String())
	}
}
