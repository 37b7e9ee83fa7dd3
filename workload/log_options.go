package workload

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// LogOptions say how to read a request log as a command's flags give it:
// its format, a field mapping, and whether to skip invalid records.
type LogOptions struct {
	Format      string // --workload-format; "": detected from the content
	Mapping     string // --map: a field mapping (ParseMapping); "": none
	SkipInvalid bool   // --skip-invalid
}

// logFormatNames are the --workload-format names the readers take
// (resolveRequestFormat: the formats and their aliases), so that a bad one
// is named as the flag before any log is opened.
var logFormatNames = append(FormatNames(), "", "auto", FormatJSONL, "json", "ndjson", "openai")

// ReadOptions checks the options and turns them into the readers'.
func (o LogOptions) ReadOptions() (ReadOptions, error) {
	opt := ReadOptions{Format: o.Format, SkipInvalid: o.SkipInvalid}
	if !slices.Contains(logFormatNames, strings.ToLower(strings.TrimSpace(o.Format))) {
		return opt, fmt.Errorf("--workload-format %q: unknown (valid: %s)", o.Format, strings.Join(FormatNames(), ", "))
	}
	if o.Mapping != "" {
		m, err := ParseMapping(o.Mapping)
		if err != nil {
			return opt, fmt.Errorf("--map: %w", err)
		}
		opt.Mapping = m
	}
	return opt, nil
}

// Each streams the log at path into add, so that a large log never sits in
// memory, and warns about what it skipped.
func (o LogOptions) Each(path string, warn io.Writer, add func(*Request)) error {
	opt, err := o.ReadOptions()
	if err != nil {
		return err
	}
	sc, err := OpenScanner(path, opt)
	if err != nil {
		return err
	}
	defer sc.Close()
	for sc.Scan() {
		r := sc.Request()
		add(&r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	WarnSkipped(warn, path, sc.Stats())
	return nil
}

// ReadAll reads the whole log sorted by arrival, as a replay needs it, and
// warns about what it skipped or reordered.
func (o LogOptions) ReadAll(path string, warn io.Writer) ([]Request, ReadStats, error) {
	opt, err := o.ReadOptions()
	if err != nil {
		return nil, ReadStats{}, err
	}
	reqs, stats, err := ReadFileOptions(path, opt)
	if err != nil {
		return nil, stats, err
	}
	WarnSkipped(warn, path, stats)
	if stats.Reordered > 0 {
		fmt.Fprintf(warn, "thinkcap: warning: %s: %d records were out of arrival order; using them sorted\n", path, stats.Reordered)
	}
	return reqs, stats, nil
}

// WarnSkipped reports records SkipInvalid skipped, by reason.
func WarnSkipped(warn io.Writer, path string, st ReadStats) {
	if st.Skipped == 0 {
		return
	}
	reasons := make([]string, 0, len(st.SkipReasons))
	for r, n := range st.SkipReasons {
		reasons = append(reasons, fmt.Sprintf("%s (%d)", r, n))
	}
	sort.Strings(reasons)
	fmt.Fprintf(warn, "thinkcap: warning: %s: skipped %d invalid records: %s\n", path, st.Skipped, strings.Join(reasons, "; "))
	for _, ex := range st.SkipExamples {
		fmt.Fprintf(warn, "  e.g. %s\n", ex)
	}
}
