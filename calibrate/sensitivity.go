package calibrate

import (
	"github.com/thinkcap/thinkcap/sim"
)

// stepGradient prices a batch's sensitivity to every parameter
// (sim.StepGradient).
type stepGradient struct {
	*sim.StepGradient
	base *sim.StepModel
}

func newStepGradient(cfg sim.Config) (*stepGradient, error) {
	g, err := sim.NewStepGradient(cfg)
	if err != nil {
		return nil, err
	}
	return &stepGradient{g, g.Base()}, nil
}

// add adds weight × the batch's sensitivities (in seconds per unit of each
// parameter) to out.
func (g *stepGradient) add(b *sim.Batch, weight float64, out []float64) { g.Add(b, weight, out) }
