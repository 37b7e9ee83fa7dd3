package verify

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/workload"
)

// reportResult is a completed request with the latencies given in seconds;
// ttfa 0 means it produced no answer token.
func reportResult(arrival, ttft, ttfa, tpot, e2e float64) workload.Result {
	r := workload.Result{Status: workload.StatusOK, TTFTS: ttft, TTFAS: ttfa, TPOTS: tpot, E2ES: e2e}
	r.ArrivalS = arrival
	r.PromptTokens, r.ThinkTokens = 100, 50
	if ttfa > 0 {
		r.AnswerTokens = 20
	}
	return r
}

// reportOutcome is a small verification built by hand: five requests on
// each side, a timeline of a few scrapes, and a prediction whose TTFT p99
// is far off (a failed check).
func reportOutcome() *Outcome {
	pred := []workload.Result{
		reportResult(0, 0.05, 0.50, 0.020, 1.0), reportResult(0.5, 0.06, 0.55, 0.021, 1.1),
		reportResult(1, 0.07, 0.60, 0.022, 1.2), reportResult(1.5, 0.08, 0.62, 0.020, 1.3),
		reportResult(2, 0.09, 0.70, 0.023, 1.4),
	}
	meas := []workload.Result{
		reportResult(0, 0.06, 0.52, 0.021, 1.05), reportResult(0.5, 0.07, 0.58, 0.022, 1.15),
		reportResult(1, 0.09, 0.66, 0.023, 1.25), reportResult(1.5, 0.20, 0.80, 0.022, 1.50),
		reportResult(2, 0.40, 1.00, 0.025, 1.90),
	}
	tl := func(scale float64) []Point {
		return []Point{
			{TimeS: 0, KVUsage: 0.1 * scale, Running: 1, Waiting: 0},
			{TimeS: 1, KVUsage: 0.4 * scale, Running: 3, Waiting: 1, Preemptions: 0},
			{TimeS: 2, KVUsage: 0.6 * scale, Running: 4, Waiting: 2, Preemptions: 1},
			{TimeS: 3, KVUsage: 0.3 * scale, Running: 2, Waiting: 0, Preemptions: 2},
		}
	}
	p := &Prediction{
		PredictedResults: pred, MeasuredResults: meas,
		PredictedTimeline: tl(1), MeasuredTimeline: tl(1.1),
	}
	p.Predicted = analysis.Summarize("prediction", pred, 3.4)
	p.Measured = analysis.Summarize("loadtest", meas, 3.9)
	p.Predicted.Config = analysis.Config{Model: "Qwen/Qwen3-8B", GPU: "H100", TensorParallelSize: 1, Replicas: 2, KVCacheDtype: "fp8", MaxNumSeqs: 256}
	p.Predicted.Capacity = analysis.Capacity{NumGPUBlocks: 12345, BlockSize: 16}
	p.Predicted.KVUsage, p.Measured.KVUsage = analysis.KVUsage{Mean: 0.35, Peak: 0.6}, analysis.KVUsage{Mean: 0.38, Peak: 0.66}
	tol := map[string]float64{"ttft_p50": 0.25, "ttft_p99": 0.10, "tpot_mean": 0.10, "e2e_p50": 0.15, "kv_usage_peak": 0.15}
	return &Outcome{
		Run: "runs/2025-01-01-qwen", TimeScale: 1, LeftOut: 2,
		Setup: &Setup{
			Notes: []string{"max_model_len 32768 from /v1/models", "12345 KV blocks of 16 tokens, kv cache dtype fp8, from vllm:cache_config_info"},
			Spec:  &SpecAcceptance{Assumed: 2.5, Measured: 2.87, Replayed: true},
		},
		Predicted: p.Predicted, Measured: p.Measured,
		Comparison: analysis.Compare(&p.Predicted, &p.Measured, tol),
		Prediction: p,
	}
}

var reportDataURI = regexp.MustCompile(`src="data:image/png;base64,([A-Za-z0-9+/=]+)"`)

