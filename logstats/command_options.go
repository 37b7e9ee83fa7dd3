package logstats

import (
	"fmt"
	"math"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/workload"
)

// NewStatsOptions are `thinkcap stats`' options from its flags (--tpot,
// --concurrency), checked; every problem is reported, named by its field.
func NewStatsOptions(tpotS float64, concurrency int) (StatsOptions, error) {
	var problems inputerr.List
	if !(tpotS > 0) || math.IsInf(tpotS, 0) {
		problems.Fieldf("TPOTS", "must be a positive number of seconds, got %g", tpotS)
	}
	if concurrency < 1 {
		problems.Fieldf("Concurrency", "must be at least 1, got %d", concurrency)
	}
	if err := problems.Err(); err != nil {
		return StatsOptions{}, err
	}
	return StatsOptions{TPOTS: tpotS, Concurrency: concurrency}, nil
}

// NewDriftOptions are `thinkcap drift`'s options from its flags, given in
// percent (--threshold) and points (--accuracy-tolerance); every problem
// is reported, named by its field.
func NewDriftOptions(thresholdPct float64, minCount int, accuracyTolPts float64) (DriftOptions, error) {
	var problems inputerr.List
	if !(thresholdPct >= 0) || math.IsInf(thresholdPct, 0) {
		problems.Fieldf("Threshold", "must be a non-negative percentage, got %g", thresholdPct)
	}
	if minCount < 0 {
		problems.Fieldf("MinCount", "must not be negative, got %d", minCount)
	}
	if !(accuracyTolPts >= 0 && accuracyTolPts <= 100) {
		problems.Fieldf("AccuracyTolerance", "must be between 0 and 100 points, got %g", accuracyTolPts)
	}
	opts := DriftOptions{Threshold: thresholdPct / 100, MinCount: minCount, AccuracyTolerance: accuracyTolPts / 100}
	return opts, problems.Err()
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
