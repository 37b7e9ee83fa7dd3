package loadgen

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Scraper defaults.
const (
	DefaultScrapeInterval = time.Second
	// DefaultScrapeTimeout is generous on purpose: under heavy load vLLM's
	// API server answers /metrics late, and a scrape given up is telemetry
	// lost exactly when it matters. A slow scrape delays the next one
	// instead (the ticker drops missed ticks).
	DefaultScrapeTimeout = 5 * time.Second
	// maxMetricsBytes bounds one /metrics body. A large DP deployment with
	// every histogram is a few MB.
	maxMetricsBytes = 64 << 20
	// DefaultMaxSamples bounds the samples a Scraper keeps in memory: 18
	// hours at one scrape a second, some tens of MB. Past it the scraper
	// thins its samples (every other one goes), so a run of any length
	// keeps bounded memory and its whole window at a coarser step;
	// timeline.csv, written as the samples come, keeps them all.
	DefaultMaxSamples = 1 << 16
)

// ScraperConfig configures a Scraper. The zero value of every field but URL
// is usable.
type ScraperConfig struct {
	// URL is the server's base URL, e.g. http://host:8000; /metrics is
	// appended. A trailing /v1 (the OpenAI base URL) is dropped, since vLLM
	// serves /metrics at the root, and a URL already ending in /metrics is
	// used as is.
	URL string
	// Interval between scrape starts; DefaultScrapeInterval when zero.
	Interval time.Duration
	// HTTPClient sends the scrapes; http.DefaultClient when nil.
	HTTPClient *http.Client
	// APIKey, when set, is sent as "Authorization: Bearer <key>" (vLLM's
	// --api-key guards every route). It is never logged or written.
	APIKey string
	// Timeout bounds one scrape; DefaultScrapeTimeout when zero.
	Timeout time.Duration
	// OnSample, if set, is called with each sample as it is recorded
	// (RunDir.AddSample appends it to timeline.csv), outside the
	// scraper's lock, from the goroutine that scraped.
	OnSample func(Sample)
	// MaxSamples bounds the samples kept; DefaultMaxSamples when zero.
	MaxSamples int
}

// Sample is one successful scrape: the time the scrape started (as
// Prometheus timestamps its samples) and what it read.
type Sample struct {
	Time time.Time
	Snapshot
}

// ScrapeStats counts a Scraper's attempts and failures.
type ScrapeStats struct {
	Attempts int `json:"attempts"`
	// Failures counts scrapes that errored: connection errors, timeouts,
	// non-200 statuses, and bodies with a family that did not parse (the
	// sample is still kept when anything parsed).
	Failures      int       `json:"failures"`
	LastError     string    `json:"last_error,omitempty"`
	LastErrorTime time.Time `json:"last_error_time,omitzero"`
}

// Scraper polls a vLLM server's /metrics and keeps every sample in
// memory. Its methods are safe for concurrent use.
type Scraper struct {
	cfg   ScraperConfig
	url   string
	shown string // url without any password, for error messages
	err   error  // from building url; reported by every scrape

	mu      sync.Mutex
	samples []Sample // sorted by Time
	stats   ScrapeStats
}

// NewScraper returns a Scraper for cfg, filling in defaults. A bad URL is
// reported by every scrape (counted in Stats), never by a panic.
func NewScraper(cfg ScraperConfig) *Scraper {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultScrapeInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultScrapeTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.MaxSamples <= 0 {
		cfg.MaxSamples = DefaultMaxSamples
	}
	s := &Scraper{cfg: cfg}
	s.url, s.err = scrapeMetricsURL(cfg.URL)
	if u, err := url.Parse(s.url); err == nil {
		s.shown = u.Redacted()
	}
	return s
}

