package loadgen

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// instant answers every request at once and counts those in flight.
type instant struct {
	inFlight, peak atomic.Int64
	hold           time.Duration
}

func (d *instant) Do(ctx context.Context, req Request) Measurement {
	n := d.inFlight.Add(1)
	for {
		p := d.peak.Load()
		if n <= p || d.peak.CompareAndSwap(p, n) {
			break
		}
	}
	now := time.Now()
	time.Sleep(d.hold)
	d.inFlight.Add(-1)
	end := time.Now()
	return Measurement{Sent: now, FirstToken: end, FirstAnswer: end, LastToken: end, End: end,
		AnswerTokens: 1, Status: workload.StatusOK, TokenSource: TokenSourceCounted}
}

func requestsAt(rate float64, n int) []workload.Request {
	reqs := make([]workload.Request, n)
	for i := range reqs {
		reqs[i] = workload.Request{ID: string(rune('a' + i%26)), ArrivalS: float64(i) / rate, PromptTokens: 1, AnswerTokens: 1}
	}
	return reqs
}

func build(r workload.Request) Request { return Request{ID: r.ID, MaxTokens: 1} }

func TestOpenLoopFollowsTheSchedule(t *testing.T) {
	reqs := requestsAt(100, 50) // 0.49 s of schedule
	o := Run(context.Background(), &instant{}, RunConfig{Requests: reqs, Build: build, Warmup: 5})
	if len(o.Results) != 45 || o.Issued != 50 {
		t.Fatalf("%d measured of %d issued, want 45 of 50 (warm-up excluded)", len(o.Results), o.Issued)
	}
	if el := o.End.Sub(o.Start); el < 480*time.Millisecond || el > 2*time.Second {
		t.Fatalf("run took %v for a 0.49 s schedule", el)
	}
	for i, r := range o.Results {
		if want := reqs[i+5].ArrivalS; r.ScheduledS != want {
			t.Fatalf("request %d scheduled at %g, want %g", i, r.ScheduledS, want)
		}
	}
	if o.LagP99S > 0.05 {
		t.Fatalf("schedule lag p99 %g s", o.LagP99S)
	}
}

func TestClosedLoopKeepsConcurrency(t *testing.T) {
	d := &instant{hold: 5 * time.Millisecond}
	o := Run(context.Background(), d, RunConfig{Requests: requestsAt(1, 40), Build: build, Concurrency: 4})
	if len(o.Results) != 40 || d.peak.Load() != 4 {
		t.Fatalf("%d results, peak in flight %d, want 40 and 4", len(o.Results), d.peak.Load())
	}
}

func TestMaxInFlightAndDuration(t *testing.T) {
	d := &instant{hold: 20 * time.Millisecond}
	o := Run(context.Background(), d, RunConfig{Requests: requestsAt(1000, 100), Build: build, MaxInFlight: 3, Duration: 50 * time.Millisecond})
	if d.peak.Load() > 3 {
		t.Fatalf("peak in flight %d above the cap 3", d.peak.Load())
	}
	if o.Issued >= 100 || o.Issued == 0 {
		t.Fatalf("issued %d: --duration should stop sending", o.Issued)
	}
	if o.Late == 0 {
		t.Fatal("requests waiting for a slot were not counted late")
	}
}

func TestCancelKeepsFinishedRecords(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
	defer cancel()
	var seen atomic.Int64
	o := Run(ctx, &instant{}, RunConfig{Requests: requestsAt(100, 100), Build: build,
		OnResult: func(*workload.Result, *Measurement, bool) { seen.Add(1) }})
	if o.Issued == 0 || o.Issued >= 100 || int(seen.Load()) != o.Issued {
		t.Fatalf("issued %d, recorded %d", o.Issued, seen.Load())
	}
}

// BenchmarkScheduleLag500 paces 1,000 requests at 500 req/s against an
// instant server: the target is schedule lag p99 at most 2 ms.
func BenchmarkScheduleLag500(b *testing.B) {
	reqs := requestsAt(500, 1000)
	var o Outcome
	for b.Loop() {
		o = Run(context.Background(), &instant{}, RunConfig{Requests: reqs, Build: build})
	}
	b.ReportMetric(o.LagP50S*1e3, "lag-p50-ms")
	b.ReportMetric(o.LagP99S*1e3, "lag-p99-ms")
}

// recorder answers with reasoning text and records what it was sent.
type recorder struct {
	mu   sync.Mutex
	sent []Request
}

func (d *recorder) Do(_ context.Context, req Request) Measurement {
	d.mu.Lock()
	d.sent = append(d.sent, req)
	d.mu.Unlock()
	now := time.Now()
	m := Measurement{Sent: now, FirstToken: now, LastToken: now, End: now, ThinkTokens: 3, Status: workload.StatusOK, TokenSource: TokenSourceCounted}
	if req.SaveText {
		m.Reasoning = "let me think"
	}
	return m
}

// TestTwoPhaseChain: phase 2 goes out when phase 1 ends, continuing from
// its trace, and a failed phase 1 cancels phase 2.
func TestTwoPhaseChain(t *testing.T) {
	w := workload.WhatIf{ThinkBudget: 3, BudgetPolicy: workload.PolicyTwoPhase}
	reqs, _, err := w.Apply([]workload.Request{{ID: "a", PromptTokens: 10, ThinkTokens: 50, AnswerTokens: 5}})
	if err != nil {
		t.Fatal(err)
	}
	lc := &LengthControl{}
	d := &recorder{}
	o := Run(context.Background(), d, RunConfig{Requests: reqs, Build: lc.Build, Continue: lc.Continue})
	if len(d.sent) != 2 || len(o.Results) != 2 {
		t.Fatalf("sent %d, results %d", len(d.sent), len(o.Results))
	}
	p1, p2 := d.sent[0], d.sent[1]
	if !p1.SaveText || p2.Prompt != p1.Prompt || !strings.Contains(p2.Continue, "let me think") || !strings.HasSuffix(p2.Continue, "</think>\n\n") {
		t.Fatalf("phase 2 %+v after phase 1 %+v", p2, p1)
	}
	if p2.MaxTokens != 5 || !o.Results[0].Continued || o.Results[1].After != "a" {
		t.Fatalf("results %+v", o.Results)
	}
	// A failing server: phase 2 is a cancelled record, never sent.
	fail := &instant{}
	o = Run(context.Background(), failing{fail}, RunConfig{Requests: reqs, Build: lc.Build, Continue: lc.Continue})
	if o.Results[1].Status != workload.StatusCancelled || fail.peak.Load() != 1 {
		t.Fatalf("after a failure: %+v", o.Results[1])
	}
}

type failing struct{ *instant }

func (f failing) Do(ctx context.Context, req Request) Measurement {
	m := f.instant.Do(ctx, req)
	m.Status = workload.StatusHTTPError
	return m
}
