package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// IsResultsFile reports whether the JSONL file at path (gzip-compressed or
// not) holds result records, as loadtest and simulate --results write
// them: its first record is a JSON object with a "status" key, which no
// request log has. A file whose first record is not a JSON object is not
// one; reading it as a request log then says what is wrong with it.
func IsResultsFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	br, _, err := openInput(f, path)
	if err != nil {
		return false, err
	}
	found := false
	err = eachLine(br, path, func(_ int, line []byte) bool {
		var rec map[string]json.RawMessage
		if json.Unmarshal(line, &rec) == nil {
			_, found = rec["status"]
		}
		return false // the first record decides
	})
	return found, err
}

// EachResultFile streams the result records of a JSONL file (gzip or not)
// into fn, in file order, so that a run of any length is read in constant
// memory. See EachResult.
func EachResultFile(path string, fn func(*Result)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	return EachResult(f, path, fn)
}

// EachResult is ReadResults one record at a time: fn sees each valid record
// (valid until fn returns) and the error lists the bad ones ("name:line:
// problem"), up to maxErrors. An input with no records is an error.
func EachResult(r io.Reader, name string, fn func(*Result)) error {
	br, _, err := openInput(r, name)
	if err != nil {
		return err
	}
	var (
		errs []error
		n    int
		res  Result
	)
	readErr := eachLine(br, name, func(lineNo int, line []byte) bool {
		res = Result{}
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
		n++
		fn(&res)
		return true
	})
	if readErr != nil {
		errs = append(errs, readErr)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if n == 0 {
		return fmt.Errorf("%s: no result records", name)
	}
	return nil
}
