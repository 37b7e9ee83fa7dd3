package verify

import (
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
)

// BenchmarkVerify1k: verify a 1,000-request run (configure, replay,
// summarise both sides, compare).
func BenchmarkVerify1k(b *testing.B) {
	cfg := testConfig(b)
	run := simulatedRun(b, cfg, testTraffic(b, 1000, 6, 1), "run")
	tol := analysis.DefaultTolerances()
	never := func(string) bool { return false }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(cfg, run, never, tol, DefaultMinRequests); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCalibrate2x1k: calibrate from two 1,000-request runs, the fit
// and both held-out folds (each a fit and two replays).
func BenchmarkCalibrate2x1k(b *testing.B) {
	cfg := testConfig(b)
	server := cfg
	server.Step.KVBandwidthEfficiency, server.Step.ComputeEfficiency, server.Step.StepOverheadMs = 0.62, 0.42, 2.3
	runs := []*Run{
		simulatedRun(b, server, testTraffic(b, 1000, 2, 1), "a"),
		simulatedRun(b, server, testTraffic(b, 1000, 6, 2), "b"),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Calibrate([]sim.Config{cfg, cfg}, runs, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
