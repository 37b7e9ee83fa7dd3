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
	logstatstest.Feed(a, reqs)
	return a.Result()
}

func driftLogOf(reqs ...[]workload.Request) *logstats.DriftLog {
	l := logstats.NewDriftLog()
	logstatstest.Feed(l, reqs...)
	return l
}

// sampleCurves feeds logstatstest.SampleEval in reverse: order must not
// matter.
func sampleCurves() logstats.CurveReport {
	a := logstats.NewCurveAccumulator()
	logstatstest.Feed(a, logstatstest.SampleEvalReversed())
	return a.Result()
}
