package loadgen

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// connTrace times one request's wait for a connection and the moment it
// was written, through net/http/httptrace. The write hook runs on the
// transport's writer goroutine, hence the lock.
type connTrace struct {
	mu      sync.Mutex
	getConn time.Time
	connect time.Duration
	wrote   time.Time
}

func (t *connTrace) attach(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) {
			t.mu.Lock()
			t.getConn = time.Now()
			t.mu.Unlock()
		},
		GotConn: func(info httptrace.GotConnInfo) {
			if info.Reused {
				return
			}
			// A connection opened for this request: the dial, and the TLS
			// handshake on https, were the client's time, not the server's.
			t.mu.Lock()
			if !t.getConn.IsZero() {
				t.connect = time.Since(t.getConn)
			}
			t.mu.Unlock()
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err != nil {
				return
			}
			t.mu.Lock()
			t.wrote = time.Now()
			t.mu.Unlock()
		},
	})
}

func (t *connTrace) result() (time.Duration, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.connect, t.wrote
}

// isConnectError reports whether err means no connection to the server
// could be opened: refused, unreachable, DNS, a dial timeout, a proxy
// that would not connect. Such a request never reached the server.
func isConnectError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// connectErrorText is the short cause of a connection failure: "dial tcp
// 127.0.0.1:8000: connect: connection refused" rather than the whole
// "Post \"http://…\": …" chain.
func connectErrorText(err error) string {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.Error()
	}
	return err.Error()
}

// shortCause is the innermost readable cause of a transport error:
// "connection refused" for ECONNREFUSED, else the dial error.
func shortCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err.Error()
	}
	if isConnectError(err) {
		return connectErrorText(err)
	}
	return err.Error()
}

// NewHTTPClient is the load generator's HTTP client: a transport tuned for
// thousands of concurrent streams (see NewClient), trusting caCert's CAs
// on https when set. Share one between Preflight, the Client and
// WarmConnections so that the connections they open are the ones the run
// uses.
func NewHTTPClient(caCert string) (*http.Client, error) {
	tr, err := newTransport(caCert)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: tr}, nil
}

// MaxWarmConnections bounds WarmConnections: beyond a few hundred streams
// the dial cost is spread over a long run anyway, and a server's accept
// backlog should not meet a burst of thousands.
const MaxWarmConnections = 256

// WarmConnections opens n connections to the server at baseURL before the
// schedule starts, so that no early request pays for the client's own
// dialling (and TLS handshake) in its TTFT. It sends n GET /health at
// once, each holding its connection (in httptrace's GotConn) until all n
// have one: the transport must open n, even though an empty answer would
// otherwise hand a connection back at once for the next to reuse. The
// answers' status does not matter (a server without /health still keeps
// the connection). It returns how many connections were held. Connections
// the server later closes as idle (vLLM: uvicorn's timeout_keep_alive from
// VLLM_HTTP_TIMEOUT_KEEP_ALIVE in vllm/envs.py, 5 s
// by default) are dialled again on need, and that request's connect_s
// says how long it took.
func WarmConnections(ctx context.Context, client *http.Client, baseURL, apiKey string, n int) int {
	n = min(n, MaxWarmConnections)
	root, err := serverRoot(baseURL)
	if n <= 0 || err != nil {
		return 0
	}
	u := root.JoinPath("health").String()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var arrived sync.WaitGroup // one Done per request: holding a connection, or failed
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	var held atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var once sync.Once
			done := func() { once.Do(arrived.Done) }
			defer done()
			trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
				held.Add(1)
				done()
				select {
				case <-all:
				case <-ctx.Done():
				}
			}}
			req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, u, nil)
			if err != nil {
				return
			}
			req.Header.Set("User-Agent", "thinkcap")
			scrapeAuthorize(req, apiKey)
			resp, err := client.Do(req)
			if err != nil {
				return
			}
			// Read to the end so the connection goes back to the idle pool.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
		}()
	}
	wg.Wait()
	return int(held.Load())
}

// Rough per-request durations for sizing the warm pool in open loop: a
// reasoning response streams for seconds to minutes, and the pool only
// needs the right order of magnitude (MaxWarmConnections bounds it).
const (
	warmBaseS     = 0.5  // prefill and the first token
	warmPerTokenS = 0.02 // one decode step of a loaded server
)

// ExpectedConcurrency is how many requests the run will have in flight
// early on, the connections worth opening first: the closed loop's
// concurrency, the open loop's cap, or, by Little's law, the schedule's
// rate times a typical request's duration estimated from its lengths.
// Bounded by MaxWarmConnections and the number of requests.
func ExpectedConcurrency(reqs []workload.Request, concurrency, maxInFlight int) int {
	n := len(reqs)
	switch {
	case n == 0:
		return 0
	case concurrency > 0:
		n = min(n, concurrency)
	case maxInFlight > 0:
		n = min(n, maxInFlight)
	case reqs[n-1].ArrivalS <= 0:
		// Everything at once: every request is in flight together.
	default:
		rate := float64(n-1) / reqs[n-1].ArrivalS
		var dur float64
		for i := range reqs {
			dur += warmBaseS + warmPerTokenS*float64(reqs[i].ThinkTokens+reqs[i].AnswerTokens)
		}
		n = min(n, int(math.Ceil(rate*dur/float64(n))))
	}
	return max(min(n, MaxWarmConnections), 1)
}
