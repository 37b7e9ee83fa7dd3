package main

import "github.com/thinkcap/thinkcap/internal/inputerr"

// flagNames maps an options field, as the packages name it in an
// inputerr.Error, to the flag that sets it: the packages know their
// options' fields, only the commands know the flags. A field two commands
// set with different flags gets two names in its package, never one entry
// here that is wrong for one of them.
var flagNames = map[string]string{
	"Address":    "--host/--port",
	"Corpus":     "--corpus",
	"Fit":        "--fit",
	"Hold":       "--hold",
	"Model":      "--model",
	"ModelError": "--model-error",
	"Out":        "--out",
	"Plot":       "--plot",
	"PlotDir":    "--plot-dir",
	"Report":     "--report",
	"Traffic":    "--traffic",
}

// init gives the table to inputerr before any command runs, so every
// error names the flag the user typed.
func init() { inputerr.SetNames(flagNames) }
