package workload

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvDecoder reads request records from CSV with a header row. Native
// column names are those of the JSON fields (case and surrounding spaces
// ignored); with a mapping, the mapped columns. Unknown columns are
// ignored, empty cells are absent values, and lines starting with '#' are
// comments.
type csvDecoder struct {
	cr     *csv.Reader
	col    [numFields]int // column of each field, -1 for none
	label  [numFields]string
	ncols  int
	clocks uint8
	empty  bool   // the input has no header: no records
	buf    []byte // cell text of the current row
}

// newCSVDecoder reads the header. Its errors name name:line.
func newCSVDecoder(br *bufio.Reader, name string, m *Mapping) (*csvDecoder, error) {
	d := &csvDecoder{cr: csv.NewReader(br)}
	d.cr.Comment = '#'
	d.cr.FieldsPerRecord = -1 // checked here, to say which line and how
	d.cr.ReuseRecord = true
	header, err := d.cr.Read()
	if errors.Is(err, io.EOF) {
		d.empty = true // no records: the scanner says so
		return d, nil
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	headerLine, _ := d.cr.FieldPos(0)
	var errs []error
	if m != nil {
		errs = d.mappedColumns(header, m)
	} else if err := d.nativeColumns(header); err != nil {
		errs = []error{err}
	}
	for i, err := range errs {
		errs[i] = fmt.Errorf("%s:%d: header: %w", name, headerLine, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d.ncols = len(header)
	return d, nil
}

// nativeColumns maps each request field to its column and checks that the
// required columns are there.
func (d *csvDecoder) nativeColumns(header []string) error {
	cols, err := csvColumns(header)
	if err != nil {
		return err
	}
	for f := range d.col {
		d.col[f] = -1
	}
	for i, f := range cols {
		if f >= 0 {
			d.col[f] = i
		}
	}
	if d.col[fArrivalS] >= 0 {
		d.clocks |= clockBitArrival
	}
	if d.col[fTimestamp] >= 0 {
		d.clocks |= clockBitTimestamp
	}
	return nil
}

// csvColumns maps each header column to its field, -1 for unknown columns,
// and checks that the required columns are there.
func csvColumns(header []string) ([]field, error) {
	cols := make([]field, len(header))
	var seen [numFields]bool
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		f, ok := fieldByName(name)
		if !ok {
			cols[i] = -1
			continue
		}
		if seen[f] {
			return nil, fmt.Errorf("%s: column appears twice", name)
		}
		seen[f] = true
		cols[i] = f
	}
	switch {
	case !seen[fPromptTokens]:
		return nil, fmt.Errorf("%s: missing column", fieldNames[fPromptTokens])
	case !seen[fArrivalS] && !seen[fTimestamp]:
		return nil, fmt.Errorf("%s: missing column (give arrival_s or timestamp)", fieldNames[fArrivalS])
	}
	return cols, nil
}

// mappedColumns finds each mapped field's column; every mapped column must
// be there, exactly once. It returns every problem.
func (d *csvDecoder) mappedColumns(header []string, m *Mapping) []error {
	var errs []error
	for f, src := range m.src {
		d.col[f] = -1
		if src == "" {
			continue
		}
		d.label[f] = src
		for i, h := range header {
			if !strings.EqualFold(strings.TrimSpace(h), src) {
				continue
			}
			if d.col[f] >= 0 {
				errs = append(errs, fmt.Errorf("%s: column appears twice", src))
				break
			}
			d.col[f] = i
		}
		if d.col[f] < 0 {
			errs = append(errs, fmt.Errorf("%s: missing column (mapped to %s)", src, mappingKey(field(f))))
		}
	}
	if m.src[fArrivalS] != "" {
		d.clocks |= clockBitArrival
	}
	if m.src[fTimestamp] != "" {
		d.clocks |= clockBitTimestamp
	}
	return errs
}

// mappingKey is the mapping key of field f.
func mappingKey(f field) string {
	for _, k := range mappingKeys {
		if k.f == f {
			return k.key
		}
	}
	return fieldNames[f]
}

// next reads the next row into raw. It returns the row's line and either a
// problem with the row (reading goes on) or a read error, io.EOF at the end.
func (d *csvDecoder) next(name string, raw *rawRecord) (int, *fieldError, error) {
	if d.empty {
		return 0, nil, io.EOF
	}
	row, err := d.cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, nil, io.EOF
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			// encoding/csv goes on after the bad row: so can the reader.
			msg := "csv: " + pe.Err.Error()
			return pe.Line, &fieldError{msg: msg, reason: msg, err: pe.Err}, nil
		}
		return 0, nil, csvError(name, err)
	}
	line, _ := d.cr.FieldPos(0)
	*raw = rawRecord{clocks: d.clocks, name: d.label}
	if len(row) != d.ncols {
		return line, &fieldError{msg: fmt.Sprintf("has %d fields, the header has %d", len(row), d.ncols), reason: "wrong number of fields"}, nil
	}
	// Copy the cells into one buffer (no allocation once it has grown), then
	// point the fields at it.
	var offs [numFields][2]int
	d.buf = d.buf[:0]
	for f, c := range d.col {
		if c >= 0 {
			start := len(d.buf)
			d.buf = append(d.buf, strings.TrimSpace(row[c])...)
			offs[f] = [2]int{start, len(d.buf)}
		}
	}
	for f, c := range d.col {
		if c >= 0 {
			raw.text[f] = d.buf[offs[f][0]:offs[f][1]:offs[f][1]]
		}
	}
	return line, nil, nil
}

// csvError turns encoding/csv's error into "name:line: problem".
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: csv: %w", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
