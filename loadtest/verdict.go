package loadtest

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report"
)

// verdict checks the finished run: aborted by the circuit breaker, a
// threshold crossed, or no request succeeded, each a failed check (exit
// 1). With table, the thresholds are printed as a pass/fail table to w.
func verdict(w io.Writer, table bool, s *analysis.Summary, checks []analysis.Threshold, aborted string, finished, planned int) error {
	var fails []string
	if aborted != "" {
		fails = append(fails, fmt.Sprintf("run aborted after %d of %d requests: %s", finished, planned, aborted))
	}
	if len(checks) > 0 {
		rs := analysis.CheckThresholds(s, checks)
		if table {
			fmt.Fprintln(w)
			if err := report.WriteThresholds(w, rs); err != nil {
				return err
			}
		}
		var crossed []string
		for _, r := range rs {
			if !r.Pass {
				crossed = append(crossed, r.Text)
			}
		}
		if len(crossed) > 0 {
			fails = append(fails, fmt.Sprintf("%d of %d thresholds crossed: %s", len(crossed), len(rs), strings.Join(crossed, ", ")))
		}
	}
	if s.Requests.Completed == 0 && aborted == "" {
		fails = append(fails, "no request succeeded"+failedBy(s))
	}
	if len(fails) == 0 {
		return nil
	}
	return errors.New(strings.Join(fails, "; "))
}

// failedBy says what the failures were: " (40 http_error)".
func failedBy(s *analysis.Summary) string {
	if s.Errors == nil || len(s.Errors.ByStatus) == 0 {
		return ""
	}
	statuses := make([]string, 0, len(s.Errors.ByStatus))
	for st := range s.Errors.ByStatus {
		statuses = append(statuses, st)
	}
	sort.Strings(statuses)
	var parts []string
	for _, st := range statuses {
		parts = append(parts, fmt.Sprintf("%d %s", s.Errors.ByStatus[st], st))
	}
	line := " (" + strings.Join(parts, ", ")
	if len(s.Errors.Messages) > 0 {
		line += `; most common: "` + s.Errors.Messages[0].Message + `"`
	}
	return line + ")"
}
