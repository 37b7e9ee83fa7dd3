// Package golden compares a test's output with a file under the test's
// testdata/ directory. Run the tests with -update to rewrite the files after
// an intended change; the diff of testdata/ then shows the change for review.
// Only tests import it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Check fails t unless got equals testdata/name; under -update it first
// writes got there.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rerun this package's tests with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; if the change is intended, rerun this package's tests with -update\n--- got\n%s", path, got)
	}
}
