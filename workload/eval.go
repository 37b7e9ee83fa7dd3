package workload

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// EvalRow is one graded answer of an eval run at a thinking budget: the
// input of accuracy-versus-budget curves, which show whether the thinking
// tokens are buying accuracy. An eval file holds one row per item
// and budget, as JSONL or as CSV with the same column names.
type EvalRow struct {
	// Item names the eval item; optional, informative only.
	Item string `json:"item,omitempty"`
	// Category is the task category the curve is drawn for; optional (rows
	// without one form their own curve).
	Category string `json:"category,omitempty"`
	// Budget is the thinking budget the item ran at, in tokens; 0 is
	// thinking off.
	Budget int `json:"budget"`
	// Correct says whether the answer was graded correct: true/false or 1/0.
	Correct bool `json:"correct"`
	// TotalTokens is what the answer cost in tokens, as the eval counted it.
	TotalTokens int `json:"total_tokens"`
}

// evalColumns are the eval file's column names, in EvalRow order; budget,
// correct and total_tokens are required.
var evalColumns = [...]string{"item", "category", "budget", "correct", "total_tokens"}

const (
	evalItem = iota
	evalCategory
	evalBudget
	evalCorrect
	evalTotalTokens
	numEvalColumns
)

// rawEval holds the text of each column of one row; present is false for an
// absent, null or empty value.
type rawEval struct {
	text    [numEvalColumns]string
	present [numEvalColumns]bool
}

func (r *rawEval) set(col int, text string) {
	r.text[col] = text
	r.present[col] = text != ""
}

// ReadEvalFile reads an eval file, JSONL or CSV, gzip-compressed or not. See
// ReadEval.
func ReadEvalFile(path string) ([]EvalRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read eval: %w", err)
	}
	defer f.Close()
	return ReadEval(f, path, "")
}

// ReadEval reads eval rows from r, in file order. name is used in error
// messages ("name:line: field: problem") and, when format is empty, to pick
// the format from its extension, else from the content, as Read does. JSONL
// lines and CSV cells take numbers as numbers or numeric strings, and
// correct as true/false or 1/0; blank lines and lines starting with '#' are
// skipped. An input with no rows is an error. ReadEval reports up to ten bad
// rows at once.
func ReadEval(r io.Reader, name, format string) ([]EvalRow, error) {
	format, err := resolveFormat(name, format)
	if err != nil {
		return nil, err
	}
	br, _, err := openInput(r, name)
	if err != nil {
		return nil, err
	}
	if format == "" {
		if format, err = sniffFormat(br, name); err != nil {
			return nil, err
		}
	}
	sink := &evalSink{name: name}
	if format == FormatCSV {
		err = readEvalCSV(br, sink)
	} else {
		err = eachLine(br, name, func(lineNo int, line []byte) bool {
			raw, err := parseEvalJSON(line)
			if err != nil {
				return sink.fail(lineNo, err)
			}
			return sink.add(lineNo, raw)
		})
	}
	if err != nil {
		sink.errs = append(sink.errs, err)
	}
	if len(sink.errs) > 0 {
		return nil, errors.Join(sink.errs...)
	}
	if len(sink.rows) == 0 {
		return nil, fmt.Errorf("%s: no eval rows", name)
	}
	return sink.rows, nil
}

// evalSink collects the rows of one read and its errors.
type evalSink struct {
	name string
	rows []EvalRow
	errs []error
}

// add validates one raw row read at line; it reports false when there are
// too many errors to go on.
func (s *evalSink) add(line int, raw *rawEval) bool {
	row, err := parseEvalRow(raw)
	if err != nil {
		return s.fail(line, err)
	}
	s.rows = append(s.rows, row)
	return true
}

// fail records an error at line; it reports false when there are too many.
func (s *evalSink) fail(line int, err error) bool {
	s.errs = append(s.errs, fmt.Errorf("%s:%d: %w", s.name, line, err))
	if len(s.errs) >= maxErrors {
		s.errs = append(s.errs, fmt.Errorf("%s: too many errors, stopped at line %d", s.name, line))
		return false
	}
	return true
}

// evalJSON receives one JSONL line; raw values let every error name its
// field and let numbers arrive as strings. Unknown keys are ignored.
type evalJSON struct {
	Item        json.RawMessage `json:"item"`
	Category    json.RawMessage `json:"category"`
	Budget      json.RawMessage `json:"budget"`
	Correct     json.RawMessage `json:"correct"`
	TotalTokens json.RawMessage `json:"total_tokens"`
}

