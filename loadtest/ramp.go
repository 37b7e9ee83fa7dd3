package loadtest

import (
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// applyRamp puts an open loop's schedule on --ramp-up's ramp (a copy: the
// caller's requests are kept) and leaves the ramp's requests out of the
// statistics, as warm-up: a ramp is how a server is brought up to the
// load, not the load.
func (o *Options) applyRamp() {
	r := o.RampUp
	if r == nil {
		return
	}
	if o.Concurrency == 0 {
		o.Requests = append([]workload.Request(nil), o.Requests...)
		workload.ApplyRamp(o.Requests, *r)
	}
	o.Warmup.For = max(o.Warmup.For, r.Duration)
}

// workerStart is a closed loop's ramp: when each worker starts.
func (o *Options) workerStart() func(int) time.Duration {
	if o.RampUp == nil || o.Concurrency == 0 {
		return nil
	}
	r, c := *o.RampUp, o.Concurrency
	return func(k int) time.Duration { return r.WorkerStart(k, c) }
}
