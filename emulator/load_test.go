package emulator

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// TestTwoThousandStreams holds 2,000 concurrent streams on loopback: every
// one is in flight at the peak and every one ends with [DONE].
func TestTwoThousandStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 streams")
	}
	const streams = 2000
	// Slower than real time, so that the first requests are still
	// streaming when the last connect (dialing 2,000 takes a while).
	s, url := startServer(t, func(c *Config) { c.TimeScale = 0.25 })
	tr := &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	var peak atomic.Int64
	stopPeak := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopPeak:
				return
			case <-time.After(2 * time.Millisecond):
				if n := s.active.Load(); n > peak.Load() {
					peak.Store(n)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range streams {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+vllmapi.PathChatCompletions,
				strings.NewReader(`{"messages":[{"role":"user","content":"a b c d"}],"max_tokens":120,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`))
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if _, done := readEvents(t, resp.Body); done {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	close(stopPeak)
	if ok.Load() != streams || peak.Load() < streams {
		t.Fatalf("%d of %d streams done, peak %d in flight", ok.Load(), streams, peak.Load())
	}
	t.Logf("%d streams, peak %d in flight", streams, peak.Load())
}
