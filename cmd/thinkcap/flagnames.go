package main

import "github.com/thinkcap/thinkcap/internal/inputerr"

// flagNames maps an options field, as the packages name it in an
// inputerr.Error, to the flag that sets it: the packages know their
// options' fields, only the commands know the flags. A field two commands
// set with different flags gets two names in its package, never one entry
// here that is wrong for one of them.
var flagNames = map[string]string{
	"APIKeys":           "--api-key",
	"AbortRate":         "--abort-rate",
	"Acceptance":        "--acceptance",
	"AccuracyTolerance": "--accuracy-tolerance",
	"Address":           "--host/--port",
	"Concurrency":       "--concurrency",
	"Confidence":        "--confidence",
	"Corpus":            "--corpus",
	"DrainTimeout":      "--drain-timeout",
	"FailRate":          "--fail-rate",
	"Fit":               "--fit",
	"GPUs":              "--gpus",
	"HeaderDelay":       "--header-delay",
	"Hold":              "--hold",
	"KVCacheDtypes":     "--kv-cache-dtype",
	"LogLevel":          "--log-level",
	"LogStatsInterval":  "--log-stats-interval",
	"MaxPreemptionRate": "--max-preemption-rate",
	"MaxReplicas":       "--max-replicas",
	"MinCount":          "--min-count",
	"MinRequests":       "--min-requests",
	"Model":             "--model",
	"ModelError":        "--model-error",
	"Models":            "--model",
	"Name":              "--name",
	"Out":               "--out",
	"PP":                "--pp",
	"Plot":              "--plot",
	"PlotDir":           "--plot-dir",
	"Port":              "--port",
	"Prices":            "--price",
	"ReasoningField":    "--reasoning-field",
	"Report":            "--report",
	"SLO":               "--slo",
	"Seeds":             "--seeds",
	"ServedModelNames":  "--served-model-name",
	"Speculative":       "--speculative-config",
	"SpikeMinMass":      "--spike-min-mass",
	"StepModel":         "--step-model",
	"TP":                "--tp",
	"TPOTS":             "--tpot",
	"Threshold":         "--threshold",
	"TimeScale":         "--time-scale",
	"TimelineIntervalS": "--timeline-interval",
	"Tolerances":        "--tolerance",
	"Traffic":           "--traffic",
}

// init gives the table to inputerr before any command runs, so every
// error names the flag the user typed.
func init() { inputerr.SetNames(flagNames) }
