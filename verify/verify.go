package verify

import (
	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
)

// Outcome is one verification: the run, how the prediction was set up, both
// sides and their comparison. It marshals as verify's JSON.
type Outcome struct {
	Run        string              `json:"run"`
	TimeScale  float64             `json:"time_scale"`
	Setup      *Setup              `json:"setup"`
	LeftOut    int                 `json:"left_out"`
	Predicted  analysis.Summary    `json:"predicted"`
	Measured   analysis.Summary    `json:"measured"`
	Comparison analysis.Comparison `json:"comparison"`
	Prediction *Prediction         `json:"-"`
}

// Verify configures cfg like the run's server (Configure), replays the run
// (Predict) and compares the two sides with the tolerances.
func Verify(cfg sim.Config, r *Run, explicit Explicit, tol map[string]float64) (*Outcome, error) {
	setup, err := Configure(&cfg, r, explicit)
	if err != nil {
		return nil, err
	}
	p, err := Predict(cfg, r)
	if err != nil {
		return nil, err
	}
	return &Outcome{
		Run: r.Dir, TimeScale: r.TimeScale, Setup: setup, LeftOut: p.LeftOut,
		Predicted: p.Predicted, Measured: p.Measured,
		Comparison: analysis.CompareScaled(&p.Predicted, &p.Measured, tol, r.TimeScale),
		Prediction: p,
	}, nil
}
