package logstats

import (
	"cmp"
	"strings"

	"github.com/thinkcap/thinkcap/report/numfmt"
	"github.com/thinkcap/thinkcap/workload"
)

// classKey is a traffic class as a log names it: effort mode × task
// category. Either part may be empty when the log does not record it; such
// requests form their own class rather than being dropped, so that the
// classes always add up to the whole log.
type classKey struct {
	mode, category string
}

// keyOf is the class of r.
func keyOf(r *workload.Request) classKey {
	return classKey{mode: r.Mode, category: r.Category}
}

// compareClasses orders classes for reports: by effort mode in the order of
// effort (unset, low, medium, high, then any other mode alphabetically),
// then by category alphabetically. Effort order rather than alphabetical
// order puts "high" next to "medium", where readers compare them.
func compareClasses(a, b classKey) int {
	return cmp.Or(
		cmp.Compare(modeRank(a.mode), modeRank(b.mode)),
		strings.Compare(a.mode, b.mode),
		strings.Compare(a.category, b.category),
	)
}

// modeRank places the known effort modes in effort order.
func modeRank(mode string) int {
	switch mode {
	case "":
		return 0
	case workload.ModeLow:
		return 1
	case workload.ModeMedium:
		return 2
	case workload.ModeHigh:
		return 3
	}
	return 4
}

// ClassLabel prints one part of a class for a table: numfmt.NoValue when the log
// did not record it.
func ClassLabel(s string) string {
	if s == "" {
		return numfmt.NoValue
	}
	return s
}
