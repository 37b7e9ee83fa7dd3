package loadgen

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// metricsExposition renders a small vLLM V1 /metrics body.
func metricsExposition(running, waiting, kv, preempt, prompt, gen, drafts, accepted float64) string {
	const l = `engine="0",model_name="qwen3"`
	return fmt.Sprintf(`# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{%[1]s} %[2]g
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{%[1]s} %[3]g
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{%[1]s} %[4]g
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="0",num_gpu_blocks="4096"} 1.0
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{%[1]s} %[5]g
# TYPE vllm:num_preemptions_created gauge
vllm:num_preemptions_created{%[1]s} 1.7620188995334e+09
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{%[1]s} %[6]g
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{%[1]s} %[7]g
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{%[1]s} %[8]g
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{%[1]s} %[9]g
`, l, running, waiting, kv, preempt, prompt, gen, drafts, accepted)
}

// scriptedMetricsServer answers /metrics with steps[i] on its i-th request and
// repeats the last step after that; done closes once every step has been
// served and the last one repeated twice (so at least one repeat has been
// recorded by the time the test stops the scraper).
type scriptedMetricsServer struct {
	steps []http.HandlerFunc
	mu    sync.Mutex
	n     int
	done  chan struct{}
}

func (s *scriptedMetricsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer k3y" {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	i := min(s.n, len(s.steps)-1)
	s.n++
	if s.n == len(s.steps)+2 {
		close(s.done)
	}
	s.mu.Unlock()
	s.steps[i](w, r)
}

func metricsBody(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(text))
	}
}

