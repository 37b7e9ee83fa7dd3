package loadtest

import (
	"fmt"
	"time"

	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// EnsureIDs gives every request an ID: it is the x-request-id header and
// joins result records to requests. Call it before the what-if
// transforms, whose follow-ups name their predecessor's ID.
func EnsureIDs(reqs []workload.Request) {
	for i := range reqs {
		if reqs[i].ID == "" {
			reqs[i].ID = fmt.Sprintf("req-%06d", i+1)
		}
	}
}

// targetRate is the schedule's mean rate in req/s (0 when unknown).
func targetRate(reqs []workload.Request) float64 {
	if len(reqs) < 2 || reqs[len(reqs)-1].ArrivalS <= 0 {
		return 0
	}
	return float64(len(reqs)-1) / reqs[len(reqs)-1].ArrivalS
}

// scheduleSpan is how long the open-loop schedule lasts (to the last
// arrival), capped by --duration; 0 in closed loop.
func scheduleSpan(o *Options) time.Duration {
	if o.Concurrency > 0 {
		return 0
	}
	var last float64
	for i := range o.Requests {
		last = max(last, o.Requests[i].ArrivalS)
	}
	span := time.Duration(last * float64(time.Second))
	if o.Duration > 0 && o.Duration < span {
		span = o.Duration
	}
	return span
}

// measureFrom is when the measured (post-warm-up) part of the run began.
func measureFrom(out *loadgen.Outcome, reqs []workload.Request, w Warmup) time.Time {
	from := out.Start.Add(w.For)
	if w.Requests > 0 && w.Requests < len(reqs) {
		if t := out.Start.Add(time.Duration(reqs[w.Requests].ArrivalS * float64(time.Second))); t.After(from) {
			from = t
		}
	}
	return from
}
