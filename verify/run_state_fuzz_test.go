package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadRunFiles: a run directory's results.jsonl and timeline.csv, as
// a killed writer or anyone may leave them, never panic the readers; a
// partial last line is dropped only when it is unterminated, and a file
// that ends with a newline is read as it is.
func FuzzReadRunFiles(f *testing.F) {
	f.Add([]byte(`{"id":"a","status":"ok","ttft_s":0.1}`+"\n"+`{"id":"b","sta`), []byte("time_s,kv_usage\n0,0.1\n1.5,0."))
	f.Add([]byte(""), []byte(""))
	f.Add([]byte("\n\n{}"), []byte("time_s"))
	f.Add([]byte(`{"id":"a","status":"ok"}`), []byte("time_s,running\n0,1\n"))
	f.Fuzz(func(t *testing.T, results, timeline []byte) {
		dir := t.TempDir()
		rp, tp := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "timeline.csv")
		if err := os.WriteFile(rp, results, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tp, timeline, 0o644); err != nil {
			t.Fatal(err)
		}
		var notes []string
		note := func(string, ...any) { notes = append(notes, "") }
		_, _ = readRunResults(rp, note)
		_, _ = readRunTimeline(tp, note)
		for _, data := range [][]byte{results, timeline} {
			rest, dropped := dropPartialLine(data, func([]byte) bool { return false })
			terminated := len(data) == 0 || data[len(data)-1] == '\n'
			if terminated && (dropped != 0 || !bytes.Equal(rest, data)) {
				t.Fatalf("a terminated file lost line %d", dropped)
			}
			if dropped > 0 && (!bytes.HasPrefix(data, rest) || bytes.Contains(data[len(rest):], []byte{'\n'})) {
				t.Fatalf("dropped more than the last line: %q of %q", data[len(rest):], data)
			}
		}
	})
}
