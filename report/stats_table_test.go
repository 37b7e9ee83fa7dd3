package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/golden"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/logstats/logstatstest"
)

func TestWriteStatsTableGolden(t *testing.T) {
	rep := statsOf(logstatstest.StatsLog(), logstats.StatsOptions{})
	var buf bytes.Buffer
	if err := WriteStatsTable(&buf, &rep); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "stats_table.golden", buf.Bytes())
	if err := WriteStatsTable(&failingWriter{n: 100}, &rep); err == nil {
		t.Error("write error not returned")
	}
	if err := WriteStatsTable(&buf, nil); err == nil {
		t.Error("nil report accepted")
	}
}

// TestWriteStatsTableFailed: result records that failed are named by
// status under the table, not summarised.
func TestWriteStatsTableFailed(t *testing.T) {
	got := statsOf(logstatstest.StatsLog(), logstats.StatsOptions{})
	got.Failed = map[string]int{"http_error": 2, "timeout": 1, "cancelled": 2}
	var buf bytes.Buffer
	if err := WriteStatsTable(&buf, &got); err != nil {
		t.Fatal(err)
	}
	if want := "failed: 5 not summarised (cancelled 2, http_error 2, timeout 1)\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, buf.String())
	}
}
