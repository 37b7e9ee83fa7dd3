package main

import (
	"errors"
	"os"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/workload"
)

// resultsFile is --results written as requests finish: the records in the
// order they finish, buffered, the first write error kept for close.
type resultsFile struct {
	f   *os.File
	rw  *workload.ResultWriter
	err error
}

func createResultsFile(path string) (*resultsFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, inputerr.New(err)
	}
	return &resultsFile{f: f, rw: workload.NewResultWriter(f)}, nil
}

// write adds one record; after a failed write it does nothing.
func (r *resultsFile) write(res *workload.Result) {
	if r.err == nil {
		r.err = r.rw.Write(res)
	}
}

// close flushes the records and reports the first error; nil does nothing.
func (r *resultsFile) close() error {
	if r == nil {
		return nil
	}
	err := r.err
	if err == nil {
		err = r.rw.Flush()
	}
	return errors.Join(err, r.f.Close())
}

// discard removes the file of a run that did not start; nil does nothing.
func (r *resultsFile) discard() {
	if r != nil {
		r.f.Close()
		os.Remove(r.f.Name())
	}
}
