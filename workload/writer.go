package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// ResultWriter writes result records as JSONL, one at a time, so that a long
// run keeps what it measured even when it is stopped. It is safe for
// concurrent use: a load generator's workers may share one. Output is
// deterministic: the same results give the same bytes.
type ResultWriter struct {
	mu sync.Mutex
	bw *bufio.Writer
	n  int
}

// NewResultWriter returns a writer of result records to w. Call Flush when
// done (and whenever the file should be up to date).
func NewResultWriter(w io.Writer) *ResultWriter {
	return &ResultWriter{bw: bufio.NewWriter(w)}
}

// Write appends one result record. A record that cannot be encoded (a NaN
// time, say) is an error and nothing of it is written.
func (w *ResultWriter) Write(r *Result) error {
	// Marshal first so that a bad record leaves no partial line behind.
	b, err := marshalLine(r)
	if err != nil {
		return fmt.Errorf("write result %q: %w", r.ID, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("write result %q: %w", r.ID, err)
	}
	w.n++
	return nil
}

// Count is the number of records written so far.
func (w *ResultWriter) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Flush writes buffered records to the underlying writer.
func (w *ResultWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("flush results: %w", err)
	}
	return nil
}

// WriteRequests writes request records to w as JSONL, one object a line, in
// the order given.
func WriteRequests(w io.Writer, reqs []Request) error {
	bw := bufio.NewWriter(w)
	enc := newEncoder(bw)
	for i := range reqs {
		if err := enc.Encode(&reqs[i]); err != nil {
			return fmt.Errorf("write request %d (%q): %w", i+1, reqs[i].ID, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write requests: %w", err)
	}
	return nil
}

// newEncoder writes compact JSON lines without HTML escaping: these files are
// read by tools and people, not embedded in web pages.
func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// marshalLine encodes v as one JSON line, newline included.
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := newEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
