package size

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// poissonTraffic is a small reasoning workload with a long thinking tail.
func poissonTraffic(tb testing.TB, n int, rate float64, seed uint64) []workload.Request {
	tb.Helper()
	syn := workload.Synthetic{Requests: n, RatePerS: rate, Arrival: "poisson", Seed: seed,
		Classes: []workload.Class{{Name: "reasoning", Share: 1,
			Prompt: simtest.Dist(tb, "lognormal:p50=600,p99=4000,max=8000"),
			Think:  simtest.Dist(tb, "lognormal:p50=800,p99=6000,max=12000"),
			Answer: simtest.Dist(tb, "lognormal:p50=200,p99=1000,max=2000")}}}
	reqs, err := syn.Generate()
	if err != nil {
		tb.Fatal(err)
	}
	return reqs
}

// TestMoreReplicasNeverRaiseP99: with least-requests routing, adding a
// replica never makes any p99 latency worse for the same traffic, which is
// what lets the search bisect on the replica count.
func TestMoreReplicasNeverRaiseP99(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		reqs := poissonTraffic(t, 600, 3, seed)
		cands, err := tinySpace(t, 600).Candidates()
		if err != nil {
			t.Fatal(err)
		}
		cfg := cands[0].Config
		cfg.Router = "least-requests"
		prev := Measurement{}
		for r := 1; r <= 6; r++ {
			cfg.Replicas = r
			rep, err := sim.Run(cfg, reqs, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m := measure(rep, nil, 0)
			if r > 1 {
				for _, name := range []string{"ttft", "ttfa", "e2e"} {
					slo := analysis.SLO{Metric: name, Stat: "p99"}
					if now, before := slo.Of(m.Latencies), slo.Of(prev.Latencies); now > before*1.001 {
						t.Errorf("seed %d: %s p99 rose from %.3f s at %d replicas to %.3f s at %d", seed, name, before, r-1, now, r)
					}
				}
			}
			prev = m
		}
	}
}

// TestFP8NeverLowersKVCapacity over every embedded model and GPU at TP 1,
// 2 and 4, wherever both dtypes deploy.
func TestFP8NeverLowersKVCapacity(t *testing.T) {
	cat := simtest.Catalog(t)
	s := Space{TP: []int{1, 2, 4}, KVCacheDtypes: []string{"auto", "fp8"}}
	for _, name := range cat.ModelNames() {
		m, _ := cat.Model(name)
		s.Models = append(s.Models, m)
	}
	for _, name := range cat.GPUNames() {
		g, _ := cat.GPU(name)
		s.GPUs = append(s.GPUs, g)
	}
	cands, err := s.Candidates()
	if err != nil {
		t.Fatal(err)
	}
	// Candidates come in pairs: auto then fp8 for the same deployment.
	checked := 0
	for i := 0; i+1 < len(cands); i += 2 {
		a, f := cands[i], cands[i+1]
		if a.Config.KVCacheDtype != "auto" || f.Config.KVCacheDtype != "fp8" {
			t.Fatalf("pair %d is %s and %s", i, a.Name(), f.Name())
		}
		if a.Err != nil || f.Err != nil {
			continue
		}
		ca, errA := sim.ComputeCapacity(&a.Config)
		cf, errF := sim.ComputeCapacity(&f.Config)
		if errF != nil && errA == nil {
			t.Errorf("%s deploys, %s does not: %v", a.Name(), f.Name(), errF)
		}
		if errA != nil || errF != nil {
			continue
		}
		checked++
		if cf.KVCacheTokens < ca.KVCacheTokens {
			t.Errorf("%s: fp8 KV %d tokens < auto %d", f.Name(), cf.KVCacheTokens, ca.KVCacheTokens)
		}
	}
	if checked < 50 {
		t.Errorf("only %d deployable pairs checked", checked)
	}
}

