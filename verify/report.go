package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report"
)

// reportPlot is one rendered plot: the file WritePlots names it and the
// PNG both WritePlots and WriteReport use, so that the two never differ.
type reportPlot struct {
	File, Title string
	PNG         []byte
}

// latencyPlots are the per-request CDFs, each over the requests that
// analysis.Summarize counts for that latency, so that a plot's quantiles
// are the table's.
var latencyPlots = []struct {
	file, title string
	sample      func(l *analysis.LatencySamples) []float64
}{
	{"ttft_cdf.png", "Time to first token (TTFT)", func(l *analysis.LatencySamples) []float64 { return l.TTFT }},
	{"ttfa_cdf.png", "Time to first answer token (TTFA)", func(l *analysis.LatencySamples) []float64 { return l.TTFA }},
	{"tpot_cdf.png", "Time per output token (TPOT)", func(l *analysis.LatencySamples) []float64 { return l.TPOT }},
	{"e2e_cdf.png", "End-to-end latency (E2E)", func(l *analysis.LatencySamples) []float64 { return l.E2E }},
}

// renderPlots draws the outcome's plots: a CDF per latency that either side
// has values for (TTFA is absent when no request answered), and, when
// either side has a timeline, KV usage, running and waiting, and
// cumulative preemptions over time. An outcome without per-request results
// (read back from JSON) has no plots.
func renderPlots(out *Outcome) ([]reportPlot, error) {
	p := out.Prediction
	if p == nil {
		return nil, nil
	}
	var plots []reportPlot
	add := func(file, title string, draw func(w io.Writer) error) error {
		var buf bytes.Buffer
		if err := draw(&buf); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		plots = append(plots, reportPlot{File: file, Title: title, PNG: buf.Bytes()})
		return nil
	}

	predicted, measured := analysis.SampleLatencies(p.PredictedResults), analysis.SampleLatencies(p.MeasuredResults)
	for _, lp := range latencyPlots {
		pred, meas := lp.sample(&predicted), lp.sample(&measured)
		if len(pred) == 0 && len(meas) == 0 {
			continue
		}
		err := add(lp.file, lp.title, func(w io.Writer) error {
			return report.WriteCDFPlot(w, lp.title, "ms", pred, meas)
		})
		if err != nil {
			return nil, err
		}
	}

	if len(p.PredictedTimeline) == 0 && len(p.MeasuredTimeline) == 0 {
		return plots, nil
	}
	series := func(name string, tl []Point, value func(Point) float64) report.Series {
		s := report.Series{Name: name, X: make([]float64, len(tl)), Y: make([]float64, len(tl))}
		for i, pt := range tl {
			s.X[i], s.Y[i] = pt.TimeS, value(pt)
		}
		return s
	}
	kvPercent := func(pt Point) float64 { return 100 * pt.KVUsage }
	running := func(pt Point) float64 { return pt.Running }
	waiting := func(pt Point) float64 { return pt.Waiting }
	preemptions := func(pt Point) float64 { return pt.Preemptions }
	timelines := []struct {
		file, title, yLabel string
		series              []report.Series
	}{
		{"kv_usage.png", "KV cache usage", "KV blocks in use (%)", []report.Series{
			series("predicted", p.PredictedTimeline, kvPercent),
			series("measured", p.MeasuredTimeline, kvPercent),
		}},
		{"running_waiting.png", "Running and waiting requests", "requests", []report.Series{
			series("running, predicted", p.PredictedTimeline, running),
			series("running, measured", p.MeasuredTimeline, running),
			series("waiting, predicted", p.PredictedTimeline, waiting),
			series("waiting, measured", p.MeasuredTimeline, waiting),
		}},
		{"preemptions.png", "Preemptions (cumulative)", "preemptions since start", []report.Series{
			series("predicted", p.PredictedTimeline, preemptions),
			series("measured", p.MeasuredTimeline, preemptions),
		}},
	}
	for _, tp := range timelines {
		err := add(tp.file, tp.title, func(w io.Writer) error {
			return report.WriteSeriesPlot(w, tp.title, tp.yLabel, tp.series)
		})
		if err != nil {
			return nil, err
		}
	}
	return plots, nil
}

