package main

import (
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// longReplay is how long a replay may last before the start line warns
// that it runs in wall time.
const longReplay = 10 * time.Minute

// scheduleSpan is how long the open-loop schedule lasts (to the last
// arrival), capped by --duration; 0 in closed loop.
func scheduleSpan(reqs []workload.Request, o *loadtestOptions) time.Duration {
	if o.traffic.concurrency > 0 {
		return 0
	}
	var last float64
	for i := range reqs {
		last = max(last, reqs[i].ArrivalS)
	}
	span := time.Duration(last * float64(time.Second))
	if o.duration > 0 && o.duration < span {
		span = o.duration
	}
	return span
}

// printLoadtestStart says what is about to run, so a long run is never a
// silent one: requests, the schedule's length and rate (or the
// concurrency), the target and the model; and that a replay whose
// schedule spans a long time takes that long.
func printLoadtestStart(w io.Writer, o *loadtestOptions, reqs []workload.Request) {
	pace := ""
	switch span := scheduleSpan(reqs, o); {
	case o.traffic.concurrency > 0:
		pace = fmt.Sprintf(" at concurrency %d", o.traffic.concurrency)
	case span > 0:
		pace = " over ~" + shortDuration(span)
		if r := targetRate(reqs); r > 0 {
			pace += fmt.Sprintf(" (%.1f req/s)", r)
		}
	}
	if o.duration > 0 {
		pace += ", stopping after " + shortDuration(o.duration)
	}
	fmt.Fprintf(w, "thinkcap: load test of %d requests%s against %s, model %s\n", len(reqs), pace, redactedURL(o.url), o.model)
	if span := scheduleSpan(reqs, o); o.traffic.workload != "" && span >= longReplay {
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
