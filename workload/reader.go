package workload

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Formats of request logs. An empty format means: JSONL or CSV from the
// file name's extension, else sniffed from the content; JSONL is then
// openai-usage when its first record has a usage object, else native.
const (
	// FormatNative is the request record (docs/formats.md), one JSON
	// object a line.
	FormatNative = "native"
	// FormatOpenAI is OpenAI-style responses or usage records, one JSON
	// object a line (see openai.go for the fields it reads).
	FormatOpenAI = "openai-usage"
	// FormatCSV is CSV with a header row: the native columns, or the
	// columns a Mapping names.
	FormatCSV = "csv"
	// FormatJSONL is JSON lines as such: as a format to read, another name
	// of native; in ReadStats, JSONL read through a Mapping.
	FormatJSONL = "jsonl"
)

// FormatNames lists the formats a request log may be named as.
func FormatNames() []string { return []string{FormatNative, FormatOpenAI, FormatCSV, FormatMooncake} }

// maxErrors is how many bad records a read reports before it gives up: enough
// to show a pattern, few enough to read.
const maxErrors = 10

// maxSkipExamples is how many skipped records ReadStats describes.
const maxSkipExamples = 5

// ReadOptions says how to read a request log. The zero value reads native
// JSONL or CSV, detected, and fails on the first bad records.
type ReadOptions struct {
	// Format is FormatNative (or "jsonl"), FormatOpenAI or FormatCSV;
	// empty detects it (see FormatNative).
	Format string
	// Mapping reads any JSONL or CSV log through an explicit field mapping
	// (see ParseMapping); Format may then name jsonl or csv, or be empty.
	Mapping *Mapping
	// SkipInvalid skips bad records instead of failing, and counts them
	// in ReadStats. Errors that stop reading (a broken gzip stream, a CSV
	// header without the needed columns) still fail.
	SkipInvalid bool
}

// ReadStats describes what a read found, so that a command can warn about it.
type ReadStats struct {
	// Format is the format read: FormatNative, FormatOpenAI or FormatCSV;
	// with a Mapping, FormatJSONL or FormatCSV.
	Format string
	Mapped bool // read through a Mapping
	Gzip   bool // the input was gzip-compressed
	// Records is the number of request records read (not skipped).
	Records int
	// Reordered counts records that were out of arrival order: each arrived
	// before a record on an earlier line. ReadFile and friends return the
	// requests stably sorted by arrival regardless.
	Reordered int
	// Timestamps is true when arrivals came from absolute timestamps, and
	// StartUnix is then the unix time (seconds) of arrival 0: the earliest
	// timestamp for a collected read (ReadFileOptions), the first record's
	// for a Scanner. The hour of day of a day-shaped rate comes from it.
	Timestamps bool
	StartUnix  float64
	// Skipped counts the records skipped by SkipInvalid, SkipReasons counts
	// them by problem ("think_tokens: must be a non-negative integer"), and
	// SkipExamples gives the first few in full, "file:line: problem".
	Skipped      int
	SkipReasons  map[string]int
	SkipExamples []string
}

// ReadFile reads request records from a request log, gzip-compressed or
// not, and returns them sorted by arrival. See ReadWithOptions.
func ReadFile(path string) ([]Request, error) {
	reqs, _, err := ReadFileWithStats(path)
	return reqs, err
}

// ReadFileWithStats is ReadFile that also says what it found.
func ReadFileWithStats(path string) ([]Request, ReadStats, error) {
	return ReadFileOptions(path, ReadOptions{})
}

// ReadFileOptions reads a whole request log as opt says. See
// ReadWithOptions.
func ReadFileOptions(path string, opt ReadOptions) ([]Request, ReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ReadStats{}, fmt.Errorf("read requests: %w", err)
	}
	defer f.Close()
	return ReadWithOptions(f, path, opt)
}

// Read reads request records from r and returns them stably sorted by
// arrival; format is as ReadOptions.Format. See ReadWithOptions.
func Read(r io.Reader, name, format string) ([]Request, error) {
	reqs, _, err := ReadWithStats(r, name, format)
	return reqs, err
}

