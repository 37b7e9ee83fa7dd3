package main

import (
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/buildinfo"
)

// TestVersionFlag checks `thinkcap --version` (and -v) prints the build's
// version, the string metadata.json records, and exits 0.
func TestVersionFlag(t *testing.T) {
	for _, flag := range []string{"--version", "-v"} {
		t.Run(flag, func(t *testing.T) {
			out, errOut, code := thinkcap(t, flag)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want := "thinkcap " + buildinfo.Version() + "\n"
			if out != want {
				t.Errorf("stdout %q, want %q", out, want)
			}
			if !strings.HasPrefix(out, "thinkcap (devel)") && !strings.HasPrefix(out, "thinkcap v") {
				t.Errorf("stdout %q names no version", out)
			}
		})
	}
}
