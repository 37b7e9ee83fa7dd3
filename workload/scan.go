package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
)

// Scanner reads a request log one record at a time, so that a log of
// millions of requests never has to sit in memory (stats, fit). Use it as
// bufio.Scanner:
//
//	s, err := workload.OpenScanner(path, opt)
//	if err != nil { ... }
//	defer s.Close()
//	for s.Scan() {
//		req := s.Request()
//		...
//	}
//	if err := s.Err(); err != nil { ... }
//
// Records come in file order. Arrivals from timestamps are relative to the
// first record's timestamp: a record logged earlier than the first has a
// negative arrival (ReadWithOptions, which sees them all, counts from the
// earliest instead). Without SkipInvalid, the first bad record ends the
// records (Scan returns false), though the Scanner reads on to report up to
// ten bad records at once in Err.
type Scanner struct {
	name    string
	opt     ReadOptions
	closers []io.Closer

	lines  *lineReader
	json   *jsonDecoder // nil while detecting
	detect bool         // choose native or openai-usage at the first record
	native *jsonDecoder // for lines read while detecting
	csv    *csvDecoder
	noFast bool // tests: no fast JSON scanner

	raw  rawRecord
	rec  parsedRecord
	in   interner
	line int

	want      clock
	firstUnix float64
	latest    float64
	stats     ReadStats
	errs      []error
	done      bool
	err       error
}

// OpenScanner opens a request log (gzip-compressed or not) for reading one
// record at a time. Close it when done.
func OpenScanner(path string, opt ReadOptions) (*Scanner, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read requests: %w", err)
	}
	s, err := NewScanner(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closers = append(s.closers, f)
	return s, nil
}

// NewScanner reads request records from r. name is used in error messages
// ("name:line: field: problem") and, when opt.Format is empty, to pick JSONL
// or CSV from its extension (.jsonl, .json, .ndjson or .csv, optionally
// followed by .gz); when the extension says nothing, the first character
// that is neither blank nor in a '#' comment line decides ('{' means
// JSONL). JSONL is openai-usage when its first record has a usage object,
// else native. gzip is recognised by its magic bytes and read
// transparently. Errors in the format, the gzip header or a CSV header are
// returned here; errors in records come from Err.
func NewScanner(r io.Reader, name string, opt ReadOptions) (*Scanner, error) {
	s := &Scanner{name: name, opt: opt}
	syntax, schema, err := resolveRequestFormat(name, opt)
	if err != nil {
		return nil, err
	}
	br, gz, err := openInput(r, name)
	if err != nil {
		return nil, err
	}
	s.stats.Gzip = gz
	s.stats.Mapped = opt.Mapping != nil
	if syntax == "" {
		if syntax, err = sniffFormat(br, name); err != nil {
			return nil, err
		}
	}
	if syntax == FormatCSV {
		if s.csv, err = newCSVDecoder(br, name, opt.Mapping); err != nil {
			return nil, err
		}
		s.stats.Format = FormatCSV
		return s, nil
	}
	s.lines = &lineReader{br: br}
	switch {
	case opt.Mapping != nil:
		if s.json, err = opt.Mapping.jsonDecoder(); err != nil {
			return nil, fmt.Errorf("%s: field mapping: %w", name, err)
		}
	case schema == FormatOpenAI:
		s.json = newOpenAIDecoder()
	case schema == FormatNative:
		s.json = newNativeDecoder()
	default:
		s.detect = true
	}
	if s.json != nil {
		s.stats.Format = s.json.format
	}
	return s, nil
}

// Scan advances to the next valid record, which Request then returns. It
// returns false at the end of the input or when reading failed: see Err.
func (s *Scanner) Scan() bool {
	for !s.done {
		line, bad, err := s.read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.errs = append(s.errs, err)
			}
			s.finish()
			return false
		}
		if bad == nil {
			bad = parseRecord(&s.raw, s.want, &s.in, &s.rec)
		}
		if bad == nil {
			bad = s.place()
		}
		if bad != nil {
			s.reject(line, bad)
			continue
		}
		if len(s.errs) > 0 {
			continue // failing already: only look for more errors
		}
		s.line = line
		s.stats.Records++
		if a := s.rec.req.ArrivalS; a < s.latest {
			s.stats.Reordered++
		} else {
			s.latest = a
		}
		return true
	}
	return false
}

// Request is the record Scan found.
func (s *Scanner) Request() Request { return s.rec.req }

