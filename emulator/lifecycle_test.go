package emulator

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/sim"
)

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func scrape(t *testing.T, url string) loadgen.Snapshot {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	snap, err := loadgen.ParseMetrics(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestDisconnectFreesRequest: a client that leaves mid-stream is
// cancelled in the engine, and its blocks are freed.
func TestDisconnectFreesRequest(t *testing.T) {
	s, url := startServer(t, func(c *Config) { c.TimeScale = 1 })
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+vllmapi.PathChatCompletions,
		strings.NewReader(`{"messages":[{"role":"user","content":"x"}],"max_tokens":30000,"ignore_eos":true,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil { // the role chunk: it is running
		t.Fatal(err)
	}
	if st := s.Stats(); st.Running != 1 || st.KVUsage == 0 {
		t.Fatalf("stats while streaming: %+v", st)
	}
	if snap := scrape(t, url); snap.Running != 1 {
		t.Fatalf("metrics running %g", snap.Running)
	}
	cancel()
	resp.Body.Close()
	waitFor(t, "the engine to free the request", func() bool { st := s.Stats(); return st.Running == 0 && st.KVUsage == 0 })
	snap := scrape(t, url)
	if snap.Running != 0 || snap.RequestSuccess[vllmapi.FinishAbort] != 1 {
		t.Fatalf("after disconnect: running %g, success %v", snap.Running, snap.RequestSuccess)
	}
}

// TestMetricsQueueAndPreemption: a cache of a few blocks makes requests
// wait and preempt, and /metrics shows it with vLLM's names.
func TestMetricsQueueAndPreemption(t *testing.T) {
	s, url := startServer(t, func(c *Config) {
		c.Sim.NumGPUBlocksOverride = 40 // 640 tokens
		c.TimeScale = 5
	})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"a b c d e f g h"}],"max_tokens":200,"ignore_eos":true,"stream":true}`)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	sawWaiting := false
	waitFor(t, "waiting requests", func() bool {
		snap := scrape(t, url)
		sawWaiting = sawWaiting || snap.Waiting > 0
		return sawWaiting
	})
	wg.Wait()
	snap := scrape(t, url)
	st := s.Stats()
	if snap.Running != 0 || snap.Waiting != 0 || snap.Preemptions != float64(st.Preemptions) || st.Preemptions == 0 {
		t.Fatalf("after: %+v, engine %+v", snap, st)
	}
	if snap.GenerationTokens != 1200 || snap.RequestSuccess[vllmapi.FinishLength] != 6 {
		t.Fatalf("tokens %g, success %v", snap.GenerationTokens, snap.RequestSuccess)
	}
	if cc := snap.CacheConfig; cc == nil || cc.NumGPUBlocks != 40 || cc.BlockSize != 16 {
		t.Fatalf("cache config %+v", snap.CacheConfig)
	}
	for _, f := range []string{vllmapi.MetricTimeToFirstTokenSeconds, vllmapi.MetricInterTokenLatencySeconds,
		vllmapi.MetricE2ERequestLatencySeconds, vllmapi.MetricRequestQueueTimeSeconds} {
		if !snap.HasFamily(f) {
			t.Errorf("no %s in %v", f, snap.Families)
		}
	}
}

func TestSpecDecodeMetrics(t *testing.T) {
	_, url := startServer(t, func(c *Config) {
		c.Sim.Speculative = &sim.SpeculativeConfig{Method: "eagle3", NumSpeculativeTokens: 3, AcceptanceRates: []float64{0.8, 0.6, 0.4}}
	})
	resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":200,"ignore_eos":true}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	snap := scrape(t, url)
	if snap.SpecDrafts == 0 || snap.SpecDraftTokens != 3*snap.SpecDrafts || snap.SpecAccepted == 0 || len(snap.SpecAcceptedPerPos) != 3 {
		t.Fatalf("spec metrics %+v", snap)
	}
}

func TestFaultInjection(t *testing.T) {
	t.Run("fail-rate", func(t *testing.T) {
		_, url := startServer(t, func(c *Config) { c.FailRate = 1 })
		for range 4 {
			resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":5,"stream":true}`)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if _, _, code, ok := vllmapi.ParseError(b); !ok || resp.StatusCode < 500 || code != resp.StatusCode {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
		}
	})
	t.Run("abort-rate", func(t *testing.T) {
		s, url := startServer(t, func(c *Config) { c.AbortRate = 1 })
		resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":50,"ignore_eos":true,"stream":true}`)
		events, done := readEvents(t, resp.Body)
		resp.Body.Close()
		if done || len(events) == 0 || len(events) > 50 {
			t.Fatalf("aborted stream: %d events, done %v", len(events), done)
		}
		waitFor(t, "the aborted request to leave", func() bool { return s.Stats().Running == 0 })
	})
	t.Run("header-delay", func(t *testing.T) {
		_, url := startServer(t, func(c *Config) { c.HeaderDelay = 150 * time.Millisecond })
		start := time.Now()
		resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":1,"stream":true}`)
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Fatalf("headers after %v", d)
		}
		_, done := readEvents(t, resp.Body)
		resp.Body.Close()
		if !done {
			t.Fatal("stream not done")
		}
	})
}

// TestDrain: Shutdown lets a stream in flight finish and refuses new ones.
func TestDrain(t *testing.T) {
	s, url := startServer(t, func(c *Config) { c.TimeScale = 2 })
	got := make(chan bool)
	go func() {
		resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":100,"ignore_eos":true,"stream":true}`)
		_, done := readEvents(t, resp.Body)
		resp.Body.Close()
		got <- done
	}()
	waitFor(t, "the stream to start", func() bool { return s.Stats().Running == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	shut := make(chan error)
	go func() { shut <- s.Shutdown(ctx) }()
	waitFor(t, "draining", s.draining.Load)
	resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"x"}],"max_tokens":1}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("new request while draining: %d", resp.StatusCode)
	}
	if !<-got {
		t.Fatal("in-flight stream cut")
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
}
