package loadtest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report"
)

// writeSweepFiles writes sweep.json and the capacity curves into the
// sweep's directory.
func writeSweepFiles(out *SweepOutcome) error {
	if err := writeJSONFile(filepath.Join(out.Dir, "sweep.json"), out); err != nil {
		return err
	}
	return writeSweepPlots(out)
}

// writeSweepPlots draws sweep.png, output tokens/s against the offered
// load, and sweep_latency.png, TTFT p99 and TPOT p50 against it: measured,
// and predicted over it under --predict.
func writeSweepPlots(out *SweepOutcome) error {
	xLabel := "offered load (requests/s)"
	var pts []SweepRow
	for _, r := range out.Rows {
		if r.Measured != nil && r.Measured.Requests.Completed > 0 {
			pts = append(pts, r)
			if r.Point.Concurrency > 0 {
				xLabel = "offered load (concurrency)"
			}
		}
	}
	if len(pts) == 0 {
		return nil
	}
	line := func(name string, value func(*analysis.Summary) float64, predicted bool) report.Series {
		s := report.Series{Name: name}
		for _, r := range pts {
			sum := r.Measured
			if predicted {
				sum = r.Predicted
			}
			v, lo, hi := math.NaN(), math.NaN(), math.NaN()
			if sum != nil {
				v = value(sum)
				if sum.Intervals != nil {
					// The prediction's interval: the same figure of its
					// intervals, through a summary holding its edges.
					lo, hi = value(edge(sum, 0)), value(edge(sum, 1))
				}
			}
			s.X, s.Y = append(s.X, r.Point.load()), append(s.Y, v)
			s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
		}
		return s
	}
	hasPrediction := false
	for _, r := range pts {
		hasPrediction = hasPrediction || r.Predicted != nil
	}
	tokens := func(s *analysis.Summary) float64 { return s.Throughput.OutputTokensPerS }
	ttft := func(s *analysis.Summary) float64 { return 1000 * s.LatencyS.TTFT.P99 }
	tpot := func(s *analysis.Summary) float64 { return 1000 * s.LatencyS.TPOT.P50 }
	plots := []struct {
		file, title, yLabel string
		series              []report.Series
	}{
		{"sweep.png", "Capacity: output throughput against offered load", "output tokens/s", []report.Series{line("measured", tokens, false)}},
		{"sweep_latency.png", "Latency against offered load", "milliseconds", []report.Series{
			line("TTFT p99, measured", ttft, false), line("TPOT p50, measured", tpot, false)}},
	}
	if hasPrediction {
		plots[0].series = append(plots[0].series, line("predicted", tokens, true))
		plots[1].series = append(plots[1].series, line("TTFT p99, predicted", ttft, true), line("TPOT p50, predicted", tpot, true))
	}
	for _, p := range plots {
		var buf bytes.Buffer
		if err := report.WriteXYPlot(&buf, p.title, xLabel, p.yLabel, p.series); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out.Dir, p.file), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// edge is a summary whose plotted figures are one edge (0: lo, 1: hi) of
// s's intervals, so that a figure's accessor reads its interval too.
func edge(s *analysis.Summary, side int) *analysis.Summary {
	iv := s.Intervals
	e := *s
	e.Throughput.OutputTokensPerS = iv.Throughput["output_tokens_per_s"][side]
	if r, ok := iv.LatencyS["ttft"]; ok {
		e.LatencyS.TTFT.P99 = r.P99[side]
	}
	if r, ok := iv.LatencyS["tpot"]; ok {
		e.LatencyS.TPOT.P50 = r.P50[side]
	}
	return &e
}

// WriteSweep prints the sweep's table and where its files are, and
// returns an InterruptedError when a signal stopped it.
func WriteSweep(w io.Writer, out *SweepOutcome) error {
	predicted := false
	goodput := false
	for _, r := range out.Rows {
		predicted = predicted || r.Predicted != nil
		goodput = goodput || r.Measured != nil && r.Measured.Goodput != nil
	}
	header := []string{"load", "req/s", "output tok/s"}
	if predicted {
		header = append(header, "predicted tok/s")
	}
	if goodput {
		header = append(header, "goodput req/s")
	}
	header = append(header, "TTFT p50", "TTFT p99", "TPOT p50")
	if predicted {
		header = append(header, "predicted TPOT p50")
	}
	header = append(header, "E2E p50", "KV peak", "preemptions", "failed", "saturated")
	t := report.NewLabeledTable(w, 1, header...)
	var notes []string
	ms := func(st analysis.Stat, v float64) string {
		if st.NoData {
			return "-"
		}
		return fmt.Sprintf("%.1f ms", 1000*v)
	}
	for _, r := range out.Rows {
		label := r.Point.Label()
		if r.Skipped || r.Measured == nil {
			row := []string{label}
			for range len(header) - 2 {
				row = append(row, "")
			}
			t.Append(append(row, "skipped"))
			continue
		}
		s := r.Measured
		row := []string{label, fmt.Sprintf("%.2f", s.Throughput.RequestsPerS), fmt.Sprintf("%.0f", s.Throughput.OutputTokensPerS)}
		if predicted {
			row = append(row, predictedValue(r.Predicted, func(p *analysis.Summary) string { return fmt.Sprintf("%.0f", p.Throughput.OutputTokensPerS) }))
		}
		if goodput {
			g := "-"
			if s.Goodput != nil {
				g = fmt.Sprintf("%.2f (%.0f%%)", s.Goodput.RequestsPerS, 100*s.Goodput.Fraction)
			}
			row = append(row, g)
		}
		l := s.LatencyS
		row = append(row, ms(l.TTFT, l.TTFT.P50), ms(l.TTFT, l.TTFT.P99), ms(l.TPOT, l.TPOT.P50))
		if predicted {
			row = append(row, predictedValue(r.Predicted, func(p *analysis.Summary) string { return ms(p.LatencyS.TPOT, p.LatencyS.TPOT.P50) }))
		}
		kv, pre := "-", "-"
		if !s.KVUsage.NoData {
			kv = fmt.Sprintf("%.0f%%", 100*s.KVUsage.Peak)
		}
		if s.Preemptions != nil {
			pre = fmt.Sprint(*s.Preemptions)
		}
		sat := ""
		if r.Saturated != "" {
			sat = "yes"
			notes = append(notes, label+" saturated: "+r.Saturated)
		}
		if r.Error != "" {
			notes = append(notes, label+": "+r.Error)
		}
		row = append(row, ms(l.E2E, l.E2E.P50), kv, pre, fmt.Sprint(s.Requests.Failed), sat)
		t.Append(row)
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range out.Rows {
		if r.TimeScale > 0 {
			notes = append([]string{fmt.Sprintf("emulator time scale %g: times and rates in its server time", r.TimeScale)}, notes...)
			break
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "\nwrote %s: a run directory per point, sweep.json, sweep.png (capacity curve) and sweep_latency.png\n", out.Dir)
	if out.Interrupted {
		last := out.Rows[len(out.Rows)-1]
		return &InterruptedError{Signal: out.signal, Finished: last.finished, Planned: last.planned}
	}
	return nil
}

func predictedValue(p *analysis.Summary, f func(*analysis.Summary) string) string {
	if p == nil {
		return "-"
	}
	return f(p)
}