func TestWriteReport(t *testing.T) {
	out := reportOutcome()
	if out.Comparison.Pass {
		t.Fatal("fixture should fail a check")
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, out); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if !strings.HasPrefix(html, "<!DOCTYPE html>") {
		t.Errorf("report starts %q, want <!DOCTYPE html>", html[:min(40, len(html))])
	}
	for _, tag := range []string{"<html", "</html>", "<head>", "</head>", "<body>", "</body>", "<table>", "</table>", "<style>"} {
		if strings.Count(html, tag) != 1 {
			t.Errorf("%s appears %d times, want once", tag, strings.Count(html, tag))
		}
	}
	if strings.Count(html, "<tr") != strings.Count(html, "</tr>") {
		t.Error("unbalanced table rows")
	}
	// Self-contained: nothing fetched from elsewhere.
	for _, ref := range []string{"http://", "https://", "<script", "<link", "@import", "url("} {
		if strings.Contains(html, ref) {
			t.Errorf("report references %q: not self-contained", ref)
		}
	}
	for _, want := range []string{
		"<title>thinkcap verify: runs/2025-01-01-qwen</title>",
		"FAIL", "<code>ttft_p99</code>", // the verdict names the failed metric
		"Qwen/Qwen3-8B", "H100", "fp8", "12345", "256",
		"max_model_len 32768 from /v1/models",
		"2 failed requests left out",
		"measured 2.87, assumed 2.50",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "time scale") {
		t.Error("time-scale note for a real server (scale 1)")
	}

	// Every checked metric has its row, by label.
	labels := map[string]string{}
	for _, m := range analysis.Metrics() {
		labels[m.Name] = m.Label
	}
	for _, m := range out.Comparison.Metrics {
		if m.Pass != nil && !strings.Contains(html, labels[m.Name]) {
			t.Errorf("checked metric %s (%q) missing", m.Name, labels[m.Name])
		}
	}
	// The failed row is highlighted, and it is the TTFT p99 row.
	failRow := regexp.MustCompile(`<tr class="fail"><td>([^<]*)</td>`).FindAllStringSubmatch(html, -1)
	if len(failRow) != len(out.Comparison.Failed) || len(failRow) == 0 || failRow[0][1] != "TTFT p99 (ms)" {
		t.Errorf("highlighted rows %v, want the failed metrics %v", failRow, out.Comparison.Failed)
	}

	// Seven plots (four CDFs, three timelines), each a real PNG.
	imgs := reportDataURI.FindAllStringSubmatch(html, -1)
	if len(imgs) != 7 {
		t.Fatalf("%d embedded images, want 7", len(imgs))
	}
	for i, m := range imgs {
		b, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Fatalf("image %d is not a PNG", i)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
	}
}

func TestWriteReportPass(t *testing.T) {
	out := reportOutcome()
	out.Comparison = analysis.Compare(&out.Predicted, &out.Measured, map[string]float64{"tpot_mean": 0.5})
	out.TimeScale = 10
	out.Setup.Spec = nil
	var buf bytes.Buffer
	if err := WriteReport(&buf, out); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if strings.Contains(html, "FAIL") {
		t.Error("FAIL in a passing report")
	}
	if !strings.Contains(html, "Verdict: pass (1 checks)") {
		t.Error("no pass verdict")
	}
	if !strings.Contains(html, "time scale 10: measured times are multiplied by the emulator") {
		t.Error("no time-scale note for a scaled emulator")
	}
	if strings.Contains(html, "Speculative decoding") {
		t.Error("speculative section without speculative decoding")
	}
}

// TestWriteReportNoData: a run with too little measured reads "no data",
// neither pass nor FAIL; an unmeasured metric's row is not highlighted as
// a failure; a run that ended early carries its note; the table shows the
// bound.
func TestWriteReportNoData(t *testing.T) {
	out := reportOutcome()
	out.Measured.KVUsage = analysis.KVUsage{NoData: true}
	out.Comparison = analysis.Compare(&out.Predicted, &out.Measured, map[string]float64{"tpot_mean": 0.5, "kv_usage_mean": 0.15})
	out.Comparison.RequireRequests(7, 20)
	out.RunState = RunState{State: "interrupted", Notes: []string{"run interrupted after 7 of 200 requests (interrupted by signal)"}}
	var buf bytes.Buffer
	if err := WriteReport(&buf, out); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	// html/template writes + as &#43;.
	for _, want := range []string{"Verdict: no data: 7 requests compared (need at least 20)", "Note: run interrupted after 7 of 200 requests",
		"<th>bound</th>", "±50.0% &#43; 1 ms"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "Verdict: pass") || strings.Contains(html, "Verdict: FAIL") || strings.Contains(html, `<tr class="fail"><td>KV usage mean`) {
		t.Error("a no-data report reads as a pass or a failure")
	}
}

