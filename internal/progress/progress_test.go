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

// Counting names the unit, and is safe on the nil bar of a non-terminal.
func TestCounting(t *testing.T) {
	var none *Bar
	if none.Counting("fits") != nil {
		t.Error("a nil bar came back non-nil")
	}
	b := (&Bar{Unit: "requests"}).Counting("candidates")
	if b.Unit != "candidates" {
		t.Errorf("unit %q", b.Unit)
	}
}
