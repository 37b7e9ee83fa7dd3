package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// WriteStatsTable writes r for a terminal: a table of token percentiles per
// class, then the capacity view per class. The overall rows come last, under
// the classes they sum. Only write errors are returned.
func WriteStatsTable(w io.Writer, r *logstats.StatsReport) error {
	if r == nil {
		return errors.New("write stats table: nil report")
	}
	return writeReport(w, "write stats table", func(w io.Writer) error {
		fmt.Fprintf(w, "thinkcap stats: %s requests in %s classes\n\n",
			numfmt.Int(int64(r.Overall.Count)), numfmt.Int(int64(len(r.Classes))))
		if len(r.Failed) > 0 {
			fmt.Fprintf(w, "failed: %s\n\n", formatFailed(r.Failed))
		}
		if err := writeStatsTokens(w, r); err != nil {
			return err
		}
		c := r.Overall.Capacity
		fmt.Fprintf(w, "\ncapacity view: %s ms per output token, %s requests decoding at once\n",
			numfmt.Compact(1000*c.TPOTS), numfmt.Int(int64(c.Concurrency)))
		if err := writeStatsCapacity(w, r); err != nil {
			return err
		}
		return writeStatsSessions(w, r.Sessions)
	})
}

// writeStatsSessions prints the sessions, when the log has any: turns per
// session, then each turn's new input, thinking and answer.
func writeStatsSessions(w io.Writer, s *logstats.SessionStats) error {
	if s == nil {
		return nil
	}
	fmt.Fprintf(w, "\nsessions: %s, turns per session mean %s, p50 %s, p90 %s, max %s\n",
		numfmt.Int(int64(s.Sessions)), numfmt.Compact(s.Turns.Mean), numfmt.Compact(s.Turns.P50), numfmt.Compact(s.Turns.P90), numfmt.Compact(s.Turns.Max))
	var rows [][]string
	for i, t := range s.ByTurn {
		turn := numfmt.Int(int64(t.Turn))
		if i == len(s.ByTurn)-1 && t.Turn == logstats.MaxTurnRows {
			turn += "+"
		}
		rows = append(rows, []string{turn, numfmt.Int(int64(t.Requests)), numfmt.Compact(t.Input), numfmt.Compact(t.Think),
			numfmt.Compact(t.Answer), numfmt.Percent(t.ThinkShare)})
	}
	return writeRows(newTable(w, "turn", "requests", "new input (mean)", "think (mean)", "answer (mean)", "think share"), rows)
}

// statsRows lists the classes, then the overall group.
func statsRows(r *logstats.StatsReport) []classRow[logstats.StatsGroup] {
	return classRows(r.Classes, func(c *logstats.ClassStats) (string, string, *logstats.StatsGroup) {
		return c.Mode, c.Category, &c.StatsGroup
	}, &r.Overall)
}

// writeStatsTokens prints think, answer and total tokens per group.
func writeStatsTokens(w io.Writer, r *logstats.StatsReport) error {
	var rows [][]string
	for _, row := range statsRows(r) {
		g := row.v
		for i, d := range []struct {
			name string
			dist logstats.TokenDist
		}{
			{"think", g.Think},
			{"answer", g.Answer},
			{"total", g.Total},
		} {
			mode, category := row.mode, row.category
			if i > 0 {
				mode, category = "", ""
			}
			cells := []string{mode, category, d.name, numfmt.NoValue, numfmt.NoValue, numfmt.NoValue, numfmt.NoValue, numfmt.NoValue}
			if g.Count > 0 {
				cells = append(cells[:3], numfmt.Tokens(d.dist.Mean), numfmt.Tokens(d.dist.P50),
					numfmt.Tokens(d.dist.P90), numfmt.Tokens(d.dist.P99), numfmt.Tokens(d.dist.Max))
			}
			rows = append(rows, cells)
		}
	}
	return writeRows(newLabeledTable(w, 3, "mode", "category", "tokens", "mean", "p50", "p90", "p99", "max"), rows)
}

// writeStatsCapacity prints the count, think share, capacity view and
// finish-reason rates per group.
func writeStatsCapacity(w io.Writer, r *logstats.StatsReport) error {
	var rows [][]string
	for _, row := range statsRows(r) {
		g := row.v
		cells := []string{row.mode, row.category, numfmt.Int(int64(g.Count)), numfmt.NoValue,
			numfmt.NoValue, numfmt.NoValue, numfmt.NoValue, numfmt.NoValue, optionalPercent(g.CapHitRate), optionalPercent(g.UnclosedThinkRate)}
		if g.Count > 0 {
			c := g.Capacity
			cells[3] = numfmt.Percent(g.ThinkShare)
			cells[4], cells[5], cells[6] = numfmt.Compact(c.RequestS.P50), numfmt.Compact(c.RequestS.P90), numfmt.Compact(c.RequestS.P99)
			if c.RequestsPerS > 0 {
				cells[7] = numfmt.Compact(c.RequestsPerS)
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
		parts[i] = st + " " + numfmt.Int(int64(failed[st]))
	}
	return fmt.Sprintf("%s not summarised (%s)", numfmt.Int(int64(total)), strings.Join(parts, ", "))
}

// optionalPercent prints a fraction that may be unknown.
func optionalPercent(f *float64) string {
	if f == nil {
		return numfmt.NoValue
	}
	return numfmt.Percent(*f)
}
