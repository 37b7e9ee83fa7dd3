package calibrate_test

import (
	"testing"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/internal/runtest"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
	"github.com/thinkcap/thinkcap/workload"
)

// simulatedRun is a run directory as a load test of a server that behaves
// exactly like the simulator with cfg would have written it.
func simulatedRun(t testing.TB, cfg sim.Config, reqs []workload.Request, dir string) *verify.Run {
	t.Helper()
	rec := runtest.Record(t, cfg, reqs)
	return &verify.Run{Dir: dir, TimeScale: 1, Results: rec.Results, Measured: rec.Measured, Timeline: rec.Timeline, Meta: rec.Meta}
}

// BenchmarkCalibrate2x1k: calibrate from two 1,000-request runs, the fit
// and both held-out folds (each a fit and two replays).
func BenchmarkCalibrate2x1k(b *testing.B) {
	cfg := runtest.Qwen3OnH100(b)
	server := cfg
	server.Step.KVBandwidthEfficiency, server.Step.ComputeEfficiency, server.Step.StepOverheadMs = 0.62, 0.42, 2.3
	runs := []*verify.Run{
		simulatedRun(b, server, runtest.Traffic(b, 1000, 2, 1), "a"),
		simulatedRun(b, server, runtest.Traffic(b, 1000, 6, 2), "b"),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := calibrate.Calibrate(verify.Observations([]sim.Config{cfg, cfg}, runs), nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
