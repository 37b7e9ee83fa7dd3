package analysis

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// WriteStatsTable writes r for a terminal: a table of token percentiles per
// class, then the capacity view per class. The overall rows come last, under
// the classes they sum. Only write errors are returned.
func WriteStatsTable(w io.Writer, r *StatsReport) error {
	if r == nil {
		return errors.New("write stats table: nil report")
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "thinkcap stats: %s requests in %s classes\n\n",
		formatInt(int64(r.Overall.Count)), formatInt(int64(len(r.Classes))))
	if len(r.Failed) > 0 {
		fmt.Fprintf(ew, "failed: %s\n\n", formatFailed(r.Failed))
	}
	if err := writeStatsTokens(ew, r); err != nil {
		return fmt.Errorf("write stats table: %w", err)
	}
	c := r.Overall.Capacity
	fmt.Fprintf(ew, "\ncapacity view: %s ms per output token, %s requests decoding at once\n",
		formatCompact(1000*c.TPOTS), formatInt(int64(c.Concurrency)))
	if err := writeStatsCapacity(ew, r); err != nil {
		return fmt.Errorf("write stats table: %w", err)
	}
	if ew.err != nil {
		return fmt.Errorf("write stats table: %w", ew.err)
	}
	return nil
}

// statsRow is one group of the report with its label.
type statsRow struct {
	mode, category string
	g              *StatsGroup
}

// statsRows lists the classes, then the overall group.
func statsRows(r *StatsReport) []statsRow {
	rows := make([]statsRow, 0, len(r.Classes)+1)
	for i := range r.Classes {
		c := &r.Classes[i]
		rows = append(rows, statsRow{classLabel(c.Mode), classLabel(c.Category), &c.StatsGroup})
	}
	return append(rows, statsRow{"overall", "", &r.Overall})
}

// writeStatsTokens prints think, answer and total tokens per group.
func writeStatsTokens(w io.Writer, r *StatsReport) error {
	t := newLabeledTable(w, 3, "mode", "category", "tokens", "mean", "p50", "p90", "p99", "max")
	for _, row := range statsRows(r) {
		for i, d := range []struct {
			name string
			dist TokenDist
		}{
			{"think", row.g.Think},
			{"answer", row.g.Answer},
			{"total", row.g.Total},
		} {
			mode, category := row.mode, row.category
			if i > 0 {
				mode, category = "", ""
			}
			cells := []string{mode, category, d.name, noValue, noValue, noValue, noValue, noValue}
			if row.g.Count > 0 {
				cells = append(cells[:3], formatTokens(d.dist.Mean), formatTokens(d.dist.P50),
					formatTokens(d.dist.P90), formatTokens(d.dist.P99), formatTokens(d.dist.Max))
			}
			if err := t.Append(cells); err != nil {
				return err
			}
		}
	}
	return t.Render()
}

// writeStatsCapacity prints the count, think share, capacity view and
// finish-reason rates per group.
func writeStatsCapacity(w io.Writer, r *StatsReport) error {
	t := newLabeledTable(w, 2, "mode", "category", "requests", "think share",
		"p50 s", "p90 s", "p99 s", "req/s", "cap hit", "unclosed")
	for _, row := range statsRows(r) {
		g := row.g
		cells := []string{row.mode, row.category, formatInt(int64(g.Count)), noValue,
			noValue, noValue, noValue, noValue, optionalPercent(g.CapHitRate), optionalPercent(g.UnclosedThinkRate)}
		if g.Count > 0 {
			c := g.Capacity
			cells[3] = formatPercent(g.ThinkShare)
			cells[4], cells[5], cells[6] = formatCompact(c.RequestS.P50), formatCompact(c.RequestS.P90), formatCompact(c.RequestS.P99)
			if c.RequestsPerS > 0 {
				cells[7] = formatCompact(c.RequestsPerS)
			}
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}

// formatFailed says how many result records failed, by status, most
// common first: "40 not summarised (http_error 38, timeout 2)".
func formatFailed(failed map[string]int) string {
	statuses := slices.SortedFunc(maps.Keys(failed), func(a, b string) int {
		return cmp.Or(cmp.Compare(failed[b], failed[a]), cmp.Compare(a, b))
	})
	total := 0
	parts := make([]string, len(statuses))
	for i, st := range statuses {
		total += failed[st]
		parts[i] = st + " " + formatInt(int64(failed[st]))
	}
	return fmt.Sprintf("%s not summarised (%s)", formatInt(int64(total)), strings.Join(parts, ", "))
}

// optionalPercent prints a fraction that may be unknown.
func optionalPercent(f *float64) string {
	if f == nil {
		return noValue
	}
	return formatPercent(*f)
}

// NewLabeledTable is a table in the report's style with the first labels
// columns left-aligned text and the others right-aligned numbers, for
// packages that print tables of their own.
func NewLabeledTable(w io.Writer, labels int, header ...string) *tablewriter.Table {
	return newLabeledTable(w, labels, header...)
}

// newLabeledTable is newTable with the first labels columns left-aligned
// (names) and the others right-aligned (numbers).
func newLabeledTable(w io.Writer, labels int, header ...string) *tablewriter.Table {
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
		if i < labels {
			align[i] = tw.AlignLeft
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	t.Header(header)
	return t
}