// ReadWithStats is Read that also says what it found.
func ReadWithStats(r io.Reader, name, format string) ([]Request, ReadStats, error) {
	return ReadWithOptions(r, name, ReadOptions{Format: format})
}

// ReadWithOptions reads all request records from r, as a Scanner does (see
// NewScanner), and returns them stably sorted by arrival. Arrivals from
// timestamps are made relative to the earliest one, so none is negative.
// name is used in error messages ("name:line: field: problem"). Without
// SkipInvalid, ReadWithOptions reports up to ten bad records at once.
func ReadWithOptions(r io.Reader, name string, opt ReadOptions) ([]Request, ReadStats, error) {
	if strings.EqualFold(strings.TrimSpace(opt.Format), FormatMooncake) {
		if opt.Mapping != nil {
			return nil, ReadStats{}, fmt.Errorf("%s: format %s does not combine with a field mapping", name, FormatMooncake)
		}
		br, gz, err := openInput(r, name)
		if err != nil {
			return nil, ReadStats{}, err
		}
		reqs, st, err := readMooncake(br, name)
		st.Gzip = gz
		return reqs, st, err
	}
	s, err := NewScanner(r, name, opt)
	if err != nil {
		return nil, ReadStats{}, err
	}
	var (
		reqs         []Request
		earliest     float64
		latest       float64
		latestLine   int
		latestSource string
	)
	for s.Scan() {
		req := s.Request()
		if len(reqs) == 0 || req.ArrivalS > latest {
			latest, latestLine, latestSource = req.ArrivalS, s.Line(), s.raw.label(fTimestamp)
		}
		earliest = min(earliest, req.ArrivalS)
		reqs = append(reqs, req)
	}
	st := s.Stats()
	if err := s.Err(); err != nil {
		return nil, st, err
	}
	if st.Timestamps && earliest < 0 {
		// A Scanner counts from the first record; here the earliest is 0.
		if latest-earliest > MaxArrivalS {
			return nil, st, fmt.Errorf("%s:%d: %s: more than %g seconds after the earliest timestamp", name, latestLine, latestSource, float64(MaxArrivalS))
		}
		for i := range reqs {
			reqs[i].ArrivalS -= earliest
		}
		st.StartUnix += earliest
	}
	st.Reordered = sortByArrival(reqs)
	return reqs, st, nil
}

// resolveFormat turns a format argument, or the name's extension when the
// argument is empty, into the syntax to read: FormatJSONL, FormatCSV or ""
// (sniff). Other readers of JSONL-or-CSV files (eval rows) share it.
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
	return syntaxFromExt(name), nil
}

// syntaxFromExt is FormatJSONL or FormatCSV from the name's extension (.jsonl,
// .json, .ndjson or .csv, optionally followed by .gz), else "".
func syntaxFromExt(name string) string {
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")))
	switch ext {
	case ".jsonl", ".json", ".ndjson":
		return FormatJSONL
	case ".csv":
		return FormatCSV
	}
	return ""
}

// resolveRequestFormat turns ReadOptions into the syntax to read
// (FormatJSONL, FormatCSV or "" to sniff) and, for JSONL, the schema
// (FormatNative, FormatOpenAI, or "" to detect from the first record).
func resolveRequestFormat(name string, opt ReadOptions) (syntax, schema string, err error) {
	switch f := strings.ToLower(strings.TrimSpace(opt.Format)); f {
	case "", "auto":
		return syntaxFromExt(name), "", nil
	case FormatNative, FormatJSONL, "json", "ndjson":
		return FormatJSONL, FormatNative, nil
	case FormatOpenAI, "openai":
		if opt.Mapping != nil {
			return "", "", fmt.Errorf("%s: format %s does not combine with a field mapping (a mapping reads jsonl or csv)", name, FormatOpenAI)
		}
		return FormatJSONL, FormatOpenAI, nil
	case FormatCSV:
		return FormatCSV, "", nil
	default:
		return "", "", fmt.Errorf("%s: unknown format %q (valid: %s)", name, opt.Format, strings.Join(FormatNames(), ", "))
	}
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
