// Package loadtest runs `thinkcap loadtest`: it drives a vLLM endpoint
// with a schedule of requests and writes what users saw and what the
// server did into a run directory.
//
// Read Run (run.go) first: it is the whole run in order, the schedule
// made from the options' traffic, dataset and what-ifs (traffic.go), the
// checks that may refuse it (options, preflight, --out) → the prediction → the run
// directory → scraping and the connections' warm-up → the load → the
// summary and the run's final state. Options (options.go) is everything a
// run needs, checked by Validate; Write (write.go) prints the Outcome and
// returns its verdict (the breaker, the thresholds, the comparison with
// the prediction). The command maps the errors onto exit codes: an
// inputerr.Error (a run refused) 2, an InterruptedError (errors.go) 130 or
// 143, anything else 1.
//
// The measuring itself is loadgen's (pacing, streaming client, scraper,
// run directory); this package only wires it for one run.
package loadtest
