package verify

import (
	"math"
	"testing"

	"github.com/thinkcap/thinkcap/sim"
)

// TestStepSensitivitiesSumToStepTime: the step time is homogeneous of
// degree one in the parameters, so Σ parameter × sensitivity over a
// replay's steps is the engine time those steps took (Euler's theorem).
// A wrong sensitivity, a missed term or a wrong parameter map breaks it.
func TestStepSensitivitiesSumToStepTime(t *testing.T) {
	cfg := testConfig(t)
	reqs := testTraffic(t, 200, 8, 1)
	run := simulatedRun(t, cfg, reqs, "sim")
	rs, err := sensitivities(cfg, run)
	if err != nil {
		t.Fatal(err)
	}
	p := params(cfg.Step)
	checked := 0
	for i, res := range rs.predicted {
		if !res.OK() {
			continue
		}
		var ttft, decode float64
		for k := range p {
			ttft += p[k] * rs.ttft[i][k]
			decode += p[k] * rs.decode[i][k]
		}
		if math.Abs(ttft-res.TTFTS) > 1e-3*res.TTFTS+1e-6 {
			t.Errorf("request %d: Σ p·∂TTFT = %.6f s, TTFT %.6f s", i, ttft, res.TTFTS)
		}
		if span := res.E2ES - res.TTFTS; math.Abs(decode-span) > 1e-3*span+1e-6 {
			t.Errorf("request %d: Σ p·∂decode = %.6f s, decode span %.6f s", i, decode, span)
		}
		checked++
	}
	if checked < 150 {
		t.Fatalf("only %d requests checked", checked)
	}
}

// TestCalibrateRecoversCoefficients: a "server" that is the simulator with
// other coefficients is measured; calibrate, started from the profile's,
// finds them within 2% (noise-free data), and the held-out error falls.
func TestCalibrateRecoversCoefficients(t *testing.T) {
	cfg := testConfig(t)
	truth := cfg.Step
	truth.KVBandwidthEfficiency = 0.62
	truth.ComputeEfficiency = 0.42
	truth.StepOverheadMs = 2.3
	truth.PerRequestOverheadUs = 21
	server := cfg
	server.Step = truth
	runs := []*Run{
		simulatedRun(t, server, testTraffic(t, 300, 6, 1), "a"),
		simulatedRun(t, server, testTraffic(t, 300, 12, 2), "b"),
	}
	c, err := Calibrate([]sim.Config{cfg, cfg}, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want float64) {
		if math.Abs(got-want) > 0.02*want {
			t.Errorf("%s = %.4g, want %.4g", name, got, want)
		}
	}
	check("kv_bandwidth_efficiency", c.After.KVBandwidthEfficiency, truth.KVBandwidthEfficiency)
	check("compute_efficiency", c.After.ComputeEfficiency, truth.ComputeEfficiency)
	check("step_overhead_ms", c.After.StepOverheadMs, truth.StepOverheadMs)
	check("per_request_overhead_us", c.After.PerRequestOverheadUs, truth.PerRequestOverheadUs)
	if c.After.WeightBandwidthEfficiency != cfg.Step.WeightBandwidthEfficiency {
		t.Errorf("weight_bandwidth_efficiency moved to %v; it is not fitted by default", c.After.WeightBandwidthEfficiency)
	}
	for _, h := range c.HeldOut {
		if !(h.After.TPOT < h.Before.TPOT/3) || !(h.After.E2E < h.Before.E2E/3) {
			t.Errorf("held out %s: MAPE before %+v, after %+v: want it cut", h.Run, h.Before, h.After)
		}
	}
	t.Logf("iterations %d, held out %+v", c.Iterations, c.HeldOut)
}
