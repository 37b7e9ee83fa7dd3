package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// PreflightConfig is what Preflight checks before a load test sends
// anything.
type PreflightConfig struct {
	// URL is the server root or the OpenAI base (…/v1).
	URL string
	// Model is the served model name the run will send; "" asks Preflight
	// to pick the server's only model.
	Model string
	// APIKey is sent as a bearer token when set; APIKeyEnv names the
	// environment variable it came from, for the message when the server
	// refuses it. The key itself is never printed.
	APIKey, APIKeyEnv string
	// HTTPClient is the run's client (NewHTTPClient), so that the CA and
	// the connection are the run's; http.DefaultClient when nil.
	HTTPClient *http.Client
	// Metrics also checks that /metrics answers with vLLM's metrics: the
	// run is to scrape them.
	Metrics bool
	// Timeout bounds each check; 10 s when zero.
	Timeout time.Duration
}

// PreflightResult is what the server said.
type PreflightResult struct {
	// Model is the model to send: the one asked for, or the one the
	// server serves when none was asked for (Picked).
	Model  string
	Picked bool
	Models ModelsInfo
}

// Preflight checks, before any load, that the server answers /v1/models,
// accepts the API key, serves the model (or serves exactly one, which is
// then picked, as GuideLLM does), and, with cfg.Metrics, that /metrics
// has vLLM's metrics. A failure is the user's to fix: every error says
// what to change.
func Preflight(ctx context.Context, cfg PreflightConfig) (PreflightResult, error) {
	root, err := serverRoot(cfg.URL)
	if err != nil {
		return PreflightResult{}, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	shown := root.JoinPath("v1/models").Redacted()
	rec := &responseRecorder{next: client.Transport}
	cctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	models, err := FetchModels(cctx, &http.Client{Transport: rec, Timeout: client.Timeout}, cfg.URL, cfg.APIKey)
	if err != nil {
		return PreflightResult{}, modelsError(shown, rec, err, cfg)
	}
	res := PreflightResult{Model: cfg.Model, Models: models}
	ids := models.ids()
	switch {
	case cfg.Model == "" && len(ids) == 1:
		res.Model, res.Picked = ids[0], true
	case cfg.Model == "" && len(ids) == 0:
		return res, fmt.Errorf("%s lists no model: pass --model", shown)
	case cfg.Model == "":
		return res, fmt.Errorf("--model is required: %s serves %d models: %s", root.Redacted(), len(ids), strings.Join(ids, ", "))
	default:
		if _, ok := models.Find(cfg.Model); !ok {
			return res, fmt.Errorf("model %q is not served by %s; it serves: %s", cfg.Model, root.Redacted(), strings.Join(ids, ", "))
		}
	}
	if cfg.Metrics {
		if err := preflightMetrics(ctx, cfg, client); err != nil {
			return res, err
		}
	}
	return res, nil
}

// preflightMetrics scrapes /metrics once. A run that asked for scraping
// and cannot have it is refused: its summary would lack the server's side
// (KV usage, queues, preemptions) that verify compares.
func preflightMetrics(ctx context.Context, cfg PreflightConfig, client *http.Client) error {
	s := NewScraper(ScraperConfig{URL: cfg.URL, HTTPClient: client, APIKey: cfg.APIKey, Timeout: cfg.Timeout})
	smp, err := s.Scrape(ctx)
	if err == nil || !smp.Time.IsZero() {
		return nil // a family that did not parse is the run's to count
	}
	if isConnectError(err) {
		err = errors.New(shortCause(err))
	}
	return fmt.Errorf("%s: %w; pass --scrape-interval 0 to run without the server's metrics", s.shown, err)
}

// modelsError turns a failed GET /v1/models into what the user must fix.
func modelsError(shown string, rec *responseRecorder, err error, cfg PreflightConfig) error {
	status, body := rec.result()
	switch {
	case status == 0:
		return fmt.Errorf("cannot reach %s: %s", shown, shortCause(err))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		env := cfg.APIKeyEnv
		if env == "" {
			env = "the API key variable"
		} else {
			env = "$" + env
		}
		if cfg.APIKey == "" {
			return fmt.Errorf("%s answered HTTP %d: the server wants an API key and %s is empty (set it, or name another variable with --api-key-env)", shown, status, env)
		}
		return fmt.Errorf("%s answered HTTP %d: the server refused the API key in %s (--api-key-env)", shown, status, env)
	}
	msg := excerpt(body)
	if m, _, _, ok := vllmapi.ParseError(body); ok {
		msg = m
	}
	if cfg.APIKey != "" {
		msg = strings.ReplaceAll(msg, cfg.APIKey, "[redacted]")
	}
	if status == http.StatusOK {
		return fmt.Errorf("%s: %w", shown, err)
	}
	return fmt.Errorf("%s answered HTTP %d: %s", shown, status, msg)
}

// ids lists the served model names in the server's order.
func (m ModelsInfo) ids() []string {
	ids := make([]string, 0, len(m.Models))
	for _, c := range m.Models {
		ids = append(ids, c.ID)
	}
	return ids
}

// responseRecorder passes requests to next and keeps the last response's
// status and the start of its body, so a failed FetchModels can be told
// apart: no answer, a refused key, another error.
type responseRecorder struct {
	next http.RoundTripper

	mu     sync.Mutex
	status int
	body   bytes.Buffer
}

func (r *responseRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	next := r.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.status = resp.StatusCode
	r.body.Reset()
	r.mu.Unlock()
	resp.Body = &teeBody{ReadCloser: resp.Body, r: r}
	return resp, nil
}

func (r *responseRecorder) result() (int, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, bytes.Clone(r.body.Bytes())
}

// teeBody copies the first maxErrorBody bytes read into the recorder.
type teeBody struct {
	io.ReadCloser
	r *responseRecorder
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.r.mu.Lock()
	if room := maxErrorBody - t.r.body.Len(); room > 0 {
		t.r.body.Write(p[:min(n, room)])
	}
	t.r.mu.Unlock()
	return n, err
}

// ServerClockOffset is the server's clock less this machine's, from the
// Date header of a GET of /v1/models (to the second: the header's
// resolution), taken at the midpoint of the request; false when the server
// sends no date.
func ServerClockOffset(ctx context.Context, client *http.Client, baseURL, apiKey string) (float64, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/v1/models", nil)
	if err != nil {
		return 0, false
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	sent := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	got := time.Now()
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return 0, false
	}
	mid := sent.Add(got.Sub(sent) / 2)
	return date.Sub(mid.Truncate(time.Second)).Seconds(), true
}
