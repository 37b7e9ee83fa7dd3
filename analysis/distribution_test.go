package analysis

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestDescribeDistribution(t *testing.T) {
	var v []float64
	for i := 100; i >= 1; i-- {
		v = append(v, float64(i))
	}
	v = append(v, math.NaN(), math.Inf(1))
	d := DescribeDistribution(v, []float64{50, 99.9})
	if d.Min != 1 || d.Max != 100 || math.Abs(d.Std-math.Sqrt((100*100-1)/12.0)) > 1e-9 {
		t.Fatalf("min %g max %g std %g", d.Min, d.Max, d.Std)
	}
	if d.Percentiles[0].Value != 50.5 || math.Abs(d.Percentiles[1].Value-99.901) > 1e-9 || d.Percentiles[1].Label() != "p99.9" {
		t.Fatalf("percentiles %+v", d.Percentiles)
	}
	if DescribeDistribution([]float64{math.NaN()}, []float64{50}) != nil {
		t.Fatal("a distribution of nothing")
	}
}

// TestDistributionsInJSON: with percentiles the summary JSON keeps the
// distribution through a round trip; without, the JSON is as before
// (report.TestWriteTableDistributions checks the table).
func TestDistributionsInJSON(t *testing.T) {
	s := Summarize("loadtest", handcrafted(), 10)
	b, _ := json.Marshal(&s)
	if strings.Contains(string(b), "distribution") {
		t.Fatal("a distribution without percentiles asked")
	}
	s.LatencyS.AddDistributions(SampleLatencies(handcrafted()), []float64{95, 99.9})
	b, _ = json.Marshal(&s)
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := back.LatencyS.TTFT.Dist; d == nil || len(d.Percentiles) != 2 || d.Percentiles[1].P != 99.9 || d.Max != s.LatencyS.TTFT.Dist.Max {
		t.Fatalf("round trip lost the distribution: %+v", back.LatencyS.TTFT.Dist)
	}
}
