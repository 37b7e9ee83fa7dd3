package workload

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Formats of request files. An empty format means: from the file name's
// extension, else sniffed from the content.
const (
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
)

// maxErrors is how many bad records a read reports before it gives up: enough
// to show a pattern, few enough to read.
const maxErrors = 10

// ReadStats describes what a read found, so that a command can warn about it.
type ReadStats struct {
	Format string // FormatJSONL or FormatCSV
	Gzip   bool   // the input was gzip-compressed
	// Records is the number of request records read.
	Records int
	// Reordered counts records that were out of arrival order: each arrived
	// before a record on an earlier line. The requests returned are stably
	// sorted by arrival regardless.
	Reordered int
	// Timestamps is true when arrivals came from the timestamp field, made
	// relative to the earliest one.
	Timestamps bool
}

// ReadFile reads request records from a JSONL or CSV file, gzip-compressed or
// not, and returns them sorted by arrival. See Read.
func ReadFile(path string) ([]Request, error) {
	reqs, _, err := ReadFileWithStats(path)
	return reqs, err
}

// ReadFileWithStats is ReadFile that also says what it found.
func ReadFileWithStats(path string) ([]Request, ReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ReadStats{}, fmt.Errorf("read requests: %w", err)
	}
	defer f.Close()
	return ReadWithStats(f, path, "")
}

// Read reads request records from r and returns them stably sorted by
// arrival. name is used in error messages ("name:line: field: problem") and,
// when format is empty, to pick the format from its extension (.jsonl, .json,
// .ndjson or .csv, optionally followed by .gz); when the extension says
// nothing the format is sniffed from the first non-blank character ('{' means
// JSONL). gzip input is recognised by its magic bytes and read transparently.
//
// Arrivals come from arrival_s, or from timestamp (RFC 3339 or unix seconds)
// relative to the earliest one; a file must use one or the other. An input
// with no records is an error. Read reports up to ten bad records at once.
func Read(r io.Reader, name, format string) ([]Request, error) {
	reqs, _, err := ReadWithStats(r, name, format)
	return reqs, err
}

// ReadWithStats is Read that also says what it found.
func ReadWithStats(r io.Reader, name, format string) ([]Request, ReadStats, error) {
	var st ReadStats
	format, err := resolveFormat(name, format)
	if err != nil {
		return nil, st, err
	}
	br, gz, err := openInput(r, name)
	if err != nil {
		return nil, st, err
	}
	st.Gzip = gz
	if format == "" {
		if format, err = sniffFormat(br, name); err != nil {
			return nil, st, err
		}
	}
	st.Format = format

	sink := &recordSink{name: name, want: clockUnset}
	if format == FormatCSV {
		err = readCSV(br, sink)
	} else {
		err = readJSONL(br, sink)
	}
	if err != nil {
		sink.errs = append(sink.errs, err)
	}
	if len(sink.errs) > 0 {
		return nil, st, errors.Join(sink.errs...)
	}
	if len(sink.recs) == 0 {
		return nil, st, fmt.Errorf("%s: no request records", name)
	}
	st.Timestamps = sink.want == clockTimestamp
	reqs, err := sink.requests()
	if err != nil {
		return nil, st, err
	}
	st.Records = len(reqs)
	st.Reordered = sortByArrival(reqs)
	return reqs, st, nil
}

// resolveFormat turns the format argument, or the name's extension when the
// argument is empty, into FormatJSONL, FormatCSV or "" (sniff).
func resolveFormat(name, format string) (string, error) {
	switch strings.ToLower(format) {
	case "jsonl", "json", "ndjson":
		return FormatJSONL, nil
	case "csv":
		return FormatCSV, nil
	case "", "auto":
	default:
		return "", fmt.Errorf("%s: unknown format %q (valid: jsonl, csv)", name, format)
	}
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")))
	switch ext {
	case ".jsonl", ".json", ".ndjson":
		return FormatJSONL, nil
	case ".csv":
		return FormatCSV, nil
	}
	return "", nil
}

// openInput buffers r, unwraps gzip when the magic bytes say so (whatever the
// name says), and drops a UTF-8 byte-order mark.
func openInput(r io.Reader, name string) (*bufio.Reader, bool, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	gz := false
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, false, fmt.Errorf("%s: gzip: %w", name, err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
		gz = true
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	return br, gz, nil
}

// sniffFormat looks at the first character that is neither blank nor part of
// a '#' comment line: '{' means JSONL, anything else CSV.
func sniffFormat(br *bufio.Reader, name string) (string, error) {
	b, _ := br.Peek(br.Size()) // short at EOF; an error reappears when reading
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case c == '#':
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				return FormatJSONL, nil
			}
			i += j
		case c == '{':
			return FormatJSONL, nil
		case c == '[':
			return "", fmt.Errorf("%s: a JSON array is not JSONL: write one request object per line", name)
		default:
			return FormatCSV, nil
		}
	}
	// Blank or comments only: JSONL reads it and reports that it is empty.
	return FormatJSONL, nil
}

// recordSink collects the records of one read and its errors.
type recordSink struct {
	name  string
	want  clock // the clock of the first record, which the rest must use
	recs  []parsedRecord
	lines []int // line of each record, for checks made after reading
	errs  []error
}

// add validates one raw record read at line. It reports false when there
// are too many errors to go on.
func (s *recordSink) add(line int, raw *rawRecord) bool {
	p, ferr := parseRecord(raw, s.want)
	if ferr != nil {
		return s.fail(line, ferr)
	}
	if s.want == clockUnset {
		s.want = p.clock
	}
	s.recs = append(s.recs, p)
	s.lines = append(s.lines, line)
	return true
}

// fail records an error at line; it reports false when there are too many.
func (s *recordSink) fail(line int, err error) bool {
	s.errs = append(s.errs, fmt.Errorf("%s:%d: %w", s.name, line, err))
	if len(s.errs) >= maxErrors {
		s.errs = append(s.errs, fmt.Errorf("%s: too many errors, stopped at line %d", s.name, line))
		return false
	}
	return true
}

// requests returns the records as requests, timestamps made relative to the
// earliest one.
func (s *recordSink) requests() ([]Request, error) {
	reqs := make([]Request, len(s.recs))
	if s.want != clockTimestamp {
		for i := range s.recs {
			reqs[i] = s.recs[i].req
		}
		return reqs, nil
	}
	first := s.recs[0].unixS
	for _, p := range s.recs {
		first = min(first, p.unixS)
	}
	for i, p := range s.recs {
		reqs[i] = p.req
		reqs[i].ArrivalS = p.unixS - first
		if reqs[i].ArrivalS > MaxArrivalS {
			return nil, fmt.Errorf("%s:%d: timestamp: more than %g seconds after the earliest timestamp", s.name, s.lines[i], float64(MaxArrivalS))
		}
	}
	return reqs, nil
}

// sortByArrival stably sorts reqs by arrival and returns how many records
// arrived before a record on an earlier line.
func sortByArrival(reqs []Request) int {
	reordered := 0
	latest := 0.0
	for i := range reqs {
		if reqs[i].ArrivalS < latest {
			reordered++
		}
		latest = max(latest, reqs[i].ArrivalS)
	}
	if reordered > 0 {
		slices.SortStableFunc(reqs, func(a, b Request) int { return cmp.Compare(a.ArrivalS, b.ArrivalS) })
	}
	return reordered
}
