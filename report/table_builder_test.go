package report

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/logstats/logstatstest"
)

// TestReportWritersWriteErrors: every report writer built on writeReport
// returns a write error wherever in its output the writer fails (in a
// plain line as well as in a table), named for its report, and refuses a
// nil report with that report's message.
func TestReportWritersWriteErrors(t *testing.T) {
	stats := statsOf(logstatstest.StatsLog(), logstats.StatsOptions{})
	drift := logstats.CompareDrift(driftLogOf(logstatstest.DriftClass("low", "chat", 40, 100, 30)),
		driftLogOf(logstatstest.DriftClass("low", "chat", 40, 200, 30)), logstats.DefaultDriftOptions())
	curves := sampleCurves()
	var fitter logstats.TrafficFitter
	reqs := logstatstest.Mixture(t, 2000)
	for i := range reqs {
		fitter.Add(&reqs[i])
	}
	fit, err := fitter.Fit("mix", logstats.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		write    func(io.Writer) error
		writeNil func() error
		nilMsg   string
	}{
		{"write summary table", func(w io.Writer) error { return WriteTable(w, sampleSummary()) },
			func() error { return WriteTable(io.Discard, nil) }, "write summary table: nil summary"},
		{"write stats table", func(w io.Writer) error { return WriteStatsTable(w, &stats) },
			func() error { return WriteStatsTable(io.Discard, nil) }, "write stats table: nil report"},
		{"write drift table", func(w io.Writer) error { return WriteDriftTable(w, &drift) },
			func() error { return WriteDriftTable(io.Discard, nil) }, "write drift table: nil report"},
		{"write curve table", func(w io.Writer) error { return WriteCurveTable(w, &curves) },
			func() error { return WriteCurveTable(io.Discard, nil) }, "write curve table: nil report"},
		{"write fit table", func(w io.Writer) error { return WriteFitTable(w, &fit) },
			func() error { return WriteFitTable(io.Discard, nil) }, "write fit table: nil report"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.writeNil(); err == nil || err.Error() != tt.nilMsg {
				t.Errorf("nil report: %v, want %q", err, tt.nilMsg)
			}
			var full bytes.Buffer
			if err := tt.write(&full); err != nil {
				t.Fatal(err)
			}
			// The first byte, a table's border, and the last line (a plain
			// line in the drift and curve reports).
			for _, n := range []int{0, full.Len() / 2, full.Len() - 1} {
				err := tt.write(&failingWriter{n: n})
				if !errors.Is(err, errDiskFull) || !strings.HasPrefix(err.Error(), tt.name+": ") {
					t.Errorf("writer failing after %d of %d bytes: %v, want %q wrapping %v", n, full.Len(), err, tt.name+": …", errDiskFull)
				}
			}
		})
	}
}
