package profiles

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// StepField is one coefficient of StepCoefficients as code that treats
// every coefficient alike sees it (Merge, validation, the step model's
// gradient, calibration). Everything here comes from the field's
// declaration: its yaml key and its coef tag, so that a new coefficient is
// one struct field.
//
// The coef tag is a kind, then options:
//
//	efficiency   a fraction of a peak, in (0, 1]; the fit moves 1/value,
//	             which the step time is linear in, and holds it at 1 or more
//	positive     a factor > 0 (fixed: no fit can tell it apart)
//	overhead     a time or a count, >= 0; the fit holds it at 0 or more
//	optional     an efficiency whose 0 means "unset, take another's"
//	fixed        never fitted
//	api          the API server's, outside any engine step (sim/frontend.go)
//	scale=N      an overhead's typical size: the yardstick of the fit's pull
//	             towards a prior of 0
//	range=LO:HI  the values a fit may give it: the physical range its
//	             declaration's comment argues (an efficiency at most what a
//	             real kernel reaches of the datasheet, a kernel floor at least
//	             what a real launch takes); every fitted coefficient has one
//	parent=KEY   the coefficient of the same kernel on another weight format,
//	             which a fit pulls it towards where the corpus hardly tells
//	             them apart (the FP8 experts' grouped GEMMs' efficiency
//	             towards the 4-bit and bf16 experts')
type StepField struct {
	Key string
	// Kind is "efficiency", "positive" or "overhead".
	Kind     string
	Optional bool
	// Fit is FitStep (a step-time parameter), FitAPI (the API server's) or
	// FitNone.
	Fit   FitRole
	Scale float64
	// Min and Max are the physical range a fit holds the coefficient to
	// (range=; 0, 0: none declared).
	Min, Max float64
	// Parent is the key of the coefficient a fit pulls it towards
	// (parent=; "" for none).
	Parent string
	index  int
}

// FitRole is whether, and as what, a calibration fits a coefficient.
type FitRole int

// The roles: a coefficient of the engine's step time, of the API server's
// time around it, or none.
const (
	FitNone FitRole = iota
	FitStep
	FitAPI
)

// Inverse reports whether a fit moves 1/value (an efficiency, whose time
// is proportional to its inverse) rather than the value.
func (f StepField) Inverse() bool { return f.Kind == "efficiency" }

// Lower is the least value of the fit's parameter: an efficiency's
// inverse is at least 1/Max (an efficiency is at most 1), an overhead at
// least Min (at least 0).
func (f StepField) Lower() float64 {
	if f.Inverse() {
		if f.Max > 0 {
			return 1 / f.Max
		}
		return 1
	}
	return f.Min
}

// Upper is the largest value of the fit's parameter: an efficiency's
// inverse is at most 1/Min, an overhead at most Max (+Inf: no range).
func (f StepField) Upper() float64 {
	if f.Inverse() {
		if f.Min > 0 {
			return 1 / f.Min
		}
		return math.Inf(1)
	}
	if f.Max > 0 {
		return f.Max
	}
	return math.Inf(1)
}

// Value is where the coefficient lives in s.
func (f StepField) Value(s *StepCoefficients) *float64 {
	return reflect.ValueOf(s).Elem().Field(f.index).Addr().Interface().(*float64)
}

// StepFields lists the coefficients in the struct's order.
var StepFields = stepFields()

func stepFields() []StepField {
	t := reflect.TypeFor[StepCoefficients]()
	fields := make([]StepField, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		f, err := parseCoefTag(sf.Tag.Get("coef"))
		if sf.Type.Kind() != reflect.Float64 || err != nil {
			panic(fmt.Sprintf("profiles: StepCoefficients.%s: a coefficient is a float64 with a coef tag: %v", sf.Name, err))
		}
		f.Key, _, _ = strings.Cut(sf.Tag.Get("yaml"), ",")
		f.index = i
		fields[i] = f
	}
	return fields
}

func parseCoefTag(tag string) (StepField, error) {
	parts := strings.Split(tag, ",")
	f := StepField{Kind: parts[0], Fit: FitStep}
	switch f.Kind {
	case "efficiency", "overhead":
	case "positive":
	default:
		return f, fmt.Errorf("kind %q, want efficiency, positive or overhead", f.Kind)
	}
	for _, o := range parts[1:] {
		switch name, val, _ := strings.Cut(o, "="); name {
		case "optional":
			f.Optional = true
		case "fixed":
			f.Fit = FitNone
		case "api":
			f.Fit = FitAPI
		case "range":
			lo, hi, ok := strings.Cut(val, ":")
			a, err1 := strconv.ParseFloat(lo, 64)
			b, err2 := strconv.ParseFloat(hi, 64)
			if !ok || err1 != nil || err2 != nil || a < 0 || b <= a || (f.Kind == "efficiency" && (a <= 0 || b > 1)) {
				return f, fmt.Errorf("range %q", val)
			}
			f.Min, f.Max = a, b
		case "parent":
			f.Parent = val
		case "scale":
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || v <= 0 {
				return f, fmt.Errorf("scale %q", val)
			}
			f.Scale = v
		default:
			return f, fmt.Errorf("option %q", o)
		}
	}
	if f.Kind == "overhead" && f.Fit != FitNone && f.Scale == 0 {
		return f, fmt.Errorf("a fitted overhead needs scale=")
	}
	return f, nil
}

// problem is what is wrong with the coefficient's value v, named key
// (nil when nothing); partial: a --step-model file's, whose 0 means "not
// set".
func (f StepField) problem(key string, v float64, partial bool) error {
	var p checker
	switch {
	case f.Kind == "overhead":
		p.nonNegative(key, v)
	case v == 0 && (partial || f.Optional):
	case f.Kind == "positive":
		p.positive(key, v)
	case !(v > 0 && v <= 1):
		p.addf("%s must be in (0, 1], got %v", key, v)
	}
	return errors.Join(p.errs...)
}
