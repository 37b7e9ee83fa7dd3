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
//   - connection failures: nothing listens;
//   - timeouts of a hung server (Measurement.Hung): no response headers in
//     time, or a stream that stalled. vLLM's API server sends a stream's
//     headers once the prompt is rendered and tokenized, before the engine
//     queues it (vllm/entrypoints/openai/api_server.py,
//     create_chat_completion), so a missing header is a server that hangs,
//     however long the queue;
//   - HTTP errors of one code that no retry changes (401/403: the key is
//     refused; 404: the model or route is not served).
//
// Any other outcome resets it, a slow stream included, except two that
// neither count nor reset: a cancelled request (the run is stopping) and
// a connection dropped before any response (the casualties of a server
// going down, which say nothing of whether it is still there).
type breaker struct {
	max int // 0: off
	// trip is called once, under the breaker's lock, with the reason: the
	// run stops there, so that no other worker sends meanwhile (a worker
	// that finishes a request waits on the lock, then finds the run
	// stopped).
	trip func(reason string)

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

// droppedConnection reports whether a request failed on its connection
// before any response arrived (EOF, reset, the server closing an idle
// connection): http_error without an HTTP status.
func droppedConnection(m *Measurement) bool {
	return m.Status == workload.StatusHTTPError && m.HTTPStatus == 0
}

// observe takes a finished request and trips the breaker (only once) when
// this one ends its run of dead-endpoint failures.
func (b *breaker) observe(m *Measurement) {
	if b == nil || b.max <= 0 || m.Status == workload.StatusCancelled || droppedConnection(m) {
		return
	}
	var kind string
	switch {
	case m.Status == workload.StatusConnectError:
		kind = "connect"
	case m.Hung:
		kind = "hung"
	case m.Status == workload.StatusHTTPError && deadEndpointCode(m.HTTPStatus):
		kind = "http"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tripped {
		return
	}
	if kind == "" {
		b.kind, b.run = "", 0
		return
	}
	// A run is of one kind, and for HTTP errors of one code; a hung
	// server's stalled streams (200) and header timeouts (none) are one run.
	code := 0
	if kind == "http" {
		code = m.HTTPStatus
	}
	if kind != b.kind || code != b.code {
		b.kind, b.code, b.run = kind, code, 0
	}
	b.run++
	if b.run < b.max {
		return
	}
	b.tripped = true
	what := fmt.Sprintf("HTTP %d responses", m.HTTPStatus)
	switch kind {
	case "connect":
		what = "connection failures"
	case "hung":
		what = "requests without a response"
	}
	if b.trip != nil {
		b.trip(fmt.Sprintf("%d consecutive %s (last: %s)", b.run, what, m.Error))
	}
}
