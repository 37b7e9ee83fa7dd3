package calibrate

// DecodeSpanErrors rebuilds o's batches at its configured coefficients and
// returns, per decode span rebuilt, the relative error of Σ parameter ×
// sensitivity against the span measured.
func DecodeSpanErrors(o *Observation) ([]float64, error) {
	rec, _, err := newReconstruction(o)
	if err != nil {
		return nil, err
	}
	g, err := newStepGradient(o.Config)
	if err != nil {
		return nil, err
	}
	rec.buildClocks(g.base)
	p := ParamsOf(o.Config.Step)
	var errs []float64
	for i, q := range rec.reqs {
		out := make([]float64, len(p))
		if !rec.decodeSpan(i, g, out) {
			continue
		}
		predicted := 0.0
		for k := range p {
			predicted += p[k] * out[k]
		}
		errs = append(errs, (predicted-(q.end-q.first))/(q.end-q.first))
	}
	return errs, nil
}

// HeldOutOf is heldOut: the error on one observation before and after.
var HeldOutOf = heldOut
