package logstats

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/thinkcap/thinkcap/workload"
)

// Distribution families Fit chooses between.
const (
	FamilyConstant  = "constant"
	FamilyLognormal = "lognormal"
	FamilyGamma     = "gamma"
	FamilyEmpirical = "empirical"
)

// DefaultSpikeMinMass is the share of a sample that one value at the
// sample's maximum or at 0 must hold for Fit to keep it as a spike.
const DefaultSpikeMinMass = 0.02

// minParametricN is the smallest sample Fit fits a family to; a smaller one
// gets its quantile table, since neither a family choice nor a spike can be
// told from noise in fewer values.
const minParametricN = 20

// FitOptions tunes Fit. The zero value gives the defaults.
type FitOptions struct {
	// SpikeMinMass is the share of the sample a value at the maximum (the
	// cap: requests cut at max_tokens or a thinking budget) or at 0
	// (thinking off) must hold, in at least two values, to become a spike;
	// 0 means DefaultSpikeMinMass and 1 turns spikes off.
	SpikeMinMass float64
}

func (o FitOptions) spikeMinMass() (float64, error) {
	m := o.SpikeMinMass
	switch {
	case m == 0:
		return DefaultSpikeMinMass, nil
	case m > 0 && m <= 1:
		return m, nil
	}
	return 0, fmt.Errorf("spike minimum mass: want a fraction in (0, 1], got %v", m)
}

// Spike is a value that holds a share of a sample on its own.
type Spike struct {
	Value float64 `json:"value"`
	// Mass is the value's share of the whole sample.
	Mass float64 `json:"mass"`
	// Kind is "cap" for the sample's maximum, "zero" for 0.
	Kind string `json:"kind"`
	// SpecMass is the spike's own mass in FitResult.Spec. For the cap it is
	// Mass less what the body's tail, clamped at the cap, puts there (0 when
	// the tail accounts for it all); for 0 it is Mass.
	SpecMass float64 `json:"spec_mass"`
}

// Candidate is one family fitted to the body of a sample.
type Candidate struct {
	Family string `json:"family"`
	// Spec is the body's workload distribution spec, without spikes.
	Spec string `json:"spec"`
	// KS is the Kolmogorov–Smirnov distance between the body of the sample
	// and what Spec generates (see Fit).
	KS     float64            `json:"ks"`
	Params map[string]float64 `json:"params"`

	dist workload.Dist
	tail float64 // the body's mass clamped onto the cap, when there is one
}

// FitResult is the fit of one sample.
type FitResult struct {
	// Family is the chosen candidate's family, or FamilyConstant.
	Family string             `json:"family"`
	Params map[string]float64 `json:"params"`
	// Spec is the whole distribution, spikes included, as a workload spec
	// in canonical form: workload.ParseDist accepts it.
	Spec string `json:"spec"`
	// KS is the chosen candidate's distance to the body.
	KS float64 `json:"ks"`
	// Candidates are every family that could be fitted, closest first
	// (Family may be the second: see Fit).
	Candidates []Candidate `json:"candidates"`
	Spikes     []Spike     `json:"spikes"`
	// N is the sample size, BodyN the values left once spikes are removed.
	N     int `json:"n"`
	BodyN int `json:"body_n"`
}