// WritePlots writes the report's plots as PNG files into dir, creating it:
// ttft_cdf.png, ttfa_cdf.png (when a request answered), tpot_cdf.png,
// e2e_cdf.png, and, when there is a timeline, kv_usage.png,
// running_waiting.png and preemptions.png.
func WritePlots(dir string, out *Outcome) error {
	if out == nil || out.Prediction == nil {
		return errors.New("no per-request results to plot")
	}
	plots, err := renderPlots(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range plots {
		// os errors name the path already.
		if err := os.WriteFile(filepath.Join(dir, p.File), p.PNG, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteReport writes the outcome as one self-contained HTML file: the
// verdict first, then what the prediction assumed, the comparison table and
// the plots, embedded as data URIs so that the file can be mailed or
// attached to a ticket on its own.
func WriteReport(w io.Writer, out *Outcome) error {
	if out == nil {
		return errors.New("report: no outcome")
	}
	plots, err := renderPlots(out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := reportTemplate.Execute(w, newReportView(out, plots)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// reportView is what the template shows, every number already formatted.
type reportView struct {
	report.Page
	Pass           bool
	NoDataVerdict  bool
	Reason         string
	Checked        int
	Failed         []string
	NoData         []string
	RunNotes       []string
	Requests       int
	LeftOut        int
	TimeScale      string // empty for a real server (scale 1)
	Deployment     []reportField
	Notes          []string
	Spec           *reportSpec
	Rows           []report.ComparisonRow
	HasPrediction  bool
	NoTimelineNote bool
}

type reportField struct{ Name, Value string }

type reportSpec struct {
	Measured, Assumed string
	Replayed          bool
}

func newReportView(out *Outcome, plots []reportPlot) reportView {
	v := reportView{
		Page: report.Page{Title: "thinkcap verify: " + out.Run}, Pass: out.Comparison.Pass, Failed: out.Comparison.Failed,
		NoDataVerdict: out.Comparison.Verdict == analysis.VerdictNoData, Reason: out.Comparison.Reason,
		NoData: out.Comparison.NoData, RunNotes: out.RunState.Notes,
		Checked:  out.Comparison.Checked(),
		Requests: out.Predicted.Requests.Total, LeftOut: out.LeftOut,
		Rows:          report.ComparisonRows(&out.Comparison),
		HasPrediction: out.Prediction != nil,
	}
	if out.TimeScale != 1 && out.TimeScale != 0 {
		v.TimeScale = strconv.FormatFloat(out.TimeScale, 'g', -1, 64)
	}
	c, k := out.Predicted.Config, out.Predicted.Capacity
	field := func(name, value string) {
		if value != "" && value != "0" {
			v.Deployment = append(v.Deployment, reportField{name, value})
		}
	}
	field("model", c.Model)
	field("GPU", c.GPU)
	field("tensor parallel size", strconv.Itoa(c.TensorParallelSize))
	field("replicas", strconv.Itoa(c.Replicas))
	field("KV cache dtype", c.KVCacheDtype)
	field("max_num_seqs", strconv.Itoa(c.MaxNumSeqs))
	field("max_num_batched_tokens", strconv.Itoa(c.MaxNumBatchedTokens))
	field("max_model_len", strconv.Itoa(c.MaxModelLen))
	field("speculative decoding", c.Speculative)
	field("KV blocks per replica (num_gpu_blocks)", strconv.Itoa(k.NumGPUBlocks))
	field("block size (tokens)", strconv.Itoa(k.BlockSize))
	if s := out.Setup; s != nil {
		v.Notes = s.Notes
		if sa := s.Spec; sa != nil {
			v.Spec = &reportSpec{Measured: fmt.Sprintf("%.2f", sa.Measured), Assumed: fmt.Sprintf("%.2f", sa.Assumed), Replayed: sa.Replayed}
		}
	}
	for _, p := range plots {
		v.Plots = append(v.Plots, report.PNGImage(p.Title, p.PNG))
	}
	if p := out.Prediction; p != nil && len(p.PredictedTimeline) == 0 && len(p.MeasuredTimeline) == 0 {
		v.NoTimelineNote = true
	}
	return v
}

// reportTemplate is the verify page: the verdict, the prediction's
// deployment and the comparison, before the plots.
var reportTemplate = report.NewPageTemplate("report", `.verdict { font-size: 1.3rem; font-weight: bold; padding: .8rem 1rem; border-radius: .3rem; }
.verdict.pass { background: #e6f4ea; color: #1e6b34; border: 1px solid #a8d5b5; }
.verdict.fail { background: #fdecea; color: #a11b12; border: 1px solid #f3b2ab; }
.verdict.nodata { background: #fff4e5; color: #8a4b00; border: 1px solid #f5c98b; }
.run-note { background: #fff4e5; padding: .5rem 1rem; border-radius: .3rem; }
.verdict code { font-weight: normal; }
.note { color: #555; }
dl.deployment { display: grid; grid-template-columns: max-content auto; gap: .2rem 1.2rem; }
dl.deployment dt { color: #555; }
dl.deployment dd { margin: 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: .25rem .7rem; border-bottom: 1px solid #eee; }
th { text-align: left; background: #f5f5f5; }
td.num { text-align: right; }
tr.fail td { background: #fdecea; color: #a11b12; font-weight: bold; }
td.pass { color: #1e6b34; }
`, `{{range .RunNotes}}<p class="run-note">Note: {{.}}</p>
{{end}}{{if .NoDataVerdict}}<p class="verdict nodata">Verdict: no data: {{.Reason}}</p>
{{else if .Pass}}<p class="verdict pass">Verdict: pass ({{.Checked}} checks{{if .NoData}}, {{len .NoData}} without data: {{range $i, $n := .NoData}}{{if $i}}, {{end}}<code>{{$n}}</code>{{end}}{{end}})</p>
{{else}}<p class="verdict fail">Verdict: FAIL ({{len .Failed}} of {{.Checked}} checks): {{range $i, $n := .Failed}}{{if $i}}, {{end}}<code>{{$n}}</code>{{end}}</p>
{{end}}
<p>{{.Requests}} requests compared{{if .LeftOut}}; {{.LeftOut}} failed requests left out (not replayed){{else}}; none left out{{end}}.</p>
{{if .TimeScale}}<p class="note">Emulator time scale {{.TimeScale}}: measured times are multiplied by the emulator's time scale (server time).</p>
{{end}}
<h2>Prediction's deployment</h2>
<dl class="deployment">
{{range .Deployment}}<dt>{{.Name}}</dt><dd>{{.Value}}</dd>
{{end}}</dl>
{{if .Notes}}<h2>Taken from the run</h2>
<ul>
{{range .Notes}}<li>{{.}}</li>
{{end}}</ul>
{{end}}
{{with .Spec}}<h2>Speculative decoding</h2>
<p>Mean acceptance length: measured {{.Measured}}, assumed {{.Assumed}}{{if .Replayed}}; the prediction replays the measured one{{end}}.</p>
{{end}}
<h2>Comparison</h2>
<p class="note">A checked metric passes when |predicted − measured| ≤ its bound: the tolerance × |measured| plus the absolute slack, stretched where it is wall-clock time by an emulator's slowdown. "no data": a side was not measured; neither a pass nor a failure.</p>
<table>
<thead><tr><th>metric</th><th>predicted</th><th>90% interval</th><th>measured</th><th>error</th><th>tolerance</th><th>bound</th><th>result</th></tr></thead>
<tbody>
{{range .Rows}}<tr{{if and .Checked (not .Pass) (not .NoData)}} class="fail"{{end}}><td>{{.Label}}</td><td class="num">{{.Predicted}}</td><td class="num">{{.Interval}}</td><td class="num">{{.Measured}}</td><td class="num">{{.Error}}</td><td class="num">{{.Tolerance}}</td><td class="num">{{.Bound}}</td><td{{if .Pass}} class="pass"{{end}}>{{.Result}}</td></tr>
{{end}}</tbody>
</table>
<h2>Plots</h2>
{{if not .HasPrediction}}<p class="note">No per-request results: nothing to plot.</p>
{{end}}{{if .NoTimelineNote}}<p class="note">No server timeline on either side: KV usage, running, waiting and preemption plots are left out.</p>
{{end}}{{if .Plots}}<p class="note">Predicted in orange, dashed; measured in blue, solid.</p>
{{end}}`)
