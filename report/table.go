package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// reportWidth is the terminal width the report is laid out for. Only the
// free-text values of the deployment (model id, speculative config) can come
// near it; writePairs breaks those itself, because tablewriter's own limit
// splits the width evenly between columns and would break a 40-character
// model id that fits.
const reportWidth = 100

// WriteTable writes s as a human-readable report: the deployment and its KV
// capacity, request counts and throughput, latency percentiles in
// milliseconds, tokens per request, and server occupancy with KV usage in
// percent. It is meant for a terminal and for eyes; scripts read the JSON.
// Only write errors are returned.
func WriteTable(w io.Writer, s *analysis.Summary) error {
	if s == nil {
		return errors.New("write summary table: nil summary")
	}
	return writeReport(w, "write summary table", func(w io.Writer) error {
		title := "thinkcap summary"
		if s.Kind != "" {
			title = "thinkcap " + s.Kind + " summary"
		}
		fmt.Fprintf(w, "%s\n", title)
		renders := []func(io.Writer, *analysis.Summary) error{
			writeDeployment, writeRun, writeLatency, writeTokens, writeServer,
		}
		if s.Intervals != nil {
			renders = append(renders, writeIntervals)
		}
		if s.Errors != nil {
			renders = append(renders, writeErrors)
		}
		if len(s.Transforms) > 0 {
			renders = append(renders, writeTransforms)
		}
		if s.Scrape != nil {
			renders = append(renders, writeScrape)
		}
		for _, render := range renders {
			fmt.Fprintln(w)
			if err := render(w, s); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeDeployment prints what was deployed next to the limits of each
// replica (one vLLM instance): scheduler caps and KV-cache capacity. The
// left-hand labels are short so that a Hugging Face model id of 40
// characters fits in 100 columns.
func writeDeployment(w io.Writer, s *analysis.Summary) error {
	c, k := s.Config, s.Capacity
	deployment := []pair{
		{"model", orNone(c.Model)},
		{"gpu", orNone(c.GPU)},
		{"tensor parallel", positive(int64(c.TensorParallelSize))},
		{"replicas", positive(int64(c.Replicas))},
		{"kv cache dtype", orNone(c.KVCacheDtype)},
	}
	if c.PipelineParallelSize > 1 {
		deployment = append(deployment[:3], append([]pair{{"pipeline parallel", numfmt.Int(int64(c.PipelineParallelSize))}}, deployment[3:]...)...)
	}
	if c.MaxModelLen > 0 {
		deployment = append(deployment, pair{"max_model_len", numfmt.Int(int64(c.MaxModelLen))})
	}
	if c.Speculative != "" {
		deployment = append(deployment, pair{"speculative", c.Speculative})
	}
	maxConcurrency := numfmt.NoValue
	if k.MaxConcurrency > 0 {
		maxConcurrency = numfmt.Fixed(k.MaxConcurrency, 2) + "x"
	}
	perReplica := []pair{
		{"max_num_seqs", positive(int64(c.MaxNumSeqs))},
		{"max_num_batched_tokens", positive(int64(c.MaxNumBatchedTokens))},
		{"KV blocks", positive(int64(k.NumGPUBlocks))},
		{"block size", withUnit(positive(int64(k.BlockSize)), "tokens")},
		{"KV cache tokens", positive(k.KVCacheTokens)},
		{"KV bytes per token", withUnit(positive(k.KVBytesPerToken), "B")},
		{"max concurrency", maxConcurrency},
	}
	if err := writePairs(w, "deployment", deployment, "per replica", perReplica, tw.AlignLeft); err != nil {
		return err
	}
	if c.Checkpoint != "" {
		if _, err := fmt.Fprintf(w, "model: %s\n", c.Checkpoint); err != nil {
			return err
		}
	}
	if c.Kernels != "" {
		_, err := fmt.Fprintf(w, "kernels: %s\n", c.Kernels)
		return err
	}
	return nil
}

// writeRun prints what happened to the requests next to the throughput.
func writeRun(w io.Writer, s *analysis.Summary) error {
	r, t := s.Requests, s.Throughput
	requests := []pair{
		{"total", numfmt.Int(int64(r.Total))},
		{"completed", numfmt.Int(int64(r.Completed))},
		{"failed", numfmt.Int(int64(r.Failed))},
		{"of which rejected", numfmt.Int(int64(r.Rejected))},
		{"preemptions", formatOptionalInt(s.Preemptions)},
		{"duration", numfmt.Compact(s.DurationS) + " s"},
	}
	throughput := []pair{
		{"requests/s", numfmt.Compact(t.RequestsPerS)},
		{"output tok/s", numfmt.Compact(t.OutputTokensPerS)},
		{"think tok/s", numfmt.Compact(t.ThinkTokensPerS)},
		{"answer tok/s", numfmt.Compact(t.AnswerTokensPerS)},
		{"prompt tok/s", numfmt.Compact(t.PromptTokensPerS)},
	}
	if g := s.Goodput; g != nil {
		requests = append(requests, pair{"met every SLO", numfmt.Int(int64(g.Good)) + " (" + numfmt.Fixed(100*g.Fraction, 1) + "%)"})
		throughput = append(throughput, pair{"goodput req/s", numfmt.Compact(g.RequestsPerS)})
	}
	return writePairs(w, "requests", requests, "throughput", throughput, tw.AlignRight)
}

// writeLatency prints the latency percentiles in milliseconds.
func writeLatency(w io.Writer, s *analysis.Summary) error {
	l := s.LatencyS
	rows := []struct {
		name string
		stat analysis.Stat
		// zeroOK marks latencies that can truly be zero; for the others a
		// zero Stat means "not measured" (ITL not filled in by the caller)
		// and prints as numfmt.NoValue, as does any Stat marked NoData.
		zeroOK bool
	}{
		{"TTFT", l.TTFT, false},
		{"TTFT (engine)", l.TTFTEngine, false},
		{"TTFA", l.TTFA, false},
		{"TPOT", l.TPOT, false},
		{"ITL", l.ITL, false},
		{"E2E", l.E2E, false},
		{"Queue", l.Queue, true},
	}
	// With --percentiles the rows show the chosen ones between the
	// extremes, with the standard deviation.
	var ps []analysis.Percentile
	for _, r := range rows {
		if r.stat.Dist != nil {
			ps = r.stat.Dist.Percentiles
			break
		}
	}
	header := []string{"latency (ms)", "mean", "p50", "p90", "p99"}
	if ps != nil {
		header = []string{"latency (ms)", "mean", "std", "min"}
		for _, p := range ps {
			header = append(header, p.Label())
		}
		header = append(header, "max")
	}
	t := newTable(w, header...)
	for _, r := range rows {
		measured := s.Requests.Completed > 0 && !r.stat.NoData && (r.zeroOK || r.stat != analysis.Stat{})
		row := statRow(r.name, r.stat, measured, numfmt.MS)
		if ps != nil {
			row = distRow(r.name, r.stat, measured, len(ps), numfmt.MS)
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// writeTokens prints the generated tokens per completed request.
func writeTokens(w io.Writer, s *analysis.Summary) error {
	k := s.Tokens
	t := newTable(w, "tokens per request", "mean", "p50", "p90", "p99")
	for _, r := range []struct {
		name string
		stat analysis.Stat
	}{
		{"think", k.Think},
		{"answer", k.Answer},
		{"total", k.Total},
	} {
		measured := s.Requests.Completed > 0 && !r.stat.NoData
		if err := t.Append(statRow(r.name, r.stat, measured, numfmt.Tokens)); err != nil {
			return err
		}
	}
	return t.Render()
}

// writeServer prints KV-cache usage and the running and waiting queues.
func writeServer(w io.Writer, s *analysis.Summary) error {
	t := newTable(w, "server", "mean", "peak")
	rows := [][]string{
		kvRow("KV cache usage", s.KVUsage),
		occupancyRow("running requests", s.Running),
		occupancyRow("waiting requests", s.Waiting),
	}
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

// kvRow prints KV usage, or "-" when it was never scraped.
func kvRow(name string, k analysis.KVUsage) []string {
	if k.NoData {
		return []string{name, numfmt.NoValue, numfmt.NoValue}
	}
	return []string{name, numfmt.Percent(k.Mean), numfmt.Percent(k.Peak)}
}

// occupancyRow prints a queue's mean and peak, or "-" when never scraped.
func occupancyRow(name string, o analysis.Occupancy) []string {
	if o.NoData {
		return []string{name, numfmt.NoValue, numfmt.NoValue}
	}
	return []string{name, numfmt.Compact(o.Mean), numfmt.Int(int64(o.Peak))}
}

// formatOptionalInt prints an unknown count (nil) as numfmt.NoValue.
func formatOptionalInt(n *int64) string {
	if n == nil {
		return numfmt.NoValue
	}
	return numfmt.Int(*n)
}

// writeTransforms prints what the what-if transforms changed, if any ran.
func writeTransforms(w io.Writer, s *analysis.Summary) error {
	t := newTable(w, "what-if", "requests changed", "requests added", "think tokens saved", "answers lost")
	for _, r := range s.Transforms {
		row := []string{r.Name, numfmt.Int(int64(r.Changed)), numfmt.Int(int64(r.Added)), numfmt.Int(r.ThinkTokensSaved), numfmt.Int(int64(r.AnswersLost))}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// statRow formats one Stat as a row of label, mean, p50, p90, p99.
func statRow(name string, st analysis.Stat, measured bool, format func(float64) string) []string {
	if !measured {
		return []string{name, numfmt.NoValue, numfmt.NoValue, numfmt.NoValue, numfmt.NoValue}
	}
	return []string{name, format(st.Mean), format(st.P50), format(st.P90), format(st.P99)}
}

// distRow formats one Stat as label, mean, std, min, the n percentiles and
// max; a Stat without a distribution shows its mean only.
func distRow(name string, st analysis.Stat, measured bool, n int, format func(float64) string) []string {
	row := []string{name, numfmt.NoValue, numfmt.NoValue, numfmt.NoValue}
	for range n + 1 {
		row = append(row, numfmt.NoValue)
	}
	if !measured {
		return row
	}
	row[1] = format(st.Mean)
	if d := st.Dist; d != nil && len(d.Percentiles) == n {
		row[2], row[3], row[len(row)-1] = format(d.Std), format(d.Min), format(d.Max)
		for i, p := range d.Percentiles {
			row[4+i] = format(p.Value)
		}
	}
	return row
}

// pair is one "name value" line of a key-value table.
type pair struct{ name, value string }

// writePairs prints two key-value lists side by side, which keeps the
// report short without making it wider than a terminal.
func writePairs(w io.Writer, leftTitle string, left []pair, rightTitle string, right []pair, valueAlign tw.Align) error {
	// Room left for the left-hand values once the labels, the right-hand
	// values and the five borders with their padding are drawn.
	leftValueWidth := reportWidth - width("│ ") - 3*width(" │ ") - width(" │") -
		max(maxWidth(left, pairName), width(leftTitle)) -
		max(maxWidth(right, pairName), width(rightTitle)) - maxWidth(right, pairValue)
	t := newTable(w, leftTitle, "", rightTitle, "")
	t.Options(
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{Global: tw.AlignLeft}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{
			PerColumn: []tw.Align{tw.AlignLeft, valueAlign, tw.AlignLeft, valueAlign},
		}),
	)
	for i := range max(len(left), len(right)) {
		var l, r pair
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		if err := t.Append([]string{l.name, breakLines(l.value, leftValueWidth), r.name, r.value}); err != nil {
			return err
		}
	}
	return t.Render()
}

func pairName(p pair) string  { return p.name }
func pairValue(p pair) string { return p.value }

// maxWidth is the widest field of pairs, in terminal columns.
func maxWidth(pairs []pair, field func(pair) string) int {
	w := 0
	for _, p := range pairs {
		w = max(w, width(field(p)))
	}
	return w
}

// width is the number of terminal columns s takes. Counting runes is exact
// for the box-drawing borders and for ASCII labels, model ids and GPU names;
// a wide (CJK) character would only make a line a column longer.
func width(s string) int { return utf8.RuneCountInString(s) }

// breakLines splits s into lines of at most n columns, for a multi-line
// cell; it breaks anywhere, since model ids have no spaces to break at.
func breakLines(s string, n int) string {
	n = max(n, 8) // keep something readable even if the labels ate the width
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	var b strings.Builder
	for len(r) > n {
		b.WriteString(string(r[:n]))
		b.WriteByte('\n')
		r = r[n:]
	}
	b.WriteString(string(r))
	return b.String()
}

// orNone prints an unset string field as numfmt.NoValue.
func orNone(s string) string {
	if s == "" {
		return numfmt.NoValue
	}
	return s
}

// positive prints a count that is unset when zero (a config or capacity the
// caller did not fill in) as numfmt.NoValue.
func positive(n int64) string {
	if n <= 0 {
		return numfmt.NoValue
	}
	return numfmt.Int(n)
}

// withUnit appends a unit to a value that is there.
func withUnit(v, unit string) string {
	if v == numfmt.NoValue {
		return v
	}
	return v + " " + unit
}
