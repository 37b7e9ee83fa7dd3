package loadtest

import (
	"fmt"
	"io"
	"net/url"
	"time"
)

// longReplay is how long a replay may last before the start line warns
// that it runs in wall time.
const longReplay = 10 * time.Minute

// printStart says what is about to run, so a long run is never a silent
// one: requests, the schedule's length and rate (or the concurrency), the
// target and the model; and that a replay whose schedule spans a long
// time takes that long.
func printStart(w io.Writer, o *Options) {
	pace := ""
	switch span := scheduleSpan(o); {
	case o.Concurrency > 0:
		pace = fmt.Sprintf(" at concurrency %d", o.Concurrency)
	case span > 0:
		pace = " over ~" + shortDuration(span)
		if r := targetRate(o.Requests); r > 0 {
			pace += fmt.Sprintf(" (%.1f req/s)", r)
		}
	}
	if o.Duration > 0 {
		pace += ", stopping after " + shortDuration(o.Duration)
	}
	if r := o.RampUp; r != nil {
		pace += fmt.Sprintf(", ramping up %s over %s (left out of the statistics)", r.Shape, shortDuration(r.Duration))
	}
	if o.MaxRate > 0 {
		pace += fmt.Sprintf(", at most %g req/s", o.MaxRate)
	}
	fmt.Fprintf(w, "thinkcap: load test of %d requests%s against %s, model %s\n", len(o.Requests), pace, redactedURL(o.URL), o.Model)
	if span := scheduleSpan(o); o.Replay && span >= longReplay {
		fmt.Fprintf(w, "thinkcap: this replay lasts %s of wall time; --speedup or --duration shorten it\n", shortDuration(span))
	}
}

// redactedURL hides a password in the URL before it is printed.
func redactedURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}
