// Package fidelity judges the simulator on real vLLM measurements: the
// corpus of published serving runs under load in testdata/measured
// (SCHEMA.md), replayed point by point and scored per metric, regime and
// deployment, in-sample and leave-one-deployment-out; and it fits the step
// model's coefficients per GPU generation on that corpus (thinkcap
// fidelity, thinkcap calibrate --corpus).
//
// Read first:
//   - corpus.go: [Record], the corpus's line, and [ReadCorpus].
//   - deploy.go and replay.go: a record as the simulator's deployment and
//     requests (the source's lengths, load and vLLM release), and the
//     client's statistics of a replay.
//   - trace.go: a replay with the derivative of each metric in every
//     coefficient, which makes a point's prediction a linear model of the
//     coefficients near them.
//   - fit.go and calibrate.go: the rows of that model, the bounded least
//     squares, re-simulation until the predictions settle, and the
//     leave-one-deployment-out cross-validation.
//   - fidelity.go: [Run] (thinkcap fidelity) and [Calibrate] (calibrate
//     --corpus); scoreboard.go, table.go, plot.go and stepfit_file.go what
//     they print and write.
package fidelity
