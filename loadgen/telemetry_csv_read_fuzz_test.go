package loadgen

import (
	"math"
	"strings"
	"testing"
)

// FuzzReadTimelineCSV: on any input ReadTimelineCSV never panics; what it
// returns is either an error naming a line and no rows, or rows that all
// have a finite time, a replica number in range, and other cells NaN or
// finite.
func FuzzReadTimelineCSV(f *testing.F) {
	var b strings.Builder
	if err := WriteTimelineCSV(&b, []Sample{
		sampleAt(0, telemetryState(0.1, 2, 0, 7, 100, 10)),
		sampleAt(1.25, Snapshot{Present: FieldKVUsage, KVUsage: 0.3}),
		sampleAt(3, telemetryState(0.2, 1, 0, 1, 50, 20)),
	}, telemetryT0); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		b.String(),
		"time_s,replica,kv_usage,running,waiting,preemptions\n0,0,0.000000,0,0,0\n0.5,1,0.432100,12,3,1\n",
		"time_s\n",
		"",
		"replica,waiting,time_s\n2,3\n",
		"time_s,replica\n1,-1\n",
		"time_s,replica\n1,1e6\n2,1000001\n",
		"time_s,kv_usage\r\n\"1\",NaN\r\n",
		"time_s,time_s,replica\n1,,2\n",
		"time_s\n0\n1\"x\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := ReadTimelineCSV(strings.NewReader(in))
		if err != nil {
			if rows != nil {
				t.Fatalf("rows %+v with error %v", rows, err)
			}
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error %q does not name the line", err)
			}
			return
		}
		for i, r := range rows {
			if math.IsNaN(r.TimeS) || math.IsInf(r.TimeS, 0) {
				t.Fatalf("row %d: time %v", i, r.TimeS)
			}
			if r.Replica < 0 || r.Replica > 1e6 {
				t.Fatalf("row %d: replica %d", i, r.Replica)
			}
			for _, v := range []float64{r.KVUsage, r.Running, r.Waiting, r.Preemptions} {
				if math.IsInf(v, 0) {
					t.Fatalf("row %d: %+v", i, r)
				}
			}
		}
	})
}