func TestScraperRunDeltasResetsAndFailures(t *testing.T) {
	srv := &scriptedMetricsServer{done: make(chan struct{}), steps: []http.HandlerFunc{
		metricsBody(metricsExposition(2, 0, 0.10, 0, 100, 1000, 10, 15)),
		metricsBody(metricsExposition(6, 3, 0.80, 2, 300, 2000, 30, 45)),
		func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "engine dead", http.StatusInternalServerError)
		},
		func(w http.ResponseWriter, r *http.Request) {
			// Slower than the scrape timeout: the scrape gives up and
			// this (never seen) peak is not recorded.
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
			metricsBody(metricsExposition(99, 99, 0.99, 0, 0, 0, 0, 0))(w, r)
		},
		metricsBody(metricsExposition(1, 0, 0.05, 1, 50, 100, 2, 3)), // restarted
		metricsBody(metricsExposition(3, 1, 0.40, 3, 150, 400, 12, 18)),
	}}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	sc := NewScraper(ScraperConfig{
		URL:      ts.URL + "/v1/", // the OpenAI base URL: /metrics is at the root
		Interval: 10 * time.Millisecond,
		Timeout:  150 * time.Millisecond,
		APIKey:   "k3y",
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { sc.Run(ctx); close(stopped) }()

	// Read concurrently, as the progress bar does.
	go func() {
		for {
			select {
			case <-stopped:
				return
			default:
				sc.Latest()
				_ = sc.Stats()
				time.Sleep(time.Millisecond)
			}
		}
	}()

	select {
	case <-srv.done:
	case <-time.After(10 * time.Second):
		t.Fatal("scraper did not get through the script in 10 s")
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not return after cancel")
	}

	samples := sc.Samples()
	st := sc.Stats()
	if st.Failures != 2 || st.Attempts != len(samples)+2 {
		t.Errorf("stats = %+v with %d samples, want 2 failures", st, len(samples))
	}
	if !strings.Contains(st.LastError, "deadline") || strings.Contains(st.LastError, "k3y") {
		t.Errorf("last error = %q, want the timeout", st.LastError)
	}
	if len(samples) < 5 {
		t.Fatalf("%d samples", len(samples))
	}
	for i := 1; i < len(samples); i++ {
		if samples[i].Time.Before(samples[i-1].Time) {
			t.Fatalf("samples out of order at %d", i)
		}
		if &samples[i].Families[0] != &samples[0].Families[0] || samples[i].CacheConfig != samples[0].CacheConfig {
			t.Errorf("sample %d does not share unchanged Families/CacheConfig", i)
		}
	}

	tel := Summarize(samples, samples[0].Time, samples[len(samples)-1].Time)
	if *tel.Preemptions != 2+1+2 || *tel.PromptTokens != 200+50+100 || *tel.GenerationTokens != 1000+100+300 {
		t.Errorf("deltas = %v %v %v", *tel.Preemptions, *tel.PromptTokens, *tel.GenerationTokens)
	}
	if tel.CounterResets != 1 {
		t.Errorf("CounterResets = %d", tel.CounterResets)
	}
	if tel.KVUsage.Peak != 0.8 || tel.Running.Peak != 6 || tel.Waiting.Peak != 3 {
		t.Errorf("peaks kv %v running %v waiting %v", tel.KVUsage.Peak, tel.Running.Peak, tel.Waiting.Peak)
	}
	sd := tel.SpecDecode
	if sd == nil || sd.Drafts != 20+2+10 || sd.Accepted != 30+3+15 || sd.AcceptanceLength != 1+48.0/32 {
		t.Errorf("spec decode = %+v", sd)
	}
	if c := tel.Capacity; c == nil || c.NumGPUBlocks != 4096 || c.KVCacheTokens != 65536 {
		t.Errorf("capacity = %+v", c)
	}
	if last, ok := sc.Latest(); !ok || last.Running != 3 {
		t.Errorf("Latest = %+v, %v", last, ok)
	}
}

func TestScraperFirstScrapeAtStart(t *testing.T) {
	srv := &scriptedMetricsServer{done: make(chan struct{}), steps: []http.HandlerFunc{metricsBody(metricsExposition(4, 0, 0.5, 0, 0, 0, 0, 0))}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	sc := NewScraper(ScraperConfig{URL: ts.URL, Interval: time.Hour, APIKey: "k3y"})
	if _, ok := sc.Latest(); ok {
		t.Fatal("Latest before any scrape")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sc.Run(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if s, ok := sc.Latest(); ok {
			if s.Running != 4 || s.KVUsage != 0.5 {
				t.Errorf("first sample %+v", s)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no sample 5 s after start with a 1 h interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestScraperFailuresNeverAbort(t *testing.T) {
	srv := &scriptedMetricsServer{done: make(chan struct{}), steps: []http.HandlerFunc{metricsBody(metricsExposition(1, 0, 0.1, 0, 0, 0, 0, 0))}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx := context.Background()

	// Wrong key: 401, counted, no sample, and the key is in no message.
	bad := NewScraper(ScraperConfig{URL: ts.URL, APIKey: "wrong-secret-key", Timeout: time.Second})
	if _, err := bad.Scrape(ctx); err == nil || !strings.Contains(err.Error(), "http 401") {
		t.Errorf("err = %v", err)
	}
	if st := bad.Stats(); st.Failures != 1 || strings.Contains(st.LastError, "wrong-secret-key") || len(bad.Samples()) != 0 {
		t.Errorf("stats %+v", st)
	}

	// Not a URL, and nothing listening: errors, no panic.
	for _, u := range []string{"", "::not a url", "ftp://host/", "http://127.0.0.1:1"} {
		sc := NewScraper(ScraperConfig{URL: u, Timeout: time.Second})
		if _, err := sc.Scrape(ctx); err == nil {
			t.Errorf("%q: no error", u)
		}
		if sc.Stats().Failures != 1 {
			t.Errorf("%q: %+v", u, sc.Stats())
		}
	}

	// A body that is not exposition text.
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>gateway</html>\n"))
	}))
	defer html.Close()
	sc := NewScraper(ScraperConfig{URL: html.URL, Timeout: time.Second})
	if _, err := sc.Scrape(ctx); err == nil || sc.Stats().Failures != 1 {
		t.Errorf("html body: err %v stats %+v", err, sc.Stats())
	}
}

func TestScrapeMetricsURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000":               "http://h:8000/metrics",
		"http://h:8000/":              "http://h:8000/metrics",
		"http://h:8000/v1":            "http://h:8000/metrics",
		"https://gw.example/vllm/v1/": "https://gw.example/vllm/metrics",
		"http://h:8000/metrics":       "http://h:8000/metrics",
		" http://h:8000?x=1 ":         "http://h:8000/metrics",
	} {
		got, err := scrapeMetricsURL(in)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestScraperNoVLLMMetrics(t *testing.T) {
	// A /metrics of something else (here only a process collector) is a
	// failed scrape, not an empty sample.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("# TYPE process_open_fds gauge\nprocess_open_fds 70.0\n"))
	}))
	defer other.Close()
	sc := NewScraper(ScraperConfig{URL: other.URL, Timeout: time.Second})
	if _, err := sc.Scrape(context.Background()); err == nil || !strings.Contains(err.Error(), "no vllm:* metrics") {
		t.Errorf("err = %v", err)
	}
	if st := sc.Stats(); st.Failures != 1 || len(sc.Samples()) != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestScraperOnSampleAndBoundedMemory: every sample reaches OnSample (the
// timeline keeps them all) while the scraper keeps at most MaxSamples,
// always the first (every window's baseline) and the latest.
func TestScraperOnSampleAndBoundedMemory(t *testing.T) {
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n++
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running %d\n", n)
	}))
	defer srv.Close()
	var seen []float64
	s := NewScraper(ScraperConfig{URL: srv.URL, MaxSamples: 4, OnSample: func(smp Sample) { seen = append(seen, smp.Running) }})
	for range 11 {
		if _, err := s.Scrape(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 11 || seen[10] != 11 {
		t.Fatalf("OnSample saw %v", seen)
	}
	kept := s.Samples()
	if len(kept) > 4 || kept[0].Running != 1 || kept[len(kept)-1].Running != 11 {
		t.Fatalf("kept %d samples: first %v, last %v", len(kept), kept[0].Running, kept[len(kept)-1].Running)
	}
	for i := 1; i < len(kept); i++ {
		if !kept[i].Time.After(kept[i-1].Time) {
			t.Fatalf("samples out of order at %d", i)
		}
	}
}
