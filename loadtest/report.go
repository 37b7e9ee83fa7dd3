package loadtest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/report"
)

// This file is --report: a load test alone as one self-contained HTML file,
// as verify writes one beside a prediction: what was run, the summary
// tables, the thresholds, and the plots (latency CDFs, KV usage, running
// and waiting, output throughput over time, preemptions), embedded so that
// the file can be mailed or attached to a ticket on its own.

// loadReport is what the page shows.
type loadReport struct {
	report.Page
	URL, Model, Date, State string
	Summary                 string // the terminal tables
	Thresholds              []analysis.ThresholdResult
	NoTimeline              bool
}

// writeLoadReport writes the run's report to path.
func writeLoadReport(path string, r *run, s *analysis.Summary, out *loadgen.Outcome, samples []loadgen.Sample, state string) error {
	var tables bytes.Buffer
	if err := report.WriteTable(&tables, s); err != nil {
		return err
	}
	v := loadReport{
		Page: report.Page{Title: "thinkcap load test: " + r.dir}, URL: r.o.URL, Model: r.o.Model, Date: r.meta.Start.Format(time.RFC3339), State: state,
		Summary: tables.String(), Thresholds: analysis.CheckThresholds(s, r.checks),
	}
	plots, err := loadPlots(out, samples)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	for _, p := range plots {
		v.Plots = append(v.Plots, report.PNGImage(p.title, p.png))
	}
	v.NoTimeline = len(samples) == 0
	var page bytes.Buffer
	if err := loadReportTemplate.Execute(&page, v); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		return inputerr.New(fmt.Errorf("--report: %w", err))
	}
	return nil
}

type loadPlot struct {
	title string
	png   []byte
}

// loadPlots draws the measured side: a CDF per latency with values, and
// with a timeline KV usage, running and waiting, and preemptions; output
// tokens per second over the run from the records.
func loadPlots(out *loadgen.Outcome, samples []loadgen.Sample) ([]loadPlot, error) {
	var plots []loadPlot
	add := func(title string, draw func(w io.Writer) error) error {
		var buf bytes.Buffer
		if err := draw(&buf); err != nil {
			return err
		}
		plots = append(plots, loadPlot{title, buf.Bytes()})
		return nil
	}
	lat := analysis.SampleLatencies(out.Results)
	for _, l := range []struct {
		title  string
		values []float64
	}{
		{"Time to first token (TTFT)", lat.TTFT},
		{"Time to first answer token (TTFA)", lat.TTFA},
		{"Time per output token (TPOT)", lat.TPOT},
		{"End-to-end latency (E2E)", lat.E2E},
	} {
		if len(l.values) == 0 {
			continue
		}
		if err := add(l.title, func(w io.Writer) error { return report.WriteCDFPlot(w, l.title, "ms", nil, l.values) }); err != nil {
			return nil, err
		}
	}
	if tokens := tokensPerSecond(out); len(tokens.X) > 0 {
		title := "Output tokens per second (a request's spread from its first to its last token)"
		if err := add(title, func(w io.Writer) error {
			return report.WriteSeriesPlot(w, title, "output tokens/s", []report.Series{tokens})
		}); err != nil {
			return nil, err
		}
	}
	if len(samples) == 0 {
		return plots, nil
	}
	start := out.Start
	series := func(name string, value func(loadgen.Snapshot) float64) report.Series {
		s := report.Series{Name: name}
		for _, sm := range samples {
			s.X = append(s.X, sm.Time.Sub(start).Seconds())
			s.Y = append(s.Y, value(sm.Snapshot))
		}
		return s
	}
	for _, tl := range []struct {
		title, yLabel string
		series        []report.Series
	}{
		{"KV cache usage", "KV blocks in use (%)", []report.Series{series("measured", func(s loadgen.Snapshot) float64 { return 100 * s.KVUsage })}},
		{"Running and waiting requests", "requests", []report.Series{
			series("running, measured", func(s loadgen.Snapshot) float64 { return s.Running }),
			series("waiting, measured", func(s loadgen.Snapshot) float64 { return s.Waiting }),
		}},
		{"Preemptions (cumulative)", "preemptions since the server started", []report.Series{series("measured", func(s loadgen.Snapshot) float64 { return s.Preemptions })}},
	} {
		if err := add(tl.title, func(w io.Writer) error { return report.WriteSeriesPlot(w, tl.title, tl.yLabel, tl.series) }); err != nil {
			return nil, err
		}
	}
	return plots, nil
}

// tokensPerSecond is the completed requests' output tokens per one-second
// bucket from the run's start, each request's spread evenly from its first
// token to its last (a load test keeps no per-token times).
func tokensPerSecond(out *loadgen.Outcome) report.Series {
	buckets := tokenBuckets(out.FromSent)
	s := report.Series{Name: "measured"}
	for i, v := range buckets.tokens {
		s.X = append(s.X, buckets.first+float64(i)+0.5)
		s.Y = append(s.Y, v)
	}
	return s
}

// loadReportTemplate is the run's page: what was run, the thresholds and
// the summary tables, before the plots.
var loadReportTemplate = report.NewPageTemplate("loadreport", `pre { font-size: .8rem; overflow-x: auto; }
.note { color: #555; }
table { border-collapse: collapse; }
th, td { padding: .25rem .7rem; border-bottom: 1px solid #eee; text-align: left; }
td.fail { color: #a11b12; font-weight: bold; }
td.pass { color: #1e6b34; }
`, `<p>{{.Model}} at {{.URL}}, started {{.Date}}; the run is {{.State}}.</p>
{{if .Thresholds}}<h2>Thresholds</h2>
<table>
<thead><tr><th>threshold</th><th>result</th></tr></thead>
<tbody>
{{range .Thresholds}}<tr><td><code>{{.Text}}</code></td>{{if .Pass}}<td class="pass">pass</td>{{else}}<td class="fail">FAIL</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}<h2>Summary</h2>
<pre>{{.Summary}}</pre>
<h2>Plots</h2>
{{if .NoTimeline}}<p class="note">The server's /metrics were not scraped: KV usage, running, waiting and preemption plots are left out.</p>
{{end}}`)