// Fit fits a distribution of token counts to values and returns it as a
// workload spec.
//
// First the spikes: the maximum, when at least SpikeMinMass of the values
// (and two of them) equal it, is the cap spike of requests cut at max_tokens
// or a thinking budget; 0, likewise, is the spike of requests with thinking
// off. Spikes keep their own mass and leave the body. Then three candidates
// are fitted to the body:
//   - lognormal, by maximum likelihood: the mean and standard deviation of
//     the logs;
//   - gamma, by maximum likelihood: the shape solves ln k − ψ(k) =
//     ln(mean) − mean(ln x), the scale is mean/k. Likelihood rather than the
//     method of moments, because the sample variance of a long tail rests on
//     its few largest values;
//   - empirical: the sample's quantile table (EmpiricalPercentiles).
//
// Lognormal and gamma are fitted to the positive values only (a log of 0 is
// undefined); zeros that are no spike still count against them in the KS
// distance. Fit picks the candidate with the smallest Kolmogorov–Smirnov
// distance D = sup |F_n − G|, computed exactly (at every jump of either
// function) between the body's empirical distribution F_n and the
// distribution G of the whole-token samples the candidate's spec generates
// (workload.CDF), each candidate built from its printed, rounded parameters.
// The empirical table is built from the sample itself, so it must beat the
// closest family by more than 0.7/√n (about the KS noise of n values) to be
// chosen: at equal closeness two parameters generalise better than 21.
//
// With a cap spike, lognormal and gamma bodies get max=CAP, so that their
// tails cannot run past the cap; their KS distance is then measured against
// the body's distribution below the cap, and the spec's cap spike is reduced
// by the tail the clamp puts on the cap, so that the total mass at the cap
// matches the sample.
//
// A sample of fewer than 20 values gets its quantile table, no spikes; a
// sample of equal values (or a body of equal values) is a constant. Values
// must be finite, non-negative and at most workload.MaxTokens; an empty
// sample is an error. values is not modified.
func Fit(values []float64, opt FitOptions) (FitResult, error) {
	minMass, err := opt.spikeMinMass()
	if err != nil {
		return FitResult{}, err
	}
	if err := checkValues(values); err != nil {
		return FitResult{}, err
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return fitSorted(sorted, minMass)
}

// checkValues rejects what no token count distribution can fit.
func checkValues(values []float64) error {
	if len(values) == 0 {
		return errors.New("fit: no values")
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > workload.MaxTokens {
			return fmt.Errorf("fit: value %d is %v: want a finite number in [0, %d]", i+1, v, workload.MaxTokens)
		}
	}
	return nil
}

// fitSorted is Fit on a sorted, checked sample.
func fitSorted(sorted []float64, minMass float64) (FitResult, error) {
	n := len(sorted)
	res := FitResult{N: n, Spikes: []Spike{}}
	if n < minParametricN {
		return finish(res, sorted, nil, capNone, sorted[0] == sorted[n-1])
	}
	body, capV := splitSpikes(sorted, minMass, &res)
	if body[0] == body[len(body)-1] {
		return finish(res, body, nil, capV, true)
	}
	var cands []Candidate
	for _, fit := range []func([]float64, float64) (Candidate, bool){fitLognormal, fitGamma, fitEmpirical} {
		c, ok := fit(body, capV)
		if !ok {
			continue
		}
		c.KS, c.tail = bodyKS(body, c.dist, capV)
		cands = append(cands, c)
	}
	// Best first; on a tie the earlier, smoother family wins.
	slices.SortStableFunc(cands, func(a, b Candidate) int {
		return cmp.Compare(a.KS, b.KS)
	})
	return finish(res, body, cands, capV, false)
}

// tableMargin scales the lead, in units of 1/√n, by which the empirical
// table must beat the closest family. At 0.7 a sample of a true lognormal or
// gamma keeps its family 97–100% of the time from 300 values on (measured
// over 100 seeds each), while a shape no family has (a lognormal shifted by
// a shared prompt prefix) is left to the table.
const tableMargin = 0.7

// chooseCandidate picks the candidate Fit reports: the closest, except that
// the empirical table must beat the closest family by more than
// tableMargin/√n. The table is built from the sample's own quantiles, so it
// is close to that sample by construction, by about the KS noise of n
// values; a family within that noise describes the sample as well with two
// parameters, and extrapolates its tail instead of stopping at the largest
// value seen.
func chooseCandidate(cands []Candidate, n int) Candidate {
	best := cands[0]
	if best.Family != FamilyEmpirical {
		return best
	}
	margin := tableMargin / math.Sqrt(float64(n))
	for _, c := range cands[1:] {
		if c.Family != FamilyEmpirical && c.KS <= best.KS+margin {
			return c
		}
	}
	return best
}

// capNone marks a sample without a cap spike.
const capNone = -1

// splitSpikes moves the zero and cap spikes of sorted into res.Spikes and
// returns the body and the cap's value (capNone without one). The body is
// never empty: when only the two spikes' values occur, the larger value is
// the body.
func splitSpikes(sorted []float64, minMass float64, res *FitResult) ([]float64, float64) {
	n := len(sorted)
	zeros := 0
	for zeros < n && sorted[zeros] == 0 {
		zeros++
	}
	top := sorted[n-1]
	atTop := 0
	for atTop < n && sorted[n-1-atTop] == top {
		atTop++
	}
	isSpike := func(count int) bool { return count >= 2 && float64(count) >= minMass*float64(n) }
	lo, hi, capV := 0, n, float64(capNone)
	if zeros < n && isSpike(zeros) {
		lo = zeros
		res.Spikes = append(res.Spikes, Spike{Value: 0, Mass: float64(zeros) / float64(n), Kind: "zero"})
	}
	if top > 0 && isSpike(atTop) && n-atTop > lo {
		hi, capV = n-atTop, top
		res.Spikes = append(res.Spikes, Spike{Value: top, Mass: float64(atTop) / float64(n), Kind: "cap"})
	}
	return sorted[lo:hi], capV
}

// finish fills res from the chosen candidate (the first) or, when constant
// is set or no candidate could be fitted, from the body's value or quantile
// table, and writes the spec with its spikes.
func finish(res FitResult, body []float64, cands []Candidate, capV float64, constant bool) (FitResult, error) {
	res.BodyN = len(body)
	res.Candidates = cands
	if res.Candidates == nil {
		res.Candidates = []Candidate{}
	}
	var chosen Candidate
	switch {
	case constant:
		v := math.Round(body[0])
		chosen = Candidate{Family: FamilyConstant, Spec: "constant:" + strconv.FormatFloat(v, 'f', -1, 64),
			Params: map[string]float64{"value": v}}
		chosen.dist = workload.Constant(int(v))
		chosen.KS, _ = bodyKS(body, chosen.dist, capNone)
	case len(cands) == 0:
		c, ok := fitEmpirical(body, capNone)
		if !ok {
			return FitResult{}, errors.New("fit: no candidate fits the sample")
		}
		c.KS, c.tail = bodyKS(body, c.dist, capNone)
		res.Candidates = []Candidate{c}
		chosen = c
	default:
		chosen = chooseCandidate(cands, len(body))
	}
	res.Family, res.Params, res.KS = chosen.Family, chosen.Params, chosen.KS

	spec := chosen.Spec
	n := float64(res.N)
	bodyMass := float64(res.BodyN) / n
	for i := range res.Spikes {
		sp := &res.Spikes[i]
		mass := sp.Mass
		if sp.Kind == "cap" {
			// The body's clamped tail already lands on the cap: with
			// spike mass s and zero mass z, the cap gets
			// s + (1 − z − s)·tail, which must equal the observed mass, so
			// 1 − z − s = body/(1 − tail).
			zero := 1 - bodyMass - sp.Mass
			mass = 1 - zero - bodyMass/(1-chosen.tail)
			if !(mass*n >= 0.5) { // less than one request's worth: the clamp covers it
				continue
			}
		}
		sp.SpecMass = roundSig(mass)
		spec += ",spike=" + strconv.FormatFloat(sp.Value, 'f', -1, 64) + "@" + formatSig(mass)
	}
	d, err := workload.ParseDist(spec)
	if err != nil {
		return FitResult{}, fmt.Errorf("fit: %w", err) // a bug: every part was checked
	}
	res.Spec = d.String()
	return res, nil
}

// formatSig formats x with six significant digits, the shortest way: a
// spec needs no more, and the KS distance is computed from the rounded
// value.
func formatSig(x float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// roundSig rounds x to six significant digits, as formatSig prints it.
func roundSig(x float64) float64 {
	r, _ := strconv.ParseFloat(formatSig(x), 64)
	return r
}
