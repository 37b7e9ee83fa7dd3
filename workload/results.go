package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// statuses are the valid Result.Status values.
var statuses = []string{
	StatusOK, StatusRejected, StatusHTTPError, StatusStreamError,
	StatusTimeout, StatusTruncated, StatusCancelled, StatusConnectError,
}

// ReadResultsFile reads result records from a JSONL file (gzip-compressed or
// not), as written by ResultWriter. See ReadResults.
func ReadResultsFile(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	return ReadResults(f, path)
}

// ReadResults reads result records, one JSON object a line, in file order.
// Blank lines and lines starting with '#' are skipped; unknown keys are
// ignored. Each record needs a known status. name is used in error messages
// ("name:line: problem"); an input with no records is an error.
func ReadResults(r io.Reader, name string) ([]Result, error) {
	br, _, err := openInput(r, name)
	if err != nil {
		return nil, err
	}
	var (
		results []Result
		errs    []error
	)
	readErr := eachLine(br, name, func(lineNo int, line []byte) bool {
		var res Result
		err := json.Unmarshal(line, &res)
		if err == nil && !slices.Contains(statuses, res.Status) {
			err = fmt.Errorf("status: must be one of %v, got %s", statuses, show(res.Status))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, lineNo, err))
			if len(errs) >= maxErrors {
				errs = append(errs, fmt.Errorf("%s: too many errors, stopped at line %d", name, lineNo))
				return false
			}
			return true
		}
		results = append(results, res)
		return true
	})
	if readErr != nil {
		errs = append(errs, readErr)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s: no result records", name)
	}
	return results, nil
}