// parseEvalJSON decodes one line into raw column text.
func parseEvalJSON(line []byte) (*rawEval, error) {
	if line[0] != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", truncate(string(line)))
	}
	var j evalJSON
	if err := json.Unmarshal(line, &j); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	raw := &rawEval{}
	for col, v := range [numEvalColumns]json.RawMessage{j.Item, j.Category, j.Budget, j.Correct, j.TotalTokens} {
		text, err := evalJSONText(col, v)
		if err != nil {
			return nil, err
		}
		raw.set(col, text)
	}
	return raw, nil
}

// evalJSONText turns one raw JSON value into column text: strings unquoted,
// numbers and booleans as written, null as absent; objects and arrays are
// errors.
func evalJSONText(col int, v json.RawMessage) (string, error) {
	if len(v) == 0 {
		return "", nil
	}
	switch c := v[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", evalErrorf(col, "invalid string: %v", err)
		}
		return s, nil
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f':
		return string(v), nil
	case c == 'n': // null
		return "", nil
	}
	return "", evalErrorf(col, "must be a string, number or boolean, got %s", truncate(string(v)))
}

// readEvalCSV reads eval rows from CSV with a header row into sink. Column
// names are matched ignoring case and surrounding spaces; unknown columns
// are ignored.
func readEvalCSV(r io.Reader, sink *evalSink) error {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // checked here, to say which line and how
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil // no rows: the caller says so
	}
	if err != nil {
		return csvError(sink.name, err)
	}
	headerLine, _ := cr.FieldPos(0)
	cols, err := evalCSVColumns(header)
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
		raw := &rawEval{}
		for i, col := range cols {
			if col >= 0 {
				raw.set(col, strings.TrimSpace(row[i]))
			}
		}
		if !sink.add(line, raw) {
			return nil
		}
	}
}

// evalCSVColumns maps each header column to its eval column, -1 for
// unknown ones, and checks that the required columns are there.
func evalCSVColumns(header []string) ([]int, error) {
	cols := make([]int, len(header))
	var seen [numEvalColumns]bool
	for i, h := range header {
		cols[i] = -1
		name := strings.ToLower(strings.TrimSpace(h))
		for col, n := range evalColumns {
			if n != name {
				continue
			}
			if seen[col] {
				return nil, fmt.Errorf("%s: column appears twice", name)
			}
			seen[col] = true
			cols[i] = col
		}
	}
	var errs []error
	for _, col := range []int{evalBudget, evalCorrect, evalTotalTokens} {
		if !seen[col] {
			errs = append(errs, fmt.Errorf("%s: missing column", evalColumns[col]))
		}
	}
	return cols, errors.Join(errs...)
}

// parseEvalRow validates one raw row.
func parseEvalRow(raw *rawEval) (EvalRow, error) {
	row := EvalRow{Item: raw.text[evalItem], Category: raw.text[evalCategory]}
	var err error
	if row.Budget, err = evalTokens(raw, evalBudget); err != nil {
		return row, err
	}
	if row.Correct, err = evalBool(raw, evalCorrect); err != nil {
		return row, err
	}
	if row.TotalTokens, err = evalTokens(raw, evalTotalTokens); err != nil {
		return row, err
	}
	return row, nil
}

// evalTokens reads a required non-negative integer token count (integral
// floats such as "512.0" or 1e3 accepted, as for request records).
func evalTokens(raw *rawEval, col int) (int, error) {
	if !raw.present[col] {
		return 0, evalErrorf(col, "missing")
	}
	s := raw.text[col]
	v, ok := parseInteger(s)
	if !ok || v < 0 {
		return 0, evalErrorf(col, "must be a non-negative integer, got %s", show(s))
	}
	if v > MaxTokens {
		return 0, evalErrorf(col, "must be at most %d, got %s", MaxTokens, show(s))
	}
	return int(v), nil
}

// evalBool reads a required grade: true/false (any case) or 1/0.
func evalBool(raw *rawEval, col int) (bool, error) {
	if !raw.present[col] {
		return false, evalErrorf(col, "missing")
	}
	switch s := raw.text[col]; strings.ToLower(s) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	default:
		return false, evalErrorf(col, "must be true, false, 1 or 0, got %s", show(s))
	}
}

// evalErrorf is a problem with one column, "column: problem"; the reader
// adds file:line.
func evalErrorf(col int, format string, args ...any) error {
	return fmt.Errorf("%s: %s", evalColumns[col], fmt.Sprintf(format, args...))
}
