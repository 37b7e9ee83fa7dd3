// Package analysistest holds the results that the tests of analysis and of
// report share: the numbers are checked in analysis, their tables in report,
// from the same records. Only tests import it.
package analysistest

import (
	"slices"

	"github.com/thinkcap/thinkcap/workload"
)

// Repeat is n results of the same status, HTTP code and error message.
func Repeat(n int, status string, code int, msg string) []workload.Result {
	rs := make([]workload.Result, 0, n)
	for range n {
		rs = append(rs, workload.Result{Status: status, HTTPStatus: code, Error: msg})
	}
	return rs
}

// Failures is a run of 45 results: 3 successes, 40 answered 404 (the model
// is not served) and 2 rejected with 429.
func Failures() []workload.Result {
	return slices.Concat(
		Repeat(3, workload.StatusOK, 200, ""),
		Repeat(40, workload.StatusHTTPError, 404, "The model `qwen3-8b` does not exist."),
		Repeat(2, workload.StatusRejected, 429, "too many requests"),
	)
}
