package calibrate

import (
	"fmt"
	"os"
	"strconv"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
)

// Digits is how many significant digits a fitted coefficient keeps: each
// fit stops once its parameters (run directories) or predictions (the
// corpus) move by less than a few tenths of a percent, so a fourth digit
// is the last one it determines; more would be noise written as if it
// were measured.
const Digits = 4

// Round is v to digits significant digits.
func Round(v float64, digits int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// rounded is s with the coefficients keep marks (every one when keep is
// nil) rounded to Digits.
func rounded(s profiles.StepCoefficients, keep func(key string) bool) profiles.StepCoefficients {
	for _, f := range profiles.StepFields {
		if keep == nil || keep(f.Key) {
			v := f.Value(&s)
			*v = Round(*v, Digits)
		}
	}
	return s
}

// StepModelFile is a --step-model file of s (every key, in the struct's
// order) under a head comment saying what it was fitted to.
func StepModelFile(s profiles.StepCoefficients, head string) ([]byte, error) {
	return profiles.EncodeStepCoefficients(s, head)
}

// StepFitsFile is fits as a profiles file (a step_fits: list, as
// profiles/data/step-fit.yaml) under a head comment giving their
// provenance, every coefficient rounded to Digits.
func StepFitsFile(fits []profiles.StepFit, head string) ([]byte, error) {
	if len(fits) == 0 {
		return nil, fmt.Errorf("no step fits to write")
	}
	out := make([]profiles.StepFit, len(fits))
	for i, f := range fits {
		f.Step = rounded(f.Step, nil)
		out[i] = f
	}
	return profiles.EncodeYAML(struct {
		StepFits []profiles.StepFit `yaml:"step_fits"`
	}{out}, head)
}

// WriteFile writes a fit's file to path (--out): a path that cannot be
// written is the user's input error.
func WriteFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return inputerr.Field("Out", err)
	}
	return nil
}
