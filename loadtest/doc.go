// Package loadtest runs `thinkcap loadtest`: it drives a vLLM endpoint
// with a schedule of requests and writes what users saw and what the
// server did into a run directory.
//
// Read Run (run.go) first: it is the whole run in order, preflight → run
// directory → prediction → scrape and warm-up → load → files → summary.
// Options (options.go) is everything a run needs, checked by Validate;
// Write (write.go) prints the Outcome and returns its verdict (thresholds,
// the breaker, the prediction's comparison). The command maps the typed
// errors (errors.go) onto exit codes: InputError 2, InterruptedError 130
// or 143, anything else 1.
//
// The measuring itself is loadgen's (pacing, streaming client, scraper,
// run directory); this package only wires it for one run.
package loadtest
