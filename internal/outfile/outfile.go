// Package outfile writes a file the user named (a report, a plot, a
// summary): created, written through a buffer and closed, the first error
// returned, and a path that cannot be created reported as the user's input
// (exit 2), since the user chose it.
package outfile

import (
	"bufio"
	"os"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// Write creates path and hands write a buffer onto it; the buffer is
// flushed and the file closed whatever write returns.
func Write(path string, write func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return inputerr.New(err)
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
