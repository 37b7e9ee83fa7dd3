package fidelity

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/profiles"
)

// TestCalibrateRecoversTheServer: a corpus measured on "servers" that are
// the simulator with other coefficients (kernel floors, weight bandwidth,
// compute efficiency and API time all off the profile's) is fitted back:
// the fit finds those coefficients and predicts the corpus within 2 %,
// in-sample and cross-validated. A wrong gradient, a wrong row or a fit
// that stops early misses them.
func TestCalibrateRecoversTheServer(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := cat.GPU("h100-sxm")
	truth := calibrate.Prior(gpu)
	truth.PerLayerOverheadUs = 70
	truth.WeightBandwidthEfficiency = 0.72
	truth.ComputeEfficiency = 0.45
	truth.APIRequestOverheadMs = 12
	truth.APIPromptTokenUs = calibrate.Prior(gpu).APIPromptTokenUs

	var lines []byte
	for _, model := range []string{"qwen3-8b", "qwen3-32b"} {
		for _, tp := range []int{1, 2, 4} {
			for _, conc := range []int{1, 4, 16, 64} {
				for _, in := range []int{1000, 6000} {
					r := Record{ID: fmt.Sprintf("syn-%s-tp%d-c%d-i%d", model, tp, conc, in), Source: "synthetic", Ref: Ref{URL: "https://example.org"},
						Model: model, GPU: "h100-sxm", TP: tp, VLLMVersion: "0.11.0",
						Workload:    Load{Dataset: "random", InputLen: Length{Min: 0.8 * float64(in), Max: float64(in)}, OutputLen: Length{Min: 100, Max: 128}},
						Concurrency: conc}
					cfg, skip := config(cat, &r)
					if skip != "" {
						t.Fatal(skip)
					}
					cfg.Step = truth
					p, err := replay(cfg, &r)
					if err != nil {
						t.Fatal(err)
					}
					r.Measured = Metrics{TPOT: Stat{Mean: p.TPOT.Mean}, TTFT: Stat{Mean: p.TTFT.Mean}}
					b, _ := json.Marshal(r)
					lines = append(append(lines, b...), '\n')
				}
			}
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "syn.jsonl"), lines, 0o644); err != nil {
		t.Fatal(err)
	}
	// The coefficients the servers share with the profile are held: with
	// two models on one GPU, several of the others trade off (a per-step
	// constant against another) and the fit could not tell which moved.
	var hold []string
	for _, p := range calibrate.Params {
		switch p.Key {
		case "per_layer_overhead_us", "weight_bandwidth_efficiency", "compute_efficiency", "api_request_overhead_ms":
		default:
			hold = append(hold, p.Key)
		}
	}
	sb, err := Calibrate(Options{Corpus: dir, Catalog: cat, Hold: hold})
	if err != nil {
		t.Fatal(err)
	}
	var hopper *profiles.StepFit
	for i := range sb.Fits {
		if sb.Fits[i].Generation == "hopper" {
			hopper = &sb.Fits[i]
		}
	}
	if hopper == nil || hopper.Points != 48 {
		t.Fatalf("fits %+v; want hopper's over the 48 points", sb.Fits)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"per_layer_overhead_us", hopper.Step.PerLayerOverheadUs, truth.PerLayerOverheadUs},
		{"weight_bandwidth_efficiency", hopper.Step.WeightBandwidthEfficiency, truth.WeightBandwidthEfficiency},
		{"compute_efficiency", hopper.Step.ComputeEfficiency, truth.ComputeEfficiency},
	} {
		if math.Abs(c.got-c.want) > 0.1*c.want {
			t.Errorf("fitted %s = %.4g, the servers' %.4g", c.name, c.got, c.want)
		}
	}
	// TTFT is looser: a closed loop's first wave of prefills, all at once,
	// is most of its mean, and moves little and unevenly with the API
	// server's time, which the fit's linear model takes as 1:1.
	for m, bound := range map[string][2]float64{MetricTPOT: {0.02, 0.04}, MetricTTFT: {0.05, 0.06}} {
		if sb.MAPE[m] > bound[0] || sb.CVMAPE[m] > bound[1] {
			t.Errorf("%s: MAPE %.2f%%, cross-validated %.2f%%; want under %.0f%% and %.0f%%", m, 100*sb.MAPE[m], 100*sb.CVMAPE[m], 100*bound[0], 100*bound[1])
		}
	}
	t.Logf("fitted %+v; MAPE %v, CV %v", hopper.Step, sb.MAPE, sb.CVMAPE)
}
