package workload

import (
	"fmt"
	"io"
	"os"
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
	var results []Result
	if err := EachResult(r, name, func(res *Result) { results = append(results, *res) }); err != nil {
		return nil, err
	}
	return results, nil
}
