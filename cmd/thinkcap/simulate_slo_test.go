package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// sloRun is a small simulation with intervals (the default seeds).
var sloRun = []string{"simulate", "--requests", "40", "--rate", "1", "--seed", "3"}

// TestSimulateSLOs: simulate --slo checks the prediction through the same
// vocabulary as size: met SLOs exit 0, a missed one exits 1 and is named,
// the table and the JSON carry each SLO's predicted value (the summary's
// own figure), its interval and its verdict.
func TestSimulateSLOs(t *testing.T) {
	out, errOut, code := thinkcap(t, append(sloRun, "--slo", "ttft_p99=1h,tpot_p50=10s")...)
	if code != exitOK {
		t.Fatalf("SLOs met: exit %d, want %d\n%s", code, exitOK, errOut)
	}
	for _, want := range []string{"SLO", "predicted", "interval", "ttft_p99=3600s", "tpot_p50=10s", "met"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "missed") {
		t.Errorf("a met SLO printed as missed:\n%s", out)
	}

	out, errOut, code = thinkcap(t, append(sloRun, "--slo", "ttft_p99=1h,tpot_p50=0.001ms")...)
	if code != exitCheckFailed {
		t.Fatalf("an SLO missed: exit %d, want %d\n%s", code, exitCheckFailed, errOut)
	}
	if !strings.Contains(errOut, "1 of 2 SLOs missed: tpot_p50=0.001ms") {
		t.Errorf("stderr does not name the missed SLO: %s", errOut)
	}
	if !strings.Contains(out, "missed") {
		t.Errorf("the table does not show the miss:\n%s", out)
	}

	out, _, code = thinkcap(t, append(sloRun, "--slo", "ttft_p99=1h,tpot_p50=0.001ms", "-o", "json")...)
	if code != exitCheckFailed {
		t.Fatalf("-o json with an SLO missed: exit %d, want %d", code, exitCheckFailed)
	}
	var s struct {
		LatencyS struct {
			TTFT, TPOT struct{ P50, P99 float64 }
		} `json:"latency_s"`
		Intervals struct {
			LatencyS map[string]map[string][2]float64 `json:"latency_s"`
		} `json:"intervals"`
		SLOs []struct {
			SLO       string      `json:"slo"`
			Metric    string      `json:"metric"`
			LimitS    float64     `json:"limit_s"`
			ValueS    *float64    `json:"value_s"`
			IntervalS *[2]float64 `json:"interval_s"`
			Met       bool        `json:"met"`
		} `json:"slos"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.SLOs) != 2 {
		t.Fatalf("slos: %+v", s.SLOs)
	}
	ttft, tpot := s.SLOs[0], s.SLOs[1]
	if ttft.SLO != "ttft_p99=3600s" || ttft.Metric != "ttft_p99" || ttft.LimitS != 3600 || !ttft.Met ||
		ttft.ValueS == nil || *ttft.ValueS != s.LatencyS.TTFT.P99 {
		t.Errorf("ttft_p99: %+v, want the summary's TTFT p99 %g, met", ttft, s.LatencyS.TTFT.P99)
	}
	if tpot.Met || tpot.ValueS == nil || *tpot.ValueS != s.LatencyS.TPOT.P50 {
		t.Errorf("tpot_p50: %+v, want the summary's TPOT p50 %g, missed", tpot, s.LatencyS.TPOT.P50)
	}
	if want := s.Intervals.LatencyS["tpot"]["p50"]; tpot.IntervalS == nil || *tpot.IntervalS != want {
		t.Errorf("tpot_p50's interval %v, want the summary's %v", tpot.IntervalS, want)
	}

	// Without --slo the JSON has no slos key: the summary is as before.
	out, _, code = thinkcap(t, append(sloRun, "-o", "json")...)
	if code != exitOK || strings.Contains(out, `"slos"`) {
		t.Errorf("no --slo: exit %d, slos key present %v", code, strings.Contains(out, `"slos"`))
	}
}

// TestSimulateSLOUnknownMetric: a metric no SLO takes is bad input (exit
// 2), naming the flag and listing the metrics an SLO may bound.
func TestSimulateSLOUnknownMetric(t *testing.T) {
	_, errOut, code := thinkcap(t, "simulate", "--requests", "5", "--slo", "itl_p99=1s,ttft_p95=1s")
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errOut)
	}
	for _, want := range []string{"--slo", `unknown metric "itl_p99"`, `unknown metric "ttft_p95"`, "ttft_p99", "ttfa_mean", "tpot_p90", "e2e_p50"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error lacks %q: %s", want, errOut)
		}
	}
}
