package loadgen

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// sendTimes records when each request was sent, from the run's start.
type sendTimes struct {
	instant
	mu    sync.Mutex
	start time.Time
	at    []time.Duration
}

func (d *sendTimes) Do(ctx context.Context, req Request) Measurement {
	d.mu.Lock()
	d.at = append(d.at, time.Since(d.start))
	d.mu.Unlock()
	return d.instant.Do(ctx, req)
}

// TestMaxRateSpreadsABurst: a burst of 20 requests due at once, under a
// 100 req/s ceiling, goes out 10 ms apart, the held-back ones counted late.
func TestMaxRateSpreadsABurst(t *testing.T) {
	reqs := make([]workload.Request, 20)
	for i := range reqs {
		reqs[i] = workload.Request{ID: string(rune('a' + i)), AnswerTokens: 1}
	}
	d := &sendTimes{start: time.Now()}
	o := Run(context.Background(), d, RunConfig{Requests: reqs, Build: build, MaxRate: 100})
	slices.Sort(d.at)
	if span := d.at[len(d.at)-1] - d.at[0]; span < 180*time.Millisecond || span > time.Second {
		t.Fatalf("20 requests at most 100/s went out over %v, want about 190 ms", span)
	}
	// The limiter releases them 10 ms apart; a loaded machine may start
	// one goroutine late, so the median gap is what is checked.
	var gaps []time.Duration
	for i := 1; i < len(d.at); i++ {
		gaps = append(gaps, d.at[i]-d.at[i-1])
	}
	slices.Sort(gaps)
	if med := gaps[len(gaps)/2]; med < 8*time.Millisecond || med > 15*time.Millisecond {
		t.Fatalf("median gap %v under a 10 ms ceiling", med)
	}
	if o.Late < 15 || o.LagMaxS < 0.15 {
		t.Fatalf("%d late, max lag %g s: the held-back requests are late", o.Late, o.LagMaxS)
	}
	// Without the ceiling the same burst goes out at once.
	d2 := &sendTimes{start: time.Now()}
	Run(context.Background(), d2, RunConfig{Requests: reqs, Build: build})
	slices.Sort(d2.at)
	if span := d2.at[len(d2.at)-1] - d2.at[0]; span > 100*time.Millisecond {
		t.Fatalf("without a ceiling the burst took %v", span)
	}
}

// TestClosedLoopRamp: workers start along the ramp, the last at its end.
func TestClosedLoopRamp(t *testing.T) {
	d := &sendTimes{start: time.Now(), instant: instant{hold: 5 * time.Millisecond}}
	ramp := workload.Ramp{Shape: workload.RampLinear, Duration: 150 * time.Millisecond}
	Run(context.Background(), d, RunConfig{Requests: requestsAt(1, 200), Build: build, Concurrency: 4,
		WorkerStart: func(k int) time.Duration { return ramp.WorkerStart(k, 4) }})
	if d.peak.Load() != 4 {
		t.Fatalf("peak in flight %d, want 4 once ramped", d.peak.Load())
	}
	// In the ramp's first 40 ms only the first worker sends: 5 ms each.
	early := 0
	for _, at := range d.at {
		if at < 40*time.Millisecond {
			early++
		}
	}
	if early > 9 {
		t.Fatalf("%d requests in the ramp's first 40 ms: more than one worker", early)
	}
}

// BenchmarkPacing500 compares the two pacers at 500 req/s over 1,000
// requests by the gaps between sends (the ideal is 2 ms): the precomputed
// schedule (each request sleeps until its time), and the --max-rate limiter
// (go.uber.org/ratelimit, without slack) spreading a burst due at once.
func BenchmarkPacing500(b *testing.B) {
	burst := make([]workload.Request, 1000)
	for i := range burst {
		burst[i] = workload.Request{ID: string(rune('a' + i%26)), AnswerTokens: 1}
	}
	for _, c := range []struct {
		name string
		cfg  RunConfig
	}{
		{"schedule", RunConfig{Requests: requestsAt(500, 1000), Build: build}},
		{"limiter", RunConfig{Requests: burst, Build: build, MaxRate: 500}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var gaps []float64
			for b.Loop() {
				d := &sendTimes{start: time.Now()}
				Run(context.Background(), d, c.cfg)
				slices.Sort(d.at)
				gaps = gaps[:0]
				for i := 1; i < len(d.at); i++ {
					gaps = append(gaps, float64(d.at[i]-d.at[i-1])/1e6)
				}
			}
			slices.Sort(gaps)
			b.ReportMetric(gaps[len(gaps)/2], "gap-p50-ms")
			b.ReportMetric(gaps[len(gaps)*99/100], "gap-p99-ms")
			b.ReportMetric(gaps[len(gaps)/100], "gap-p1-ms")
		})
	}
}
