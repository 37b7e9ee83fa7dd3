// Package calibrate fits the step-time coefficients to measurements: one
// parameter list (the step model's coefficients and the API server's,
// Params, derived from profiles.StepCoefficients' declaration), one solver
// (Solver: bounded least squares on relative errors), one writer of fitted
// coefficients (StepModelFile, StepFitsFile), and the calibration of load
// test run directories (Calibrate, from Observations that verify builds).
//
// The corpus fit (`thinkcap calibrate --corpus`) builds its rows by
// re-simulating the corpus's load points (package fidelity) and solves
// them here, with the same parameters and bounds.
package calibrate
