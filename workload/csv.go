package workload

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readCSV reads request records from CSV with a header row into sink. Column
// names are those of the JSON fields (case and surrounding spaces ignored);
// unknown columns are ignored, empty cells are absent values, and lines
// starting with '#' are comments. It returns the errors that stop the read;
// record errors go to the sink.
func readCSV(br *bufio.Reader, sink *recordSink) error {
	cr := csv.NewReader(br)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // checked here, to say which line and how
	cr.ReuseRecord = true

	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil // no records: the caller says so
	}
	if err != nil {
		return csvError(sink.name, err)
	}
	headerLine, _ := cr.FieldPos(0)
	cols, err := csvColumns(header)
	if err != nil {
		return fmt.Errorf("%s:%d: header: %w", sink.name, headerLine, err)
	}

	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return csvError(sink.name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(row) != len(cols) {
			if !sink.fail(line, fmt.Errorf("has %d fields, the header has %d", len(row), len(cols))) {
				return nil
			}
			continue
		}
		raw := &rawRecord{}
		for i, f := range cols {
			if f >= 0 {
				raw.set(f, strings.TrimSpace(row[i]))
			}
		}
		if !sink.add(line, raw) {
			return nil
		}
	}
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

// csvError turns encoding/csv's error into "name:line: problem".
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: csv: %w", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
