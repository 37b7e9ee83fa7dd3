package loadgen

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// okStream answers a chat request with two tokens.
func okStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
	fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// countingServer counts the connections it accepted.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func TestClientStatuses(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	for _, c := range []struct {
		name   string
		code   int
		body   string
		url    string
		status string
	}{
		{name: "429 is a rejection", code: 429, body: `{"error":{"message":"rate limited","type":"RateLimitError","code":429}}`, status: workload.StatusRejected},
		{name: "400 over max_model_len is a rejection", code: 400, status: workload.StatusRejected,
			body: `{"error":{"message":"This model's maximum context length is 32768 tokens. However, you requested 40000 output tokens and your prompt contains 10 input tokens, for a total of 40010 tokens.","type":"BadRequestError","param":"input_tokens","code":400}}`},
		{name: "other 400 is an http error", code: 400, body: `{"error":{"message":"bad temperature","type":"BadRequestError","code":400}}`, status: workload.StatusHTTPError},
		{name: "404 is an http error", code: 404, body: `{"error":{"message":"The model x does not exist.","type":"NotFoundError","code":404}}`, status: workload.StatusHTTPError},
		{name: "refused connection", url: closedURL, status: workload.StatusConnectError},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := c.url
			if url == "" {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.WriteHeader(c.code)
					fmt.Fprint(w, c.body)
				}))
				t.Cleanup(srv.Close)
				url = srv.URL
			}
			cl, err := NewClient(ClientConfig{BaseURL: url, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			m := cl.Do(context.Background(), Request{ID: "r", Prompt: "hi", MaxTokens: 2})
			if m.Status != c.status {
				t.Fatalf("status %q (%s), want %q", m.Status, m.Error, c.status)
			}
			if c.url != "" && !strings.Contains(m.Error, "connection refused") {
				t.Errorf("error %q", m.Error)
			}
		})
	}
}

