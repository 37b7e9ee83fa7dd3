package analysis

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// A summary with no successful request and no scrape says so with nulls
// (docs/formats.md), and reads back as the same "no data".
func TestSummaryWithoutDataIsNull(t *testing.T) {
	s := Summarize("loadtest", []workload.Result{{Request: workload.Request{ID: "a"}, Status: workload.StatusHTTPError}}, 10)
	s.KVUsage, s.Running, s.Waiting = KVUsage{NoData: true}, Occupancy{NoData: true}, Occupancy{NoData: true}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		`"ttft":{"mean":null,"p50":null,"p90":null,"p99":null}`,
		`"think":{"mean":null,"p50":null,"p90":null,"p99":null}`,
		`"kv_usage":{"mean":null,"peak":null}`,
		`"running":{"mean":null,"peak":null}`,
		`"preemptions":null`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary JSON lacks %s:\n%s", want, text)
		}
	}
	var back Summary
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !back.LatencyS.TTFT.NoData || !back.KVUsage.NoData || !back.Running.NoData || back.Preemptions != nil {
		t.Errorf("read back as data: %+v", back)
	}
}

// Measured zeros stay zeros: only NoData turns into null.
func TestSummaryZeroIsNotNull(t *testing.T) {
	s := Summary{Preemptions: Int64(0), LatencyS: Latencies{Queue: Stat{}}}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"preemptions":0`, `"queue":{"mean":0,"p50":0,"p90":0,"p99":0}`, `"kv_usage":{"mean":0,"peak":0}`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("summary JSON lacks %s:\n%s", want, data)
		}
	}
	var back Summary
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.LatencyS.Queue.NoData || back.KVUsage.NoData || back.Preemptions == nil || *back.Preemptions != 0 {
		t.Errorf("zeros read back as no data: %+v", back)
	}
}
