package sim

import (
	"runtime"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// benchRate keeps one H100 replica of Qwen3-14B busy but stable on the
// benchmark's reasoning workload (see docs/benchmarks.md).
const benchRate = 0.7

func benchConfig(tb testing.TB) Config {
	tb.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		tb.Fatal(err)
	}
	model, err := cat.Model("qwen3-14b")
	if err != nil {
		tb.Fatal(err)
	}
	gpu, err := cat.GPU("h100-sxm")
	if err != nil {
		tb.Fatal(err)
	}
	return Config{Model: model, GPU: gpu}
}

// BenchmarkSimulate100k is the speed and memory target: 100,000 reasoning
// requests on one H100 with Qwen3-14B in at most 10 s and 1 GB.
func BenchmarkSimulate100k(b *testing.B) {
	reqs := simtest.ReasoningTraffic(b, 100_000, benchRate)
	cfg := benchConfig(b)
	b.ReportAllocs()
	var rep *Report
	for b.Loop() {
		var err error
		rep, err = Run(cfg, reqs, Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	var out int64
	for _, r := range rep.Results {
		out += int64(r.OutputTokens())
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(out), "output-tokens")
	b.ReportMetric(float64(rep.Steps), "steps")
	b.ReportMetric(float64(rep.Preemptions), "preemptions")
	b.ReportMetric(rep.DurationS, "simulated-s")
	b.ReportMetric(float64(ms.Sys)/1e6, "sys-MB")
}

// BenchmarkSimulate10k is a quicker view of the same workload.
func BenchmarkSimulate10k(b *testing.B) {
	reqs := simtest.ReasoningTraffic(b, 10_000, benchRate)
	cfg := benchConfig(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(cfg, reqs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStepLoopDoesNotAllocate: in steady decode the step loop allocates
// nothing, so memory grows with requests, never with tokens.
func TestStepLoopDoesNotAllocate(t *testing.T) {
	e, _ := testEngine(t, 100_000, 256, 8192)
	for i := range 100 {
		e.enqueue(newTestSeq(i, 500, 1_000_000, 0), 0)
	}
	for range 50 {
		e.fire()
	}
	if n := testing.AllocsPerRun(1000, e.fire); n != 0 {
		t.Fatalf("step loop allocates %.1f times per step", n)
	}
}

// BenchmarkDay1M is a production day: 1,000,000 requests of the same
// reasoning mix at 12 req/s on 16 replicas (round-robin), about 23 hours of
// traffic, summarised as `simulate` does, without keeping the results.
func BenchmarkDay1M(b *testing.B) {
	reqs := simtest.ReasoningTraffic(b, 1_000_000, 12)
	cfg := benchConfig(b)
	cfg.Replicas = 16
	b.ReportAllocs()
	var rep *Report
	for b.Loop() {
		var err error
		rep, err = Run(cfg, reqs, Options{DiscardResults: true})
		if err != nil {
			b.Fatal(err)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(rep.Steps), "steps")
	b.ReportMetric(float64(rep.stretched)/float64(max(rep.Steps, 1)), "stretched-share")
	b.ReportMetric(rep.DurationS, "simulated-s")
	b.ReportMetric(float64(ms.Sys)/1e6, "sys-MB")
}

// sessionWorkload is the reasoning workload's 100,000 requests, either as
// they are or as 10,000 sessions of 10 turns (5 s of think time, the
// chat templates' strip-traces history), at 0.5 req/s.
func sessionWorkload(b *testing.B, sessions bool) []workload.Request {
	reqs := simtest.ReasoningTraffic(b, 100_000, 0.5)
	if !sessions {
		return reqs
	}
	ten, _ := workload.ParseDist("10")
	five, _ := workload.ParseDist("5")
	workload.MakeSessions(reqs, ten, five, 1)
	out, _, err := workload.ApplySessions(reqs, workload.History{Policy: workload.HistoryStripTraces})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkSessions100k and BenchmarkNoSessions100k: the same 100,000
// requests with and without sessions (the bound: within 1.5×).
func BenchmarkSessions100k(b *testing.B)   { benchSessions(b, true) }
func BenchmarkNoSessions100k(b *testing.B) { benchSessions(b, false) }

func benchSessions(b *testing.B, sessions bool) {
	reqs := sessionWorkload(b, sessions)
	cfg := benchConfig(b)
	b.ReportAllocs()
	var rep *Report
	for b.Loop() {
		var err error
		if rep, err = Run(cfg, reqs, Options{DiscardResults: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rep.Steps), "steps")
	b.ReportMetric(rep.DurationS, "simulated-s")
}
