package report

import (
	"bytes"
	"testing"

	"github.com/thinkcap/thinkcap/internal/golden"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/logstats/logstatstest"
)

func TestWriteDriftTableGolden(t *testing.T) {
	base := driftLogOf(logstatstest.DriftClass("low", "chat", 40, 100, 30), logstatstest.DriftClass("high", "math", 200, 1000, 140))
	next := driftLogOf(logstatstest.DriftClass("low", "chat", 40, 110, 31), logstatstest.DriftClass("high", "math", 200, 1600, 142),
		logstatstest.DriftClass("medium", "rag", 5, 500, -1))
	for _, tt := range []struct {
		name string
		rep  logstats.DriftReport
	}{
		{"alert", logstats.CompareDrift(base, next, logstats.DefaultDriftOptions())},
		{"quiet", logstats.CompareDrift(base, base, logstats.DefaultDriftOptions())},
	} {
		var buf bytes.Buffer
		if err := WriteDriftTable(&buf, &tt.rep); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "drift_table_"+tt.name+".golden", buf.Bytes())
	}
}
