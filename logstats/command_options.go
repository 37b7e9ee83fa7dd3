package logstats

import (
	"errors"
	"fmt"
	"math"

	"github.com/thinkcap/thinkcap/workload"
)

// NewStatsOptions are `thinkcap stats`' options from its flags (--tpot,
// --concurrency), checked; the first problem is named by its flag.
func NewStatsOptions(tpotS float64, concurrency int) (StatsOptions, error) {
	if !(tpotS > 0) || math.IsInf(tpotS, 0) {
		return StatsOptions{}, fmt.Errorf("--tpot must be a positive number of seconds, got %g", tpotS)
	}
	if concurrency < 1 {
		return StatsOptions{}, fmt.Errorf("--concurrency must be at least 1, got %d", concurrency)
	}
	return StatsOptions{TPOTS: tpotS, Concurrency: concurrency}, nil
}

// NewDriftOptions are `thinkcap drift`'s options from its flags, given in
// percent (--threshold) and points (--accuracy-tolerance); every problem
// is reported, named by its flag.
func NewDriftOptions(thresholdPct float64, minCount int, accuracyTolPts float64) (DriftOptions, error) {
	var errs []error
	if !(thresholdPct >= 0) || math.IsInf(thresholdPct, 0) {
		errs = append(errs, fmt.Errorf("--threshold must be a non-negative percentage, got %g", thresholdPct))
	}
	if minCount < 0 {
		errs = append(errs, fmt.Errorf("--min-count must not be negative, got %d", minCount))
	}
	if !(accuracyTolPts >= 0 && accuracyTolPts <= 100) {
		errs = append(errs, fmt.Errorf("--accuracy-tolerance must be between 0 and 100 points, got %g", accuracyTolPts))
	}
	opts := DriftOptions{Threshold: thresholdPct / 100, MinCount: minCount, AccuracyTolerance: accuracyTolPts / 100}
	return opts, errors.Join(errs...)
}

// Verdict is nil without alerts, else the error of a failed check (a
// command exits 1 on it: not bad input, the check ran and failed).
func (r *DriftReport) Verdict() error {
	if n := len(r.Alerts); n > 0 {
		return fmt.Errorf("drift: %d cost regression alert(s); first: %s", n, r.Alerts[0].Message)
	}
	return nil
}

// ReadCurve reads the eval file at path and computes its curves.
func ReadCurve(path string) (CurveReport, error) {
	rows, err := workload.ReadEvalFile(path)
	if err != nil {
		return CurveReport{}, err
	}
	acc := NewCurveAccumulator()
	for i := range rows {
		acc.Add(&rows[i])
	}
	return acc.Result(), nil
}
