package analysis

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// WriteStatsTable writes r for a terminal: a table of token percentiles per
// class, then the capacity view per class. The overall rows come last, under
// the classes they sum. Only write errors are returned.
func WriteStatsTable(w io.Writer, r *StatsReport) error {
	if r == nil {
		return errors.New("write stats table: nil report")
	}
	return writeReport(w, "write stats table", func(w io.Writer) error {
		fmt.Fprintf(w, "thinkcap stats: %s requests in %s classes\n\n",
			formatInt(int64(r.Overall.Count)), formatInt(int64(len(r.Classes))))
		if len(r.Failed) > 0 {
			fmt.Fprintf(w, "failed: %s\n\n", formatFailed(r.Failed))
		}
		if err := writeStatsTokens(w, r); err != nil {
			return err
		}
		c := r.Overall.Capacity
		fmt.Fprintf(w, "\ncapacity view: %s ms per output token, %s requests decoding at once\n",
			formatCompact(1000*c.TPOTS), formatInt(int64(c.Concurrency)))
		if err := writeStatsCapacity(w, r); err != nil {
			return err
		}
		return writeStatsSessions(w, r.Sessions)
	})
}

// writeStatsSessions prints the sessions, when the log has any: turns per
// session, then each turn's new input, thinking and answer.
func writeStatsSessions(w io.Writer, s *SessionStats) error {
	if s == nil {
		return nil
	}
	fmt.Fprintf(w, "\nsessions: %s, turns per session mean %s, p50 %s, p90 %s, max %s\n",
		formatInt(int64(s.Sessions)), formatCompact(s.Turns.Mean), formatCompact(s.Turns.P50), formatCompact(s.Turns.P90), formatCompact(s.Turns.Max))
	var rows [][]string
	for i, t := range s.ByTurn {
		turn := formatInt(int64(t.Turn))
		if i == len(s.ByTurn)-1 && t.Turn == maxTurnRows {
			turn += "+"
		}
		rows = append(rows, []string{turn, formatInt(int64(t.Requests)), formatCompact(t.Input), formatCompact(t.Think),
			formatCompact(t.Answer), formatPercent(t.ThinkShare)})
	}
	return writeRows(newTable(w, "turn", "requests", "new input (mean)", "think (mean)", "answer (mean)", "think share"), rows)
}

// statsRows lists the classes, then the overall group.
func statsRows(r *StatsReport) []classRow[StatsGroup] {
	return classRows(r.Classes, func(c *ClassStats) (string, string, *StatsGroup) {
		return c.Mode, c.Category, &c.StatsGroup
	}, &r.Overall)
}

// writeStatsTokens prints think, answer and total tokens per group.
func writeStatsTokens(w io.Writer, r *StatsReport) error {
	var rows [][]string
	for _, row := range statsRows(r) {
		g := row.v
		for i, d := range []struct {
			name string
			dist TokenDist
		}{
			{"think", g.Think},
			{"answer", g.Answer},
			{"total", g.Total},
		} {
			mode, category := row.mode, row.category
			if i > 0 {
				mode, category = "", ""
			}
			cells := []string{mode, category, d.name, noValue, noValue, noValue, noValue, noValue}
			if g.Count > 0 {
				cells = append(cells[:3], formatTokens(d.dist.Mean), formatTokens(d.dist.P50),
					formatTokens(d.dist.P90), formatTokens(d.dist.P99), formatTokens(d.dist.Max))
			}
			rows = append(rows, cells)
		}
	}
	return writeRows(newLabeledTable(w, 3, "mode", "category", "tokens", "mean", "p50", "p90", "p99", "max"), rows)
}

// writeStatsCapacity prints the count, think share, capacity view and
// finish-reason rates per group.
func writeStatsCapacity(w io.Writer, r *StatsReport) error {
	var rows [][]string
	for _, row := range statsRows(r) {
		g := row.v
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
		rows = append(rows, cells)
	}
	return writeRows(newLabeledTable(w, 2, "mode", "category", "requests", "think share",
		"p50 s", "p90 s", "p99 s", "req/s", "cap hit", "unclosed"), rows)
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
