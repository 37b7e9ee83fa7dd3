package calibrate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// Calibration is a fit of the step-time coefficients to measured runs.
type Calibration struct {
	// Before is the coefficients the fit started from (the GPU profile's,
	// with any --step-model); After the fitted ones.
	Before profiles.StepCoefficients `json:"before"`
	After  profiles.StepCoefficients `json:"after"`
	// Fitted names the coefficients fitted; Kept those asked for but kept
	// at Before because the runs cannot tell them apart (why, per name).
	Fitted []string          `json:"fitted"`
	Kept   map[string]string `json:"kept,omitempty"`
	// APIOverheadS is, per run, the median time TTFT had beyond the engine's
	// steps (HTTP, tokenisation, the network), in server time, over the
	// requests scheduled on arrival: what the step model cannot have.
	APIOverheadS map[string]float64 `json:"api_overhead_s"`
	Iterations   int                `json:"iterations"`
	// Requests is how many measured decode spans the fit used.
	Requests int `json:"requests"`
	// HeldOut is the error on data the fit did not see: each run fitted on
	// the others, or, with one run, half its requests fitted on the other.
	HeldOut []HeldOut `json:"held_out"`
	// Improved is true when the held-out error fell (see improved); a
	// calibration that does not improve it is not written by default.
	Improved bool `json:"improved"`
	// Warning says why the calibration is not an improvement.
	Warning string `json:"warning,omitempty"`
	// Notes are the runs' notes: those that ended early, partial lines.
	Notes []string `json:"notes,omitempty"`
}

// HeldOut is the prediction error on one held-out set before and after
// calibration.
type HeldOut struct {
	Run string `json:"run"`
	// Split is true when the held-out set is half a run's requests (one run
	// given): the odd ones, predicted by a fit of the even ones.
	Split bool `json:"split,omitempty"`
	// Skipped says why the run could not be held out (the others alone
	// were too few to fit).
	Skipped  string `json:"skipped,omitempty"`
	Requests int    `json:"requests"`
	Before   MAPE   `json:"before"`
	After    MAPE   `json:"after"`
}

// MAPE is the mean absolute percentage error of per-request latencies, as
// fractions.
type MAPE struct {
	TTFT float64 `json:"ttft"`
	TPOT float64 `json:"tpot"`
	E2E  float64 `json:"e2e"`
}

// Calibration limits: iterations of the fit, the parameter change
// (relative) that counts as converged, and the fewest decode spans a fit
// takes.
const (
	maxIterations = 12
	converged     = 1e-3
	minSpans      = 20
)

// errTooFew is a fit without enough data.
var errTooFew = errors.New("calibrate: too few requests to fit")

func runNames(obs []Observation, use []int) string {
	names := make([]string, len(use))
	for k, i := range use {
		names[k] = obs[i].Name
	}
	return strings.Join(names, ", ")
}

// Calibrate fits the coefficients named in fit (DefaultFit when empty) to
// the observed runs, each set up as its Config. The data are
// the measured requests' decode spans, first token to last: a sum of the
// engine steps the request decoded in, each a roofline whose terms are
// linear in the parameters (see coefficient), over batches rebuilt from
// every request's measured timings (see reconstruction); the prefill chunks
// that shared those steps carry the compute terms. The fit is least squares
// on relative errors. TTFT is not fitted: it adds the API server's own time
// (HTTP, tokenisation, which grows with the prompt), which the step model
// does not have and which would pass for slow prefill; its median is
// reported, and TTFT is in the held-out error, measured with full replays.
//
// progress, if set, is told of the fits done (the fit on every run, then
// one per held-out fold).
func Calibrate(obs []Observation, fit []string, progress func(done, total int)) (*Calibration, error) {
	if len(obs) == 0 {
		return nil, errors.New("calibrate: no runs to fit")
	}
	folds := len(obs) // one held-out fold per run (one run: its odd half)
	report := func(done int) {
		if progress != nil {
			progress(done, 1+folds)
		}
	}
	if len(fit) == 0 {
		fit = DefaultFit
	}
	free, err := ParseNames(fit, profiles.FitStep)
	if err != nil {
		return nil, inputerr.Field("Fit", err)
	}
	all := make([]int, len(obs))
	for i := range obs {
		all[i] = i
	}
	c, err := fitRuns(obs, all, free, nil)
	if err != nil {
		return nil, err
	}
	for _, o := range obs {
		for _, n := range o.Notes {
			c.Notes = append(c.Notes, o.Name+": "+n)
		}
	}
	defer c.judge()
	report(1)
	// Held out: each run against a fit of the others; one run: its odd
	// requests against a fit of its even ones.
	if len(obs) == 1 {
		half, err := fitRuns(obs, all, free, evenRequests)
		if err != nil {
			return nil, err
		}
		h, err := heldOut(&obs[0], c.Before, half.After, oddRequests)
		if err != nil {
			return nil, err
		}
		h.Split = true
		c.HeldOut = append(c.HeldOut, h)
		report(2)
		return c, nil
	}
	for j := range obs {
		var others []int
		for i := range obs {
			if i != j {
				others = append(others, i)
			}
		}
		part, err := fitRuns(obs, others, free, nil)
		report(2 + j)
		if errors.Is(err, errTooFew) {
			c.HeldOut = append(c.HeldOut, HeldOut{Run: obs[j].Name, Skipped: err.Error()})
			continue
		}
		if err != nil {
			return nil, err
		}
		h, err := heldOut(&obs[j], c.Before, part.After, nil)
		if err != nil {
			return nil, err
		}
		c.HeldOut = append(c.HeldOut, h)
	}
	return c, nil
}

