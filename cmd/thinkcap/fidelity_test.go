package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const miniCorpus = "testdata/measured-mini"

// TestFidelityCommand: the scoreboard of a small corpus as JSON has the
// keys docs/fidelity.md names, one row a point with its cross-validated
// predictions, every metric not scored counted in
// excluded, errors as fractions; a plot is
// written; a bad corpus exits 2 naming its file and line.
func TestFidelityCommand(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "f.png")
	out, errOut, code := thinkcap(t, "fidelity", "--corpus", miniCorpus, "-o", "json", "--plot", plot)
	if code != 0 {
		t.Fatalf("fidelity: exit %d\n%s", code, errOut)
	}
	var sb struct {
		Points, Sources int
		MAPE            map[string]float64 `json:"mape"`
		CVMAPE          map[string]float64 `json:"cv_mape"`
		Regimes         []map[string]any
		Rows            []struct {
			ID      string
			Metrics map[string]struct {
				Measured, Predicted, Err float64
				CVFamily                 *float64 `json:"cv_family"`
				CVSource                 *float64 `json:"cv_source"`
			}
		}
		Excluded []struct {
			Metric, Rule, Reason string
			Count                int
		}
	}
	if err := json.Unmarshal([]byte(out), &sb); err != nil {
		t.Fatal(err)
	}
	if sb.Points != 8 || sb.Sources != 1 || len(sb.Rows) != 8 || len(sb.Regimes) == 0 {
		t.Fatalf("points %d, sources %d, rows %d, regimes %d; want 8, 1, 8 and some", sb.Points, sb.Sources, len(sb.Rows), len(sb.Regimes))
	}
	for _, m := range []string{"tpot", "ttft"} {
		if v, ok := sb.MAPE[m]; !ok || v <= 0 || v > 1 {
			t.Errorf("mape.%s = %v: want a fraction", m, v)
		}
		if _, ok := sb.CVMAPE[m]; !ok {
			t.Errorf("no cv_mape.%s", m)
		}
	}
	for _, r := range sb.Rows {
		tp := r.Metrics["tpot"]
		if tp.Measured <= 0 || tp.Predicted <= 0 || tp.Err != (tp.Predicted-tp.Measured)/tp.Measured {
			t.Errorf("%s: tpot %+v", r.ID, tp)
		}
		// Two model families, one source: nothing is left to fit a
		// source-out prediction on.
		if tp.CVFamily == nil || tp.CVSource != nil {
			t.Errorf("%s: tpot family-out %v, source-out %v; want one and none", r.ID, tp.CVFamily, tp.CVSource)
		}
	}
	// Every metric of every point is scored or counted in excluded.
	left := map[string]int{}
	for _, e := range sb.Excluded {
		if e.Rule == "" || e.Reason == "" || e.Count <= 0 {
			t.Errorf("excluded %+v: want a rule, a reason and a count", e)
		}
		left[e.Metric] += e.Count
	}
	for _, m := range []string{"tpot", "ttft", "throughput"} {
		scored := 0
		for _, r := range sb.Rows {
			if _, ok := r.Metrics[m]; ok {
				scored++
			}
		}
		if scored+left[m] != sb.Points {
			t.Errorf("%s: %d scored and %d excluded of %d points", m, scored, left[m], sb.Points)
		}
	}
	if info, err := os.Stat(plot); err != nil || info.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}

	table, _, code := thinkcap(t, "fidelity", "--corpus", miniCorpus, "--rows")
	if code != 0 || !strings.Contains(table, "TPOT/ITL") || !strings.Contains(table, "ix-gpt-oss-120b-h200-fp4-tp8-1k1k-c16") {
		t.Errorf("table: exit %d\n%s", code, table)
	}

	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "x.jsonl"), []byte("{\"id\":\"x\",\"tp\":1}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fidelity", "--corpus", bad}, "x.jsonl:1"},
		{[]string{"fidelity", "--corpus", filepath.Join(bad, "none")}, "no *.jsonl files"},
		{[]string{"calibrate", "--corpus", miniCorpus, "run1"}, "give no run directories"},
		{[]string{"calibrate", "--corpus", miniCorpus, "--fit", "compute_efficiency"}, "--fit does not apply with --corpus"},
		{[]string{"calibrate", "--corpus", miniCorpus, "--hold", "warp_speed"}, `--hold: unknown coefficient "warp_speed"`},
		{[]string{"calibrate", "run1", "--hold", "compute_efficiency"}, "--hold applies with --corpus only"},
	} {
		_, errOut, code := thinkcap(t, c.args...)
		if code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("thinkcap %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// TestCalibrateCorpus: calibrate --corpus writes a profiles file of step
// fits that --profiles loads: the GPUs take the fit, and the scoreboard
// of the fitted model is no worse than the embedded one's on its points.
func TestCalibrateCorpus(t *testing.T) {
	dir := t.TempDir()
	fit := filepath.Join(dir, "fit.yaml")
	out, errOut, code := thinkcap(t, "calibrate", "--corpus", miniCorpus, "--out", fit, "-o", "json")
	if code != 0 {
		t.Fatalf("calibrate --corpus: exit %d\n%s", code, errOut)
	}
	var sb struct {
		MAPE map[string]float64 `json:"mape"`
		Fits []struct {
			Generation string
			Points     int
		}
	}
	if err := json.Unmarshal([]byte(out), &sb); err != nil {
		t.Fatal(err)
	}
	if len(sb.Fits) != 3 { // hopper, blackwell and the fallback
		t.Fatalf("fits %+v; want hopper, blackwell and all", sb.Fits)
	}
	data, err := os.ReadFile(fit)
	if err != nil || !strings.Contains(string(data), "step_fits:") || !strings.Contains(string(data), "thinkcap calibrate --corpus") {
		t.Fatalf("fit file (%v):\n%s", err, data)
	}
	list, _, code := thinkcap(t, "profiles", "--profiles", fit)
	if code != 0 || !strings.Contains(list, "fitted on 5 corpus points of hopper GPUs") {
		t.Errorf("profiles with the fit: exit %d\n%s", code, list)
	}
	refit, _, code := thinkcap(t, "fidelity", "--corpus", miniCorpus, "--profiles", fit, "-o", "json")
	var again struct {
		MAPE map[string]float64 `json:"mape"`
	}
	if code != 0 || json.Unmarshal([]byte(refit), &again) != nil || again.MAPE["tpot"] > sb.MAPE["tpot"]+0.005 {
		t.Errorf("fidelity with the fit: exit %d, TPOT MAPE %v; calibrate said %v", code, again.MAPE, sb.MAPE)
	}
}
