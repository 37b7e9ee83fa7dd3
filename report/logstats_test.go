package report

import (
	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/logstats/logstatstest"
	"github.com/thinkcap/thinkcap/workload"
)

// The log commands' reports, built from logstatstest's records as
// logstats's own tests build them, for their tables and plots.

func statsOf(reqs []workload.Request, opts logstats.StatsOptions) logstats.StatsReport {
	a := logstats.NewStatsAccumulator(opts)
	for i := range reqs {
		a.Add(&reqs[i])
	}
	return a.Result()
}

func driftLogOf(reqs ...[]workload.Request) *logstats.DriftLog {
	l := logstats.NewDriftLog()
	for _, rs := range reqs {
		for i := range rs {
			l.Add(&rs[i])
		}
	}
	return l
}

// sampleCurves feeds logstatstest.SampleEval in reverse: order must not
// matter.
func sampleCurves() logstats.CurveReport {
	a := logstats.NewCurveAccumulator()
	rows := logstatstest.SampleEval()
	for i := len(rows) - 1; i >= 0; i-- {
		a.Add(&rows[i])
	}
	return a.Result()
}
