package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
)

// A Param is one coefficient a fit moves, as profiles.StepFields declares
// it: the step model's (sim.StepParams) first, then the API server's, which
// add to the client's TTFT outside any engine step.
type Param = profiles.StepField

// Params are every fittable coefficient, the step model's first (in
// sim.StepParams' order, so that a step gradient fills their prefix) and
// the API server's after them.
var Params = func() []Param {
	var step, api []Param
	for _, f := range profiles.StepFields {
		switch f.Fit {
		case profiles.FitStep:
			step = append(step, f)
		case profiles.FitAPI:
			api = append(api, f)
		}
	}
	return append(step, api...)
}()

// NStep is how many of Params are the step model's.
var NStep = slices.IndexFunc(Params, func(p Param) bool { return p.Fit != profiles.FitStep })

// Index is the position of the coefficient named key in Params, or -1.
func Index(key string) int {
	return slices.IndexFunc(Params, func(p Param) bool { return p.Key == key })
}

// ParamsOf is s as fit parameters, in Params' order: an efficiency's
// inverse (the step time is proportional to it), an overhead itself.
func ParamsOf(s profiles.StepCoefficients) []float64 {
	out := make([]float64, len(Params))
	for k, p := range Params {
		v := *p.Value(&s)
		if p.Inverse() && v > 0 {
			v = 1 / v
		}
		out[k] = v
	}
	return out
}

// WithParams is s with the fit parameters x (Params' order) set.
func WithParams(s profiles.StepCoefficients, x []float64) profiles.StepCoefficients {
	for k, p := range Params {
		v := x[k]
		if p.Inverse() && v > 0 {
			v = 1 / v
		}
		*p.Value(&s) = v
	}
	return s
}

// bounds are the parameters' least and largest values: their physical
// ranges (Param.Lower, Param.Upper), or where not physical only an
// efficiency at most 1 (its inverse at least 1) and an overhead at least 0.
func bounds(physical bool) (lower, upper []float64) {
	lower, upper = make([]float64, len(Params)), make([]float64, len(Params))
	for k, p := range Params {
		switch {
		case physical:
			lower[k], upper[k] = p.Lower(), p.Upper()
		case p.Inverse():
			lower[k], upper[k] = 1, math.Inf(1)
		default:
			lower[k], upper[k] = 0, math.Inf(1)
		}
	}
	return lower, upper
}

// parents is each parameter's parent's index in Params (Param.Parent),
// -1 for none.
var parents = func() []int {
	out := make([]int, len(Params))
	for k, p := range Params {
		out[k] = -1
		if p.Parent != "" {
			out[k] = Index(p.Parent)
			if out[k] < 0 {
				panic("calibrate: " + p.Key + "'s parent " + p.Parent + " is not a fitted coefficient")
			}
		}
	}
	return out
}()

// ParseNames marks the coefficients named (flag values) among Params of
// the roles given; an unknown name is an error listing the valid ones.
func ParseNames(names []string, roles ...profiles.FitRole) ([]bool, error) {
	marked := make([]bool, len(Params))
	for _, n := range names {
		n = strings.TrimSpace(n)
		k := Index(n)
		if k < 0 || !slices.Contains(roles, Params[k].Fit) {
			return nil, fmt.Errorf("unknown coefficient %q (valid: %s)", n, validNames(roles))
		}
		marked[k] = true
	}
	return marked, nil
}

// CheckHold checks the names of coefficients held at the profile's value
// (calibrate --hold), reporting every unknown one.
func CheckHold(names []string) error {
	var problems inputerr.List
	for _, h := range names {
		if _, err := ParseNames([]string{h}, profiles.FitStep, profiles.FitAPI); err != nil {
			problems.Field("Hold", err)
		}
	}
	return problems.Err()
}

// validNames lists the coefficients of the roles, sorted and comma-separated.
func validNames(roles []profiles.FitRole) string {
	var names []string
	for _, p := range Params {
		if slices.Contains(roles, p.Fit) {
			names = append(names, p.Key)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