// requestFilter picks the requests of a run a fit or an evaluation uses, by
// their index among the run's measured, replayed requests.
type requestFilter func(i int) bool

func evenRequests(i int) bool { return i%2 == 0 }
func oddRequests(i int) bool  { return i%2 == 1 }

// heldOut measures the error on a run (its requests pick chooses) with the
// coefficients before and after.
func heldOut(o *Observation, before, after profiles.StepCoefficients, pick requestFilter) (HeldOut, error) {
	h := HeldOut{Run: o.Name}
	for _, side := range []struct {
		step profiles.StepCoefficients
		dst  *MAPE
	}{{before, &h.Before}, {after, &h.After}} {
		pred, meas, err := o.Predict(side.step)
		if err != nil {
			return h, err
		}
		*side.dst, h.Requests = mape(pred, meas, pick)
	}
	return h, nil
}

// mape is the mean absolute percentage error of TTFT, TPOT and E2E over the
// picked requests that completed on both sides.
func mape(pred, meas []workload.Result, pick requestFilter) (MAPE, int) {
	var m MAPE
	var n, nTPOT float64
	ape := func(p, v float64) float64 { return math.Abs(p-v) / v }
	for i := range meas {
		if pick != nil && !pick(i) {
			continue
		}
		p, v := &pred[i], &meas[i]
		if !p.OK() || !v.OK() || v.TTFTS <= 0 || v.E2ES <= 0 {
			continue
		}
		n++
		m.TTFT += ape(p.TTFTS, v.TTFTS)
		m.E2E += ape(p.E2ES, v.E2ES)
		if v.TPOTS > 0 {
			nTPOT++
			m.TPOT += ape(p.TPOTS, v.TPOTS)
		}
	}
	if n > 0 {
		m.TTFT /= n
		m.E2E /= n
	}
	if nTPOT > 0 {
		m.TPOT /= nTPOT
	}
	return m, int(n)
}

// judge sets Improved and Warning from the held-out error. The fit targets
// the decode spans, so it is judged on what they make, the TPOT and E2E
// errors (TTFT adds the API server's own time, which no coefficient has):
// the geometric mean over the held-out sets and both metrics of the error
// after over the error before must be below 1. A ratio weighs each set and
// metric alike, so that one set's outlying error (a TPOT of a request whose
// tokens came in one chunk) cannot hide the others getting worse. Without
// a held-out set there is nothing to judge it by, which is no improvement
// either.
func (c *Calibration) judge() {
	logSum, n, sets := 0.0, 0, 0
	for _, h := range c.HeldOut {
		if h.Skipped != "" || h.Requests == 0 {
			continue
		}
		sets++
		for _, ba := range [][2]float64{{h.Before.TPOT, h.After.TPOT}, {h.Before.E2E, h.After.E2E}} {
			before, after := ba[0], ba[1]
			if before == 0 && after == 0 {
				continue // nothing to improve, nothing lost
			}
			logSum += math.Log(after / before) // +Inf when the fit lost an exact prediction
			n++
		}
	}
	ratio := math.Exp(logSum / float64(max(n, 1)))
	switch {
	case sets == 0:
		c.Improved, c.Warning = false, "no held-out set could be predicted: nothing shows the calibration improves on the coefficients it started from"
	case n > 0 && ratio < 1:
		c.Improved, c.Warning = true, ""
	default:
		c.Improved = false
		c.Warning = fmt.Sprintf("the calibration does not improve the held-out error: the TPOT and E2E errors after are %s (geometric mean over %d held-out sets)",
			ratioWords(ratio), sets)
	}
}

// ratioWords says how the errors after compare with those before.
func ratioWords(r float64) string {
	if math.IsInf(r, 1) {
		return "above zero where they were zero before"
	}
	return fmt.Sprintf("%.3g× those before", r)
}
