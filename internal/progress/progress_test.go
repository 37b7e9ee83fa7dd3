package progress

import (
	"bytes"
	"testing"
)

// TestOffATerminal: off a terminal there is no bar (a nil *Bar does
// nothing), and with no interval Show prints nothing at all.
func TestOffATerminal(t *testing.T) {
	var out bytes.Buffer
	bar := New(&out, "work")
	if bar != nil {
		t.Fatalf("a bar on a buffer: %+v", bar)
	}
	bar.Update(1, 2)
	bar.Done()
	stop := Show(&out, "work", 0, 2, func() int { return 1 }, func(bool) string { return "status" })
	stop()
	if out.Len() != 0 {
		t.Errorf("printed %q", out.String())
	}
}
