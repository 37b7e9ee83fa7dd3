package report

import (
	"bytes"
	"testing"

	"github.com/thinkcap/thinkcap/internal/golden"
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/logstats/logstatstest"
)

func TestWriteCurveTableGolden(t *testing.T) {
	rep := sampleCurves()
	var buf bytes.Buffer
	if err := WriteCurveTable(&buf, &rep); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "curve_table.golden", buf.Bytes())
	if err := WriteCurveTable(&failingWriter{n: 50}, &rep); err == nil {
		t.Error("write error not returned")
	}
}

// TestWriteCurveTableNoKnee: a curve still rising at its largest budget is
// said to have no knee within the tested budgets, and no row is marked as
// the knee; a curve that flattens has its knee marked.
func TestWriteCurveTableNoKnee(t *testing.T) {
	for _, tt := range logstatstest.NoKneeCurves() {
		t.Run(tt.Name, func(t *testing.T) {
			a := logstats.NewCurveAccumulator()
			for _, r := range tt.Rows {
				for i := range r {
					a.Add(&r[i])
				}
			}
			rep := a.Result()
			var buf bytes.Buffer
			if err := WriteCurveTable(&buf, &rep); err != nil {
				t.Fatal(err)
			}
			said := bytes.Contains(buf.Bytes(), []byte("no knee within the tested budgets"))
			marked := bytes.Contains(buf.Bytes(), []byte("<- knee"))
			if said != tt.NoKnee || marked == tt.NoKnee {
				t.Errorf("table says no knee %v, marks a knee %v; want no knee %v:\n%s", said, marked, tt.NoKnee, buf.String())
			}
		})
	}
}