// TestFailingNeverRanksAbovePassing on random outcomes, however cheap the
// failing ones are.
func TestFailingNeverRanksAbovePassing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		outs := make([]Outcome, 1+rng.IntN(20))
		for i := range outs {
			outs[i] = Outcome{Name: fmt.Sprintf("c%02d", rng.IntN(30)), Passes: rng.IntN(2) == 0,
				CostPerHour: float64(rng.IntN(5)), CostPerMillionOutputTokens: float64(rng.IntN(5))}
			if !outs[i].Passes {
				outs[i].Failed = []string{"ttft_p99"}
			}
		}
		ranked := Rank(outs)
		for i := 1; i < len(ranked); i++ {
			a, b := ranked[i-1], ranked[i]
			if !a.Passes && b.Passes {
				t.Fatalf("trial %d: failing %s ranks above passing %s", trial, a.Name, b.Name)
			}
			if a.Passes && b.Passes && (a.CostPerHour > b.CostPerHour ||
				a.CostPerHour == b.CostPerHour && a.CostPerMillionOutputTokens > b.CostPerMillionOutputTokens) {
				t.Fatalf("trial %d: %s ($%g) ranks above cheaper %s ($%g)", trial, a.Name, a.CostPerHour, b.Name, b.CostPerHour)
			}
		}
	}
}

// TestSearchDeterministic: the same inputs give the same JSON bytes with
// one worker or several.
func TestSearchDeterministic(t *testing.T) {
	s := tinySpace(t, 0)
	cat := simtest.Catalog(t)
	h200, _ := cat.GPU("h200")
	s.GPUs = []profiles.GPU{s.Base.GPU, h200}
	s.KVCacheDtypes = []string{"auto", "fp8"}
	s.MaxNumSeqs = []int{64, 256}
	reqs := poissonTraffic(t, 400, 6, 5)
	slos, _ := analysis.ParseSLOs("ttft_p99=1s,tpot_p99=40ms")
	var out [3][]byte
	for i, workers := range []int{1, 2, 4} {
		res := search(t, s, reqs, Options{SLOs: slos, Workers: workers})
		var err error
		if out[i], err = json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0], out[1]) || !bytes.Equal(out[0], out[2]) {
		t.Error("the search's JSON depends on the number of workers")
	}
}

// TestEarlyStopKeepsTheVerdict: a run stopped by the judge fails exactly
// when the full run fails.
func TestEarlyStopKeepsTheVerdict(t *testing.T) {
	reqs := poissonTraffic(t, 500, 4, 9)
	cands, err := tinySpace(t, 800).Candidates()
	if err != nil {
		t.Fatal(err)
	}
	sloSets := []string{"ttft_p99=1s", "e2e_p90=60s", "tpot_mean=30ms", "ttfa_p50=10s,ttft_p99=2s"}
	for _, spec := range sloSets {
		slos, err := analysis.ParseSLOs(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, rate := range []float64{0.05, 0.5} {
			for r := 1; r <= 4; r++ {
				cfg := cands[0].Config
				cfg.Router, cfg.Replicas = "least-requests", r
				full, err := sim.Run(cfg, reqs, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				mf := measure(full, slos, rate)
				opt := &Options{SLOs: slos, MaxPreemptionRate: rate}
				ms, err := run(cfg, reqs, opt)
				if err != nil {
					t.Fatal(err)
				}
				if mf.Passes() != ms.Passes() {
					t.Errorf("%s, preemption rate %g, %d replicas: full run passes %v (%v), stopped run %v (%v)",
						spec, rate, r, mf.Passes(), mf.Failed, ms.Passes(), ms.Failed)
				}
			}
		}
	}
}

// TestRankPrefersHeadroomAtOneCost: of two passing deployments at the same
// cost, the one a replica of which sustains more requests a second ranks
// first (TP 8 × PP 2 before TP 16 across two servers), whatever their names.
func TestRankPrefersHeadroomAtOneCost(t *testing.T) {
	outs := []Outcome{
		{Name: "a-tp16", Passes: true, CostPerHour: 47.84, CostPerMillionOutputTokens: 12.24, MaxRatePerReplica: 5.8},
		{Name: "b-tp8-pp2", Passes: true, CostPerHour: 47.84, CostPerMillionOutputTokens: 12.24, MaxRatePerReplica: 25.2},
		{Name: "c-cheaper", Passes: true, CostPerHour: 23.92, CostPerMillionOutputTokens: 6.12, MaxRatePerReplica: 1},
	}
	got := Rank(outs)
	want := []string{"c-cheaper", "b-tp8-pp2", "a-tp16"}
	for i, w := range want {
		if got[i].Name != w {
			t.Fatalf("rank %d: %s, want %s (order %v)", i, got[i].Name, w, []string{got[0].Name, got[1].Name, got[2].Name})
		}
	}
}
