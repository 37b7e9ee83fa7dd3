package calibrate

import (
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Observation is one measured deployment a fit learns from: how it was
// configured and what it measured. A load test's run directory (verify
// builds it) gives every request's timings and the server's scraped
// gauges, from which the fit rebuilds the batches the engine ran
// (Calibrate). A published benchmark (fidelity's corpus builds it) gives
// a load point's aggregates, which the fit compares with replays of its
// workload (AggregateFit).
type Observation struct {
	// Name says where the measurement comes from (a run directory, a
	// corpus record).
	Name string
	// Config is the deployment as the server ran it.
	Config sim.Config
	// Requests are the requests the server generated output for, in issue
	// order, with their measured timings in server time.
	Requests []workload.Result
	// Measured marks the Requests measured (not warm-up): held-out errors
	// are over these, indexed in their order.
	Measured []bool
	// Timeline is the server's scraped state: when requests waited and
	// when preemptions happened (a NaN cell: not exposed).
	Timeline []Gauge
	// Notes are the measurement's own notes (a run that ended early).
	Notes []string
	// Predict replays the measurement at other step coefficients and
	// returns its measured requests' results, predicted and measured,
	// aligned; calibrate uses it for the held-out error.
	Predict func(step profiles.StepCoefficients) (predicted, measured []workload.Result, err error)

	// Deployment names the server set-up the load point ran on: points of
	// one deployment are held out together, and weigh 1/√n each.
	Deployment string
	// Generation is the fit the point belongs to (its GPU's generation).
	Generation string
	// Source is who published the point: a source's points together weigh
	// at most FitSettings.SourceCap of a fit.
	Source string
	// Aggregates are the point's measured figures, those the fit may use
	// only: a metric the measurement cannot be trusted on is left at 0.
	Aggregates Aggregates
	// Weights are how much each metric's relative error counts
	// (AggregateWeights).
	Weights map[string]float64
	// Replay re-simulates the load point at step coefficients and returns
	// the prediction with its gradient.
	Replay func(step profiles.StepCoefficients) (*Trace, error)
	// Simulate is Replay's prediction alone, without the gradient (a
	// third of Replay's time): the cross-validations' new simulations
	// use it. Nil: Replay's.
	Simulate func(step profiles.StepCoefficients) (Aggregates, error)
}

// Gauge is the server's state at one time, as its /metrics showed it.
type Gauge struct {
	TimeS, Waiting, Preemptions float64
}
