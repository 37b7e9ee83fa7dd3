package loadgen

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/thinkcap/thinkcap/workload"
)

// DefaultMaxConsecutiveFailures is --max-consecutive-failures' default:
// enough that a burst of refusals while a server restarts does not end a
// long run, few enough that a dead endpoint is not sent the whole schedule.
const DefaultMaxConsecutiveFailures = 20

// breaker is the run's circuit breaker. It trips after max consecutive
// finished requests that show the endpoint is gone, not merely slow:
// connection failures (nothing listens), or HTTP errors of one code that
// no retry changes (401/403: the key is refused; 404: the model or route
// is not served). Any other outcome resets it; a cancelled request (the
// run is stopping) neither counts nor resets.
type breaker struct {
	max int // 0: off

	mu      sync.Mutex
	kind    string // what the current run of failures is
	code    int
	run     int
	tripped bool
}

// deadEndpointCode reports whether an HTTP status means every further
// request will get it too.
func deadEndpointCode(code int) bool {
	return code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusNotFound
}

// observe takes a finished request and returns the reason to abort when
// this one trips the breaker (only once).
func (b *breaker) observe(m *Measurement) (string, bool) {
	if b == nil || b.max <= 0 || m.Status == workload.StatusCancelled {
		return "", false
	}
	var kind string
	switch {
	case m.Status == workload.StatusConnectError:
		kind = "connect"
	case m.Status == workload.StatusHTTPError && deadEndpointCode(m.HTTPStatus):
		kind = "http"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tripped {
		return "", false
	}
	if kind == "" {
		b.kind, b.run = "", 0
		return "", false
	}
	if kind != b.kind || m.HTTPStatus != b.code {
		b.kind, b.code, b.run = kind, m.HTTPStatus, 0
	}
	b.run++
	if b.run < b.max {
		return "", false
	}
	b.tripped = true
	if kind == "connect" {
		return fmt.Sprintf("%d consecutive connection failures (last: %s)", b.run, m.Error), true
	}
	return fmt.Sprintf("%d consecutive HTTP %d responses (last: %s)", b.run, m.HTTPStatus, m.Error), true
}