// TestConnectTime: a request that had to open a connection records the
// wait (connect_s); one on a warmed connection does not.
func TestConnectTime(t *testing.T) {
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			return
		}
		okStream(w)
	})
	hc, err := NewHTTPClient("")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClient(ClientConfig{BaseURL: srv.URL, Model: "m", HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	m := cl.Do(context.Background(), Request{ID: "cold", Prompt: "hi", MaxTokens: 2})
	res := m.Result(workload.Request{ID: "cold"}, m.Sent, m.Sent)
	if !m.OK() || m.Connect <= 0 || res.ConnectS <= 0 || m.Wrote.Before(m.Sent) {
		t.Fatalf("cold request: %s %q connect %v wrote %v", m.Status, m.Error, m.Connect, m.Wrote)
	}
	if n := WarmConnections(context.Background(), hc, srv.URL, "", 4); n != 4 {
		t.Fatalf("warmed %d", n)
	}
	if n := conns.Load(); n != 4 {
		t.Fatalf("%d connections after warming 4 (one reused), want 4", n)
	}
	for i := range 4 {
		m := cl.Do(context.Background(), Request{ID: fmt.Sprint(i), Prompt: "hi", MaxTokens: 2})
		if !m.OK() || m.Connect != 0 {
			t.Fatalf("warm request %d: %s connect %v", i, m.Status, m.Connect)
		}
	}
}

func TestExpectedConcurrency(t *testing.T) {
	reqs := func(n int, gap float64, tokens int) []workload.Request {
		out := make([]workload.Request, n)
		for i := range out {
			out[i] = workload.Request{ArrivalS: float64(i) * gap, AnswerTokens: tokens}
		}
		return out
	}
	for _, c := range []struct {
		name              string
		reqs              []workload.Request
		conc, inFlight, n int
	}{
		{"closed loop", reqs(100, 0, 10), 8, 0, 8},
		{"closed loop, few requests", reqs(3, 0, 10), 8, 0, 3},
		{"open loop cap", reqs(100, 0.1, 10), 0, 16, 16},
		// 10 req/s × (0.5 + 100 × 0.02) s = 25 in flight.
		{"open loop, Little's law", reqs(1000, 0.1, 100), 0, 0, 25},
		{"bounded", reqs(100000, 0.001, 1000), 0, 0, MaxWarmConnections},
		{"burst", reqs(40, 0, 10), 0, 0, 40},
		{"none", nil, 0, 0, 0},
	} {
		if got := ExpectedConcurrency(c.reqs, c.conc, c.inFlight); got != c.n {
			t.Errorf("%s: %d, want %d", c.name, got, c.n)
		}
	}
}

// fakeDoer answers from a function of the call number.
type fakeDoer struct {
	n  atomic.Int64
	do func(k int64) Measurement
}

func (f *fakeDoer) Do(ctx context.Context, _ Request) Measurement {
	return f.do(f.n.Add(1))
}

func TestBreaker(t *testing.T) {
	fail := func(status string, code int) Measurement {
		return Measurement{Status: status, HTTPStatus: code, Error: "boom"}
	}
	ok := Measurement{Status: workload.StatusOK}
	for _, c := range []struct {
		name   string
		do     func(k int64) Measurement
		max    int
		sent   int
		reason string
	}{
		{name: "connection failures trip it", max: 5, sent: 15, reason: "5 consecutive connection failures (last: boom)",
			do: func(k int64) Measurement {
				if k > 10 {
					return fail(workload.StatusConnectError, 0)
				}
				return ok
			}},
		{name: "one dead code trips it", max: 3, sent: 3, reason: "3 consecutive HTTP 401 responses",
			do: func(int64) Measurement { return fail(workload.StatusHTTPError, 401) }},
		{name: "alternating codes do not", max: 3, sent: 50,
			do: func(k int64) Measurement { return fail(workload.StatusHTTPError, 403+int(k%2)) }},
		{name: "a success resets it", max: 3, sent: 50,
			do: func(k int64) Measurement {
				if k%3 == 0 {
					return ok
				}
				return fail(workload.StatusConnectError, 0)
			}},
		{name: "dropped connections neither count nor reset", max: 3, sent: 15, reason: "3 consecutive connection failures",
			do: func(k int64) Measurement {
				switch {
				case k <= 10:
					return ok
				case k%2 == 0:
					return fail(workload.StatusHTTPError, 0) // EOF: the server went down mid-request
				}
				return fail(workload.StatusConnectError, 0)
			}},
		{name: "stalled streams and header timeouts are one run", max: 4, sent: 14, reason: "4 consecutive requests without a response",
			do: func(k int64) Measurement {
				if k <= 10 {
					return ok
				}
				m := fail(workload.StatusTimeout, 0) // no headers
				if k%2 == 1 {
					m = fail(workload.StatusTimeout, 200) // a stream that stalled
				}
				m.Hung = true
				return m
			}},
		{name: "slow streams do not", max: 3, sent: 50,
			do: func(int64) Measurement {
				m := fail(workload.StatusTimeout, 200)
				m.Headers = time.Now() // answered, then ran past --request-timeout
				return m
			}},
		{name: "overload errors never trip it", max: 3, sent: 50,
			do: func(int64) Measurement { return fail(workload.StatusHTTPError, 503) }},
		{name: "off", max: 0, sent: 50,
			do: func(int64) Measurement { return fail(workload.StatusConnectError, 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			reqs := make([]workload.Request, 50)
			for i := range reqs {
				reqs[i].ID = fmt.Sprint(i)
			}
			var said []string
			d := &fakeDoer{do: c.do}
			o := Run(context.Background(), d, RunConfig{Requests: reqs, Concurrency: 1, MaxConsecutiveFailures: c.max,
				Build: func(r workload.Request) Request { return Request{ID: r.ID} }, OnAbort: func(r string) { said = append(said, r) }})
			if o.Issued != c.sent || len(o.Results) != c.sent {
				t.Errorf("sent %d, %d records, want %d", o.Issued, len(o.Results), c.sent)
			}
			if !strings.HasPrefix(o.Aborted, c.reason) || (c.reason == "") != (o.Aborted == "") {
				t.Errorf("aborted %q, want %q", o.Aborted, c.reason)
			}
			if c.reason != "" && (len(said) != 1 || said[0] != o.Aborted) {
				t.Errorf("OnAbort said %q", said)
			}
		})
	}
}

// TestBreakerStopsAtOnce: once the breaker trips, no worker sends again,
// however long the abort's own work (the message) takes: at most the
// requests already in flight finish.
func TestBreakerStopsAtOnce(t *testing.T) {
	const maxFails, workers = 5, 4
	reqs := make([]workload.Request, 500)
	for i := range reqs {
		reqs[i].ID = fmt.Sprint(i)
	}
	d := &fakeDoer{do: func(int64) Measurement {
		return Measurement{Status: workload.StatusConnectError, Error: "refused"}
	}}
	o := Run(context.Background(), d, RunConfig{Requests: reqs, Concurrency: workers, MaxConsecutiveFailures: maxFails,
		Build:   func(r workload.Request) Request { return Request{ID: r.ID} },
		OnAbort: func(string) { time.Sleep(20 * time.Millisecond) }})
	if o.Aborted == "" || o.Issued > maxFails+workers-1 {
		t.Errorf("aborted %q after %d sent, want at most %d", o.Aborted, o.Issued, maxFails+workers-1)
	}
}