// Run scrapes at once, then every Interval, until ctx is done. A failed
// scrape is counted (Stats) and never stops the loop.
func (s *Scraper) Run(ctx context.Context) {
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		_, _ = s.Scrape(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Scrape performs one scrape now and records it: a sample when anything
// parsed, a failure when anything went wrong. The runner may call it at
// the edges of the measurement window, alongside Run.
func (s *Scraper) Scrape(ctx context.Context) (Sample, error) {
	start := time.Now()
	snap, err := s.fetch(ctx)
	if err != nil && ctx.Err() != nil {
		// The caller stopped us (end of run): not the server's failure.
		return Sample{}, err
	}
	ok := len(snap.Families) > 0 || snap.Present != 0
	if !ok && err == nil {
		err = fmt.Errorf("scrape %s: no vllm:* metrics in the response", s.shown)
	}
	s.mu.Lock()
	s.stats.Attempts++
	if err != nil {
		s.stats.Failures++
		s.stats.LastError = err.Error()
		s.stats.LastErrorTime = start
	}
	if !ok {
		s.mu.Unlock()
		return Sample{}, err
	}
	smp := Sample{Time: start, Snapshot: snap}
	s.insertLocked(&smp)
	s.mu.Unlock()
	if s.cfg.OnSample != nil {
		s.cfg.OnSample(smp)
	}
	return smp, err
}

// insertLocked adds smp in time order, sharing Families and CacheConfig
// with the previous sample when they did not change, so a long run at one
// sample a second holds one copy of each.
func (s *Scraper) insertLocked(smp *Sample) {
	i := len(s.samples)
	for i > 0 && s.samples[i-1].Time.After(smp.Time) {
		i--
	}
	if i > 0 {
		prev := &s.samples[i-1].Snapshot
		if slices.Equal(prev.Families, smp.Families) {
			smp.Families = prev.Families
		}
		if sameCacheConfig(prev.CacheConfig, smp.CacheConfig) {
			smp.CacheConfig = prev.CacheConfig
		}
	}
	s.samples = slices.Insert(s.samples, i, *smp)
	if len(s.samples) > s.cfg.MaxSamples {
		s.samples = thinSamples(s.samples)
	}
}

// thinSamples keeps the first sample (the baseline of every window) and
// every other one after it, in place. Counter deltas survive (counters are
// cumulative), gauges are averaged over a coarser step, and a counter
// reset between two kept samples may go unseen.
func thinSamples(samples []Sample) []Sample {
	kept := samples[:1]
	for i := 2; i < len(samples); i += 2 {
		kept = append(kept, samples[i])
	}
	if last := samples[len(samples)-1]; !kept[len(kept)-1].Time.Equal(last.Time) {
		kept = append(kept, last) // the newest stays: Latest and the window's end
	}
	clear(samples[len(kept):])
	return kept
}

// fetch GETs /metrics and parses it within the scrape timeout.
func (s *Scraper) fetch(ctx context.Context) (Snapshot, error) {
	if s.err != nil {
		return Snapshot{}, s.err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scrape: %w", err)
	}
	// Ask for the classic text format: prometheus_client would answer an
	// OpenMetrics Accept header with OpenMetrics.
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	scrapeAuthorize(req, s.cfg.APIKey)
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return Snapshot{}, fmt.Errorf("scrape: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Snapshot{}, fmt.Errorf("scrape %s: http %d: %s", s.shown, resp.StatusCode, scrapeBodyExcerpt(resp.Body))
	}
	snap, err := ParseMetrics(io.LimitReader(resp.Body, maxMetricsBytes))
	if err != nil {
		err = fmt.Errorf("scrape %s: %w", s.shown, err)
	}
	return snap, err
}

// Samples returns a copy of the samples so far, in time order. The
// snapshots' slices and maps are shared: do not modify them.
func (s *Scraper) Samples() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.samples)
}

// Latest returns the most recent sample, false before the first.
func (s *Scraper) Latest() (Sample, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) == 0 {
		return Sample{}, false
	}
	return s.samples[len(s.samples)-1], true
}

// Stats returns the attempt and failure counts and the last error.
func (s *Scraper) Stats() ScrapeStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// scrapeAuthorize adds vLLM's bearer token when there is one.
func scrapeAuthorize(req *http.Request, apiKey string) {
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
}

// scrapeBodyExcerpt reads the start of an error body for the error message.
func scrapeBodyExcerpt(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 200))
	return strings.TrimSpace(strings.ToValidUTF8(string(b), "?"))
}

// scrapeMetricsURL is the /metrics URL for a base URL.
func scrapeMetricsURL(base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/metrics") && u.Host != "" {
		return u.String(), nil
	}
	root, err := serverRoot(base)
	if err != nil {
		return "", err
	}
	return root.JoinPath("metrics").String(), nil
}
