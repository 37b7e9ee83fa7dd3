package analysis

import (
	"math"
	"testing"
)

// FuzzParseThresholds: any --threshold text parses or errors, never
// panics, and what parses is a known metric with a finite bound that
// checks against an empty summary without panicking.
func FuzzParseThresholds(f *testing.F) {
	for _, s := range []string{"ttft_p99<2s", "tpot_p50<=50ms,failure_rate<1%", "throughput_requests>3", "<", "a<<b", "kv_usage_peak>=1e309%", ",,", "e2e_p90<1h2m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseThresholds([]string{s})
		if err != nil {
			return
		}
		for _, th := range ts {
			if _, ok := ThresholdUnit(th.Metric); !ok || math.IsNaN(th.Value) || math.IsInf(th.Value, 0) || th.Value < 0 {
				t.Fatalf("%q parsed to %+v", s, th)
			}
		}
		_ = CheckThresholds(&Summary{}, ts)
	})
}