// Line is the line of the record Scan found (its first line, in CSV).
func (s *Scanner) Line() int { return s.line }

// Err is the error that ended the scan, nil at a clean end of input. An
// input without any valid record is an error.
func (s *Scanner) Err() error { return s.err }

// Stats says what the scan has found so far; after the last Scan, all of
// it. Reordered counts records out of file order; StartUnix is the first
// record's timestamp.
func (s *Scanner) Stats() ReadStats {
	st := s.stats
	st.SkipReasons = maps.Clone(st.SkipReasons)
	st.SkipExamples = append([]string(nil), st.SkipExamples...)
	return st
}

// Close releases the file OpenScanner opened; it does not close the reader
// given to NewScanner.
func (s *Scanner) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	s.closers = nil
	s.done = true
	return errors.Join(errs...)
}

// read reads the next record into s.raw. It returns the record's line and
// either a problem with the record or an error that ends the scan (io.EOF
// at the end).
func (s *Scanner) read() (int, *fieldError, error) {
	if s.csv != nil {
		return s.csv.next(s.name, &s.raw)
	}
	line, err := s.lines.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, nil, err
		}
		return 0, nil, fmt.Errorf("%s:%d: %w", s.name, s.lines.lineNo, err)
	}
	d := s.json
	if d == nil {
		d = s.detectFormat(line)
	}
	return s.lines.lineNo, d.decode(line, &s.raw, s.noFast), nil
}

// detectFormat chooses the JSONL format from the first line that is a JSON
// object: openai-usage when it has a usage object, else native. Lines
// before it are read as native (to report them) without deciding.
func (s *Scanner) detectFormat(line []byte) *jsonDecoder {
	var probe struct {
		Usage json.RawMessage `json:"usage"`
	}
	if line[0] != '{' || json.Unmarshal(line, &probe) != nil {
		if s.native == nil {
			s.native = newNativeDecoder()
		}
		return s.native
	}
	if len(probe.Usage) > 0 && probe.Usage[0] == '{' {
		s.json = newOpenAIDecoder()
	} else if s.json = s.native; s.json == nil {
		s.json = newNativeDecoder()
	}
	s.stats.Format = s.json.format
	return s.json
}

// place sets the clock from the first valid record and turns a timestamp
// into an arrival relative to the first record's.
func (s *Scanner) place() *fieldError {
	p := &s.rec
	if s.want == clockUnset {
		s.want = p.clock
		if p.clock == clockTimestamp {
			s.firstUnix = p.unixS
			s.stats.Timestamps = true
			s.stats.StartUnix = p.unixS
		}
	}
	if p.clock == clockTimestamp {
		a := p.unixS - s.firstUnix
		if math.Abs(a) > MaxArrivalS {
			return badValue(&s.raw, fTimestamp, fmt.Sprintf("must be within %g seconds of the first record's", float64(MaxArrivalS)), ", got %s", show(string(s.raw.text[fTimestamp])))
		}
		p.req.ArrivalS = a
	}
	return nil
}

// reject skips a bad record or records its error.
func (s *Scanner) reject(line int, bad *fieldError) {
	if s.opt.SkipInvalid {
		s.stats.Skipped++
		if s.stats.SkipReasons == nil {
			s.stats.SkipReasons = make(map[string]int)
		}
		s.stats.SkipReasons[bad.short()]++
		if len(s.stats.SkipExamples) < maxSkipExamples {
			s.stats.SkipExamples = append(s.stats.SkipExamples, fmt.Sprintf("%s:%d: %v", s.name, line, bad))
		}
		return
	}
	s.errs = append(s.errs, fmt.Errorf("%s:%d: %w", s.name, line, bad))
	if len(s.errs) >= maxErrors {
		s.errs = append(s.errs, fmt.Errorf("%s: too many errors, stopped at line %d", s.name, line))
		s.finish()
	}
}

// finish ends the scan and settles its error.
func (s *Scanner) finish() {
	s.done = true
	if s.stats.Format == "" {
		s.stats.Format = FormatNative
	}
	if len(s.errs) == 0 && s.stats.Records == 0 {
		if s.stats.Skipped > 0 {
			s.errs = append(s.errs, fmt.Errorf("%s: no valid request records (%d skipped)", s.name, s.stats.Skipped))
		} else {
			s.errs = append(s.errs, fmt.Errorf("%s: no request records", s.name))
		}
	}
	s.err = errors.Join(s.errs...)
}
