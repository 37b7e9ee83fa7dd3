package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// writeIntervals prints the summary's intervals: the latencies' per
// statistic, then throughput, KV usage and preemptions beside their
// point, each with the model error it took, and a line on the sources.
func writeIntervals(w io.Writer, s *analysis.Summary) error {
	iv := s.Intervals
	conf := fmt.Sprintf("%.0f%% interval", 100*iv.Confidence)
	ms := func(r analysis.Range) string { return formatRange(r, numfmt.MS) }
	t := newTable(w, conf+" (ms)", "mean", "p50", "p90", "p99", "model error")
	for _, f := range []struct{ key, name string }{
		{"ttft", "TTFT"}, {"ttfa", "TTFA"}, {"tpot", "TPOT"}, {"itl", "ITL"}, {"e2e", "E2E"}, {"queue", "Queue"},
	} {
		l, ok := iv.LatencyS[f.key]
		if !ok {
			continue
		}
		if err := t.Append([]string{f.name, ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), modelFactor(iv.Model, f.key)}); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	pct := func(r analysis.Range) string { return formatRange(r, numfmt.Percent) }
	rows := [][]string{
		{"requests/s", numfmt.Fixed(s.Throughput.RequestsPerS, 2), formatRange(iv.Throughput["requests_per_s"], func(v float64) string { return numfmt.Fixed(v, 2) }), modelFactor(iv.Model, "throughput")},
		{"output tok/s", numfmt.Fixed(s.Throughput.OutputTokensPerS, 1), formatRange(iv.Throughput["output_tokens_per_s"], func(v float64) string { return numfmt.Fixed(v, 1) }), modelFactor(iv.Model, "throughput")},
		{"KV cache usage, mean", numfmt.Percent(s.KVUsage.Mean), pct(iv.KVUsage["mean"]), modelFactor(iv.Model, "kv_usage")},
		{"KV cache usage, peak", numfmt.Percent(s.KVUsage.Peak), pct(iv.KVUsage["peak"]), modelFactor(iv.Model, "kv_usage")},
	}
	if iv.Preemptions != nil && s.Preemptions != nil {
		rows = append(rows, []string{"preemptions", numfmt.Int(*s.Preemptions),
			formatRange(*iv.Preemptions, func(v float64) string { return numfmt.Int(int64(math.Round(v))) }), numfmt.NoValue})
	}
	t = newTable(w, "server", "point", conf, "model error")
	if err := writeRows(t, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, intervalsNote(iv))
	return err
}

// modelFactor is the figure's model error as the factors its value was
// multiplied by, or numfmt.NoValue when none bears on it.
func modelFactor(m map[string]analysis.ModelBand, key string) string {
	b, ok := m[key]
	if !ok {
		return numfmt.NoValue
	}
	return fmt.Sprintf("×%.2f–%.2f", b.Factor[0], b.Factor[1])
}

func formatRange(r analysis.Range, f func(float64) string) string {
	if math.IsNaN(r[0]) || math.IsNaN(r[1]) {
		return numfmt.NoValue
	}
	return f(r[0]) + " – " + f(r[1])
}

// intervalsNote says what the intervals come from, for the line under their table.
func intervalsNote(iv *analysis.Intervals) string {
	var regimes []string
	seen := map[string]bool{}
	for _, k := range []string{"tpot", "ttft", "throughput"} {
		label := map[string]string{"tpot": "TPOT", "ttft": "TTFT", "throughput": "throughput"}[k]
		for _, b := range iv.Model {
			if b.Metric == k && !seen[k] {
				seen[k] = true
				regimes = append(regimes, fmt.Sprintf("%s: %s, %d points", label, b.Regime, b.Points))
			}
		}
	}
	model := "the step model's error on real vLLM runs (" + strings.Join(regimes, "; ") + ")"
	if iv.Seeds > 1 {
		return fmt.Sprintf("%.0f%% intervals: chance over %d draws of the traffic, and %s", 100*iv.Confidence, iv.Seeds, model)
	}
	return fmt.Sprintf("%.0f%% intervals: %s; one draw of the traffic (--seeds 20 adds chance's spread)", 100*iv.Confidence, model)
}
