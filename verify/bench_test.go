package verify

import (
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/runtest"
)

// BenchmarkVerify1k: verify a 1,000-request run (configure, replay,
// summarise both sides, compare).
func BenchmarkVerify1k(b *testing.B) {
	cfg := runtest.Qwen3OnH100(b)
	run := simulatedRun(b, cfg, runtest.Traffic(b, 1000, 6, 1), "run")
	tol := analysis.DefaultTolerances()
	never := func(string) bool { return false }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(cfg, run, never, tol, DefaultMinRequests); err != nil {
			b.Fatal(err)
		}
	}
}
