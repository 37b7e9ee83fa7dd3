package outfile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// TestWrite: what write writes is in the file; its error comes back; a
// path that cannot be created is the user's input, a failed write is not.
func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := Write(path, func(w *bufio.Writer) error { _, err := w.WriteString("hello\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello\n" {
		t.Errorf("file %q (%v)", b, err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(*bufio.Writer) error { return boom }); !errors.Is(err, boom) || inputerr.Is(err) {
		t.Errorf("a failed write: %v", err)
	}
	err := Write(filepath.Join(t.TempDir(), "missing", "out.txt"), func(*bufio.Writer) error { return nil })
	if err == nil || !inputerr.Is(err) {
		t.Errorf("an uncreatable path: %v, want the user's input", err)
	}
}
