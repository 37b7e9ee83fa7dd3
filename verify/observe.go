package verify

import (
	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Observations are the runs as calibrate fits them, each set up as
// cfgs[i] for runs[i] (by Configure).
func Observations(cfgs []sim.Config, runs []*Run) []calibrate.Observation {
	obs := make([]calibrate.Observation, len(runs))
	for i := range runs {
		obs[i] = Observe(cfgs[i], runs[i])
	}
	return obs
}

// Observe is the run as calibrate fits it: the requests the server
// generated output for, with their timings, the scraped gauges, and a
// replay of the run (Predict) for the held-out error.
func Observe(cfg sim.Config, r *Run) calibrate.Observation {
	o := calibrate.Observation{Name: r.Dir, Config: cfg, Notes: r.State.Notes}
	for i := range r.Results {
		if replayed(&r.Results[i]) {
			o.Requests = append(o.Requests, r.Results[i])
			o.Measured = append(o.Measured, r.Measured[i])
		}
	}
	for _, p := range runTimeline(r.Timeline) {
		o.Timeline = append(o.Timeline, calibrate.Gauge{TimeS: p.TimeS, Waiting: p.Waiting, Preemptions: p.Preemptions})
	}
	o.Predict = func(step profiles.StepCoefficients) (predicted, measured []workload.Result, err error) {
		c := cfg
		c.Step = step
		p, err := Predict(c, r)
		if err != nil {
			return nil, nil, err
		}
		return p.PredictedResults, p.MeasuredResults, nil
	}
	return o
}
