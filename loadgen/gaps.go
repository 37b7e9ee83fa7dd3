package loadgen

import "github.com/thinkcap/thinkcap/internal/histogram"

// GapHistogram collects every inter-token gap of a run, across all
// streams, in constant memory and without a lock (a log-linear histogram
// with atomic counters, about 1% resolution). It gives the run's ITL
// distribution, which per-request summaries cannot.
type GapHistogram = histogram.AtomicDurations

// GapCounts is a GapHistogram as written to the run directory
// (ITLGapsFile): its non-empty buckets, its count and its exact sum, so
// that the shards of a load test merge into the histogram one run would
// have had.
type GapCounts = histogram.Counts

// ITLGapsFile is the run directory's inter-token gap histogram.
const ITLGapsFile = "itl_gaps.json"
