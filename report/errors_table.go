package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// writeErrors prints the failure breakdown: statuses, HTTP codes, then
// the most common messages.
func writeErrors(w io.Writer, s *analysis.Summary) error {
	e := s.Errors
	t := newTable(w, "failures", "count")
	var rows [][]string
	for _, k := range sortedKeys(e.ByStatus) {
		rows = append(rows, []string{k, numfmt.Int(int64(e.ByStatus[k]))})
	}
	for _, k := range sortedKeys(e.ByHTTPCode) {
		rows = append(rows, []string{"HTTP " + k, numfmt.Int(int64(e.ByHTTPCode[k]))})
	}
	for _, m := range e.Messages {
		rows = append(rows, []string{breakLines(m.Message, 80), numfmt.Int(int64(m.Count))})
	}
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

// writeScrape prints how the /metrics scrapes went.
func writeScrape(w io.Writer, s *analysis.Summary) error {
	c := s.Scrape
	line := fmt.Sprintf("scrapes of /metrics: %d, failed %d", c.Scrapes, c.Failures)
	if c.LastError != "" {
		line += " (last: " + analysis.TruncateRunes(c.LastError, analysis.MaxErrorMessageRunes) + ")"
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
