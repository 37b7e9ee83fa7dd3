package scenario

import (
	"testing"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// BenchmarkSimulateDefaultIntervals: `thinkcap simulate`'s embedded
// default (2,000 effort-mode requests at 10 req/s, Qwen3-8B on one H100)
// with its intervals: the run and 19 redraws of the traffic (the
// bound: under 2 s for the command).
func BenchmarkSimulateDefaultIntervals(b *testing.B) {
	cat, err := profiles.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	o := Options{
		Deployment:        sim.DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm"},
		Traffic:           workload.TrafficOptions{Traffic: workload.DefaultTraffic},
		Route:             RouteOptions{TensorParallelSize: 1, Replicas: 1},
		TimelineIntervalS: 1, Confidence: DefaultConfidence,
	}
	b.ReportAllocs()
	var run *Simulation
	for b.Loop() {
		if run, err = Simulate(cat, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(run.Summary.Intervals.Seeds), "draws")
}
