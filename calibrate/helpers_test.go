package calibrate_test

import (
	"testing"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
	"github.com/thinkcap/thinkcap/workload"
)

// testConfig is Qwen3-8B on one H100 with the profile's coefficients.
func testConfig(t testing.TB) sim.Config {
	t.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	m, err := cat.Model("qwen3-8b")
	if err != nil {
		t.Fatal(err)
	}
	g, err := cat.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.Config{Model: m, GPU: g, Step: g.Step, NumGPUBlocksOverride: 60000}
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testTraffic mixes short and long prompts and outputs at a rate that keeps
// tens of requests running, so that every fitted coefficient has steps that
// depend on it.
func testTraffic(t testing.TB, n int, rate float64, seed uint64) []workload.Request {
	t.Helper()
	dist := func(s string) workload.Dist {
		d, err := workload.ParseDist(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	reqs, err := workload.Synthetic{Requests: n, RatePerS: rate, Seed: seed, Classes: []workload.Class{
		{Name: "short", Share: 0.6, Prompt: dist("uniform:50..400"), Think: dist("uniform:50..800"), Answer: dist("uniform:20..200")},
		{Name: "long", Share: 0.4, Prompt: dist("uniform:1000..6000"), Think: dist("uniform:200..2000"), Answer: dist("uniform:50..300")},
	}}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		reqs[i].ID = ""
	}
	return reqs
}

// simulatedRun is a run directory as a load test of a server that behaves
// exactly like the simulator with cfg would have written it.
func simulatedRun(t testing.TB, cfg sim.Config, reqs []workload.Request, dir string) *verify.Run {
	t.Helper()
	rep, err := sim.Run(cfg, reqs, sim.Options{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	r := &verify.Run{Dir: dir, TimeScale: 1, Meta: loadgen.Metadata{Model: cfg.Model.HFName}}
	for _, res := range rep.Results {
		res.SentS, res.ScheduledS = res.ArrivalS, res.ArrivalS
		res.QueueS, res.Preemptions, res.Replica = 0, 0, 0
		r.Results = append(r.Results, res)
		r.Measured = append(r.Measured, true)
	}
	for _, s := range rep.Timeline {
		r.Timeline = append(r.Timeline, loadgen.TimelineRow{TimeS: s.TimeS, KVUsage: s.KVUsage,
			Running: float64(s.Running), Waiting: float64(s.Waiting), Preemptions: float64(s.Preemptions)})
	}
	return r
}

// BenchmarkCalibrate2x1k: calibrate from two 1,000-request runs, the fit
// and both held-out folds (each a fit and two replays).
func BenchmarkCalibrate2x1k(b *testing.B) {
	cfg := testConfig(b)
	server := cfg
	server.Step.KVBandwidthEfficiency, server.Step.ComputeEfficiency, server.Step.StepOverheadMs = 0.62, 0.42, 2.3
	runs := []*verify.Run{
		simulatedRun(b, server, testTraffic(b, 1000, 2, 1), "a"),
		simulatedRun(b, server, testTraffic(b, 1000, 6, 2), "b"),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := calibrate.Calibrate(verify.Observations([]sim.Config{cfg, cfg}, runs), nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
