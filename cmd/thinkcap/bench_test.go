package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

// writeBenchLog writes a 1M-line request log of the effort-mode traffic.
func writeBenchLog(b *testing.B) string {
	b.Helper()
	syn := workload.Synthetic{Requests: 1_000_000, RatePerS: 50, Seed: 1, Classes: []workload.Class{
		{Name: "low", Mode: "low", Category: "extraction", Share: 0.7, Prompt: simtest.Dist(b, "lognormal:p50=500,p99=4000"), Think: simtest.Dist(b, "0"), Answer: simtest.Dist(b, "lognormal:p50=150,p99=480,max=512")},
		{Name: "medium", Mode: "medium", Category: "rag", Share: 0.25, Prompt: simtest.Dist(b, "lognormal:p50=800,p99=6000"), Think: simtest.Dist(b, "lognormal:p50=600,p99=2500,max=1024"), Answer: simtest.Dist(b, "lognormal:p50=300,p99=700")},
		{Name: "high", Mode: "high", Category: "math", Share: 0.05, Prompt: simtest.Dist(b, "lognormal:p50=1200,p99=8000"), Think: simtest.Dist(b, "lognormal:p50=2500,p99=12000,max=4096"), Answer: simtest.Dist(b, "lognormal:p50=500,p99=1000")},
	}}
	reqs, err := syn.Generate()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "log.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := workload.WriteRequests(w, reqs); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchCommand runs a command on a 1M-line log: the target is at
// most 5 s and 300 MB for stats and fit.
func benchCommand(b *testing.B, args ...string) {
	path := writeBenchLog(b)
	runtime.GC()
	b.ReportAllocs()
	for b.Loop() {
		if code := run(append(args, path), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/1e6, "sys-MB")
}

func BenchmarkStatsCommand1M(b *testing.B) { benchCommand(b, "stats") }

func BenchmarkFitCommand1M(b *testing.B) { benchCommand(b, "fit", "--report", "json") }
