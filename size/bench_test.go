package size

import (
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/sim"
)

// bench48 is the benchmark's search: Qwen3-14B on 3 GPUs × TP 1, 2 × KV auto,
// fp8 × speculative off, EAGLE-3 × max_num_seqs 256, 1024 = 48 candidates.
func bench48(tb testing.TB) ([]Candidate, Options) {
	tb.Helper()
	cat := simtest.Catalog(tb)
	m, err := cat.Model("qwen3-14b")
	if err != nil {
		tb.Fatal(err)
	}
	s := Space{Base: sim.Config{Model: m}, TP: []int{1, 2}, KVCacheDtypes: []string{"auto", "fp8"}, MaxNumSeqs: []int{256, 1024}}
	for _, name := range []string{"h100-sxm", "h200", "b200"} {
		g, err := cat.GPU(name)
		if err != nil {
			tb.Fatal(err)
		}
		s.GPUs = append(s.GPUs, g)
	}
	eagle, err := sim.ParseSpeculativeConfig(`{"method":"eagle3","model":"RedHatAI/Qwen3-14B-speculator.eagle3","num_speculative_tokens":3}`)
	if err != nil {
		tb.Fatal(err)
	}
	eagle.AcceptanceRates = sim.DefaultAcceptance(eagle.Method, eagle.NumSpeculativeTokens)
	s.Speculative = []Speculative{{}, {Config: eagle}}
	cands, err := s.Candidates()
	if err != nil {
		tb.Fatal(err)
	}
	if len(cands) != 48 {
		tb.Fatalf("%d candidates", len(cands))
	}
	slos, err := analysis.ParseSLOs("ttft_p99=2s,tpot_p99=60ms,ttfa_p99=60s")
	if err != nil {
		tb.Fatal(err)
	}
	return cands, Options{SLOs: slos}
}

// BenchmarkSize48: 48 candidates, replica search and rate bisection each,
// on a 10,000-request reasoning workload at 3 req/s. Target: 60 s on the
// project's 2-core machine.
func BenchmarkSize48(b *testing.B) {
	cands, opt := bench48(b)
	reqs := simtest.ReasoningTraffic(b, 10_000, 3)
	b.ReportAllocs()
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Search(cands, reqs, opt); err != nil {
			b.Fatal(err)
		}
	}
	passing := 0
	for _, o := range res.Candidates {
		if o.Passes {
			passing++
		}
	}
	b.ReportMetric(float64(passing), "passing")
	if res.Best != nil {
		b.Logf("best %s: %d replicas, $%.2f/hour, max %.3g req/s per replica", res.Best.Name, res.Best.Replicas, res.Best.CostPerHour, res.Best.MaxRatePerReplica)
	}
}