func TestWriteReportEscapes(t *testing.T) {
	out := reportOutcome()
	out.Run = `runs/<script>alert("x")</script>`
	out.Setup.Notes = []string{"a <b>note</b> & more"}
	var buf bytes.Buffer
	if err := WriteReport(&buf, out); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if strings.Contains(html, "<script>") || strings.Contains(html, "<b>note</b>") {
		t.Error("run name or note not escaped")
	}
	if !strings.Contains(html, "a &lt;b&gt;note&lt;/b&gt; &amp; more") {
		t.Error("escaped note missing")
	}
}

func TestWriteReportWithoutPrediction(t *testing.T) {
	// An outcome read back from JSON has no per-request results: the
	// report still shows the verdict and table, without plots.
	out := reportOutcome()
	out.Prediction = nil
	out.Setup = nil
	var buf bytes.Buffer
	if err := WriteReport(&buf, out); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if strings.Contains(html, "data:image/png") {
		t.Error("images without per-request results")
	}
	if !strings.Contains(html, "TTFT p99 (ms)") || !strings.Contains(html, "nothing to plot") {
		t.Error("table or no-plot note missing")
	}
}

func reportPNGFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
	slices.Sort(names)
	return names
}

func TestWritePlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots", "nested") // created on demand
	if err := WritePlots(dir, reportOutcome()); err != nil {
		t.Fatal(err)
	}
	want := []string{"e2e_cdf.png", "kv_usage.png", "preemptions.png", "running_waiting.png", "tpot_cdf.png", "ttfa_cdf.png", "ttft_cdf.png"}
	if got := reportPNGFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}

func TestWritePlotsSkips(t *testing.T) {
	// No answers on either side and no timeline: no TTFA plot and no
	// timeline plots.
	out := reportOutcome()
	p := out.Prediction
	for _, rs := range [][]workload.Result{p.PredictedResults, p.MeasuredResults} {
		for i := range rs {
			rs[i].TTFAS, rs[i].AnswerTokens = 0, 0
		}
	}
	p.PredictedTimeline, p.MeasuredTimeline = nil, nil
	dir := t.TempDir()
	if err := WritePlots(dir, out); err != nil {
		t.Fatal(err)
	}
	want := []string{"e2e_cdf.png", "tpot_cdf.png", "ttft_cdf.png"}
	if got := reportPNGFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}

	var buf bytes.Buffer
	if err := WriteReport(&buf, out); err != nil {
		t.Fatal(err)
	}
	if n := len(reportDataURI.FindAllString(buf.String(), -1)); n != 3 {
		t.Errorf("report embeds %d images, want the same 3 as the files", n)
	}
}

func TestWritePlotsOneTimeline(t *testing.T) {
	// Scraping was off on the server: the predicted timeline alone still
	// gets its plots.
	out := reportOutcome()
	out.Prediction.MeasuredTimeline = nil
	dir := t.TempDir()
	if err := WritePlots(dir, out); err != nil {
		t.Fatal(err)
	}
	if got := reportPNGFiles(t, dir); !slices.Contains(got, "kv_usage.png") || len(got) != 7 {
		t.Errorf("files %v, want all seven", got)
	}
}

func TestWritePlotsErrors(t *testing.T) {
	out := reportOutcome()
	out.Prediction = nil
	if err := WritePlots(t.TempDir(), out); err == nil {
		t.Error("no per-request results: no error")
	}
	// A file where the directory should be.
	file := filepath.Join(t.TempDir(), "taken")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WritePlots(file, reportOutcome()); err == nil {
		t.Error("directory is a file: no error")
	}
}

// brokenWriter fails every write, like a full disk.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteReportWriteError(t *testing.T) {
	if err := WriteReport(brokenWriter{}, reportOutcome()); err == nil {
		t.Error("write error not returned")
	}
	if err := WriteReport(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil outcome: no error")
	}
}
