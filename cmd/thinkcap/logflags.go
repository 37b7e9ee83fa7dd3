package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/workload"
)

// logFlags say how to read a request log: its format, a field mapping, and
// whether to skip invalid records.
type logFlags struct {
	format      string
	mapping     string
	skipInvalid bool
}

func (f *logFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "workload-format", "", "log format: native, openai-usage or csv (default: detected from the content)")
	fs.StringVar(&f.mapping, "map", "", "read any JSONL/CSV log through a field mapping, e.g. arrival=ts,think=reasoning_tokens,answer=out_tokens,prompt=in_tokens")
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "skip invalid records (and report how many and why) instead of failing")
}

// logFormatNames are the --workload-format names workload's readers take
// (workload/reader.go resolveRequestFormat: the formats and their aliases),
// so that a bad one is named as the flag before any log is opened.
var logFormatNames = append(workload.FormatNames(), "", "auto", workload.FormatJSONL, "json", "ndjson", "openai")

func (f *logFlags) options() (workload.ReadOptions, error) {
	opt := workload.ReadOptions{Format: f.format, SkipInvalid: f.skipInvalid}
	if !slices.Contains(logFormatNames, strings.ToLower(strings.TrimSpace(f.format))) {
		return opt, badInput(fmt.Errorf("--workload-format %q: unknown (valid: %s)", f.format, strings.Join(workload.FormatNames(), ", ")))
	}
	if f.mapping != "" {
		m, err := workload.ParseMapping(f.mapping)
		if err != nil {
			return opt, badInput(fmt.Errorf("--map: %w", err))
		}
		opt.Mapping = m
	}
	return opt, nil
}

// each streams the log at path into add, so that a large log never sits in
// memory, and warns about what it skipped.
func (f *logFlags) each(path string, warn io.Writer, add func(*workload.Request)) error {
	opt, err := f.options()
	if err != nil {
		return err
	}
	sc, err := workload.OpenScanner(path, opt)
	if err != nil {
		return badInput(err)
	}
	defer sc.Close()
	for sc.Scan() {
		r := sc.Request()
		add(&r)
	}
	if err := sc.Err(); err != nil {
		return badInput(err)
	}
	warnSkipped(warn, path, sc.Stats())
	return nil
}

// readAll reads the whole log sorted by arrival, as a replay needs it.
func (f *logFlags) readAll(path string, warn io.Writer) ([]workload.Request, workload.ReadStats, error) {
	opt, err := f.options()
	if err != nil {
		return nil, workload.ReadStats{}, err
	}
	reqs, stats, err := workload.ReadFileOptions(path, opt)
	if err != nil {
		return nil, stats, badInput(err)
	}
	warnSkipped(warn, path, stats)
	if stats.Reordered > 0 {
		fmt.Fprintf(warn, "thinkcap: warning: %s: %d records were out of arrival order; using them sorted\n", path, stats.Reordered)
	}
	return reqs, stats, nil
}

// warnSkipped reports records --skip-invalid skipped, by reason.
func warnSkipped(warn io.Writer, path string, st workload.ReadStats) {
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
