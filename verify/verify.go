package verify

import (
	"sync"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/scenario"
	"github.com/thinkcap/thinkcap/sim"
)

// Outcome is one verification: the run, how the prediction was set up, both
// sides and their comparison. It marshals as verify's JSON.
type Outcome struct {
	Run string `json:"run"`
	// RunState is how the load test ended, with notes when early.
	RunState   RunState            `json:"run_state"`
	TimeScale  float64             `json:"time_scale"`
	Setup      *Setup              `json:"setup"`
	LeftOut    int                 `json:"left_out"`
	Predicted  analysis.Summary    `json:"predicted"`
	Measured   analysis.Summary    `json:"measured"`
	Comparison analysis.Comparison `json:"comparison"`
	// Turns compares a run's sessions turn by turn (absent without).
	Turns      []TurnComparison `json:"turns,omitempty"`
	Prediction *Prediction      `json:"-"`
}

// DefaultMinRequests is the fewest measured requests a verdict rests on:
// below it the p90 and p99 checks are a request or two, and a verdict of
// pass would say nothing.
const DefaultMinRequests = 20

// Verify configures cfg like the run's server (Configure), replays the run
// (Predict) and compares the two sides with the tolerances. Fewer than
// minRequests measured requests compared make the verdict "no data".
func Verify(cfg sim.Config, r *Run, explicit Explicit, tol map[string]float64, minRequests int) (*Outcome, error) {
	setup, err := Configure(&cfg, r, explicit)
	if err != nil {
		return nil, err
	}
	p, err := Predict(cfg, r)
	if err != nil {
		return nil, err
	}
	p.Predicted.Intervals = predictionIntervals(&cfg, p)
	c := analysis.CompareScaled(&p.Predicted, &p.Measured, tol, r.TimeScale)
	c.RequireRequests(len(p.MeasuredResults), minRequests)
	return &Outcome{
		Run: r.Dir, RunState: r.State, TimeScale: r.TimeScale, Setup: setup, LeftOut: p.LeftOut,
		Predicted: p.Predicted, Measured: p.Measured, Comparison: c, Prediction: p,
		Turns: compareTurns(p.PredictedResults, p.MeasuredResults),
	}, nil
}

// modelError is the embedded step model's measured error on the corpus.
var modelError = sync.OnceValue(func() *profiles.ModelError {
	cat, err := profiles.Embedded()
	if err != nil {
		return nil
	}
	return cat.ModelError
})

// predictionIntervals are the prediction's figures at
// scenario.DefaultConfidence widened by the step model's error on real vLLM
// runs in the run's regime. The traffic is the run's own, replayed as
// sent: there is no chance of it to redraw.
func predictionIntervals(cfg *sim.Config, p *Prediction) *analysis.Intervals {
	var prompt, output float64
	for i := range p.PredictedResults {
		r := &p.PredictedResults[i]
		prompt += float64(r.PromptTokens)
		output += float64(r.OutputTokens())
	}
	if n := float64(len(p.PredictedResults)); n > 0 {
		prompt, output = prompt/n, output/n
	}
	reg := scenario.RegimeOf(&p.Predicted, max(cfg.Replicas, 1), prompt, output, false, cfg.GPU.Generation)
	return scenario.ModelIntervals(p.Predicted, nil, 1, modelError(), reg, scenario.DefaultConfidence)
}
