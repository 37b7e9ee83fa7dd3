package loadtest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen"
)

// TestSummaryUnmeasuredIsNull: what the server never told (or a rate over
// nothing: no prefix queried, no draft made) is null in summary.json, not
// 0.
func TestSummaryUnmeasuredIsNull(t *testing.T) {
	now := time.Now()
	out := loadgen.Outcome{Start: now, End: now.Add(time.Second)}
	for _, c := range []struct {
		name  string
		tel   loadgen.Telemetry
		nulls []string
	}{
		{"never scraped", loadgen.Telemetry{}, []string{`"kv_usage":{"mean":null,"peak":null}`, `"queue":{"mean":null`, `"preemptions":null`}},
		{"nothing to rate", loadgen.Telemetry{
			PrefixCache: &loadgen.PrefixCacheStats{},
			SpecDecode:  &loadgen.SpecDecodeStats{},
		}, []string{`"queue":{"mean":null`}},
	} {
		s := summarize("m", &out, &c.tel, &loadgen.GapHistogram{}, 0)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.nulls {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: summary lacks %s:\n%s", c.name, want, b)
			}
		}
		if s.PrefixCacheHitRate != nil || s.SpecDecode != nil {
			t.Errorf("%s: prefix hit rate %v, spec decode %+v: want unknown", c.name, s.PrefixCacheHitRate, s.SpecDecode)
		}
	}
}
