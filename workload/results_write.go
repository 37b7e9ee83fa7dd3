package workload

import "io"

// WriteResults writes result records to w as JSONL, one object a line, in
// the order given.
func WriteResults(w io.Writer, results []Result) error {
	rw := NewResultWriter(w)
	for i := range results {
		if err := rw.Write(&results[i]); err != nil {
			return err
		}
	}
	return rw.Flush()
}
