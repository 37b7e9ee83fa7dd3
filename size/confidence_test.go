package size

import (
	"math"
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// wholeCorpus is a model error of one cell per metric: ln(measured /
// predicted) at 5%, 50% and 95% of −q, 0 and q.
func wholeCorpus(q float64) *profiles.ModelError {
	cell := []profiles.ModelErrorCell{{Points: 1000, Deployments: 100, Q: []float64{-q, 0, q}}}
	return &profiles.ModelError{Levels: []float64{0.05, 0.5, 0.95},
		Metrics: map[string][]profiles.ModelErrorCell{"tpot": cell, "ttft": cell, "throughput": cell}}
}

// TestConfidenceBuysAReplica: a case known by hand. On 300 requests one
// every 50 ms, TPOT p99 falls from about 25 ms on one replica to 14 on two
// and 11 on three; with the SLO between two replicas' point and their
// pessimistic edge (a model error of ×e^±0.2 at 90%), the point estimate
// buys two replicas and 90% confidence three, at one replica's price more.
func TestConfidenceBuysAReplica(t *testing.T) {
	reqs := constantTraffic(300, 0.05)
	cfg := tinySpace(t, 0).Base
	cfg.Router = "least-requests"
	tpot := map[int]float64{}
	for r := 1; r <= 3; r++ {
		c := cfg
		c.Replicas = r
		m, err := run(c, reqs, &Options{})
		if err != nil {
			t.Fatal(err)
		}
		tpot[r] = m.Latencies.TPOT.P99
	}
	f := math.Exp(0.2)
	limit := (tpot[2] + min(f*tpot[2], tpot[1])) / 2
	if !(tpot[1] > limit && tpot[2] <= limit && f*tpot[2] > limit && f*tpot[3] <= limit) {
		t.Fatalf("TPOT p99 by replicas %v: the case no longer separates the point (2) from the edge (3) at %g", tpot, limit)
	}
	slos := []analysis.SLO{{Metric: "tpot", Stat: "p99", LimitS: limit}}
	point := search(t, tinySpace(t, 0), reqs, Options{SLOs: slos})
	conf := search(t, tinySpace(t, 0), reqs, Options{SLOs: slos, ModelError: wholeCorpus(0.2), Confidence: &Confidence{Level: 0.9}})
	if point.Best == nil || conf.Best == nil {
		t.Fatal("no candidate passes")
	}
	if point.Best.Replicas != 2 || point.Best.PointReplicas != nil {
		t.Errorf("point estimate: %d replicas; want 2 and no confidence fields", point.Best.Replicas)
	}
	b := conf.Best
	if b.Replicas != 3 || b.PointReplicas == nil || *b.PointReplicas != 2 || conf.Confidence != 0.9 {
		t.Fatalf("at 90%%: %d replicas (point %v); want 3 beside the point's 2", b.Replicas, b.PointReplicas)
	}
	if *b.ConfidenceCostPerHour != 2.99 || b.CostPerHour != 3*2.99 {
		t.Errorf("confidence costs $%g/h on $%g/h; want one H100's $2.99 on $8.97", *b.ConfidenceCostPerHour, b.CostPerHour)
	}
	e := b.Edges[0]
	if math.Abs(e.PointS-tpot[3]) > 1e-12 || math.Abs(e.HiS-f*tpot[3]) > 1e-9 || math.Abs(e.LoS-tpot[3]/f) > 1e-9 {
		t.Errorf("edge %+v; want point %g in [%g, %g]", e, tpot[3], tpot[3]/f, f*tpot[3])
	}
	// The capacity curve's complete points carry the model's band.
	banded := 0
	for _, pt := range b.Curve {
		if pt.Complete {
			banded++
			if math.Abs(pt.HiS-f*pt.ValueS) > 1e-9 || math.Abs(pt.LoS-pt.ValueS/f) > 1e-9 {
				t.Errorf("curve point %+v: want [value/%.3f, value×%.3f]", pt, f, f)
			}
		}
	}
	if banded == 0 {
		t.Error("no complete curve point to band")
	}
	// No model error and no redraws: the point estimate's answer.
	none := search(t, tinySpace(t, 0), reqs, Options{SLOs: slos, Confidence: &Confidence{Level: 0.9}})
	if none.Best.Replicas != 2 {
		t.Errorf("a confidence with no source of doubt bought %d replicas; want the point's 2", none.Best.Replicas)
	}
}

// TestConfidenceTrafficDraws: chance alone (no model error): the edge is
// the worst of the redraws when 20 of them make a 90% interval; the
// redraws are made once for every candidate.
func TestConfidenceTrafficDraws(t *testing.T) {
	base := constantTraffic(300, 0.05)
	slos := []analysis.SLO{{Metric: "tpot", Stat: "p99", LimitS: 0.02}}
	draws := 0
	conf := &Confidence{Level: 0.9, Seeds: 20, Redraw: func(k int) ([]workload.Request, error) {
		draws++
		gap := 0.05
		if k == 7 {
			gap = 0.04 // one busier draw
		}
		return constantTraffic(300, gap), nil
	}}
	res := search(t, tinySpace(t, 0), base, Options{SLOs: slos, Confidence: conf})
	if draws != 19 {
		t.Errorf("%d redraws made; want 19 (once for every candidate)", draws)
	}
	b := res.Best
	if b == nil || b.PointReplicas == nil {
		t.Fatal("no confident outcome")
	}
	cfg := tinySpace(t, 0).Base
	cfg.Router, cfg.Replicas = "least-requests", b.Replicas
	busy, err := run(cfg, constantTraffic(300, 0.04), &Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Within 1%: each draw also reseeds the engine's own chance.
	if e := b.Edges[0]; math.Abs(e.HiS/busy.Latencies.TPOT.P99-1) > 0.01 || math.Abs(e.LoS/e.PointS-1) > 0.01 || e.HiS < 1.03*e.PointS {
		t.Errorf("edge %+v; want the busier draw's TPOT p99 %g as its top and about the point as its bottom", e, busy.Latencies.TPOT.P99)
	}
	if b.Replicas <= *b.PointReplicas && busy.Latencies.TPOT.P99 > 0.02 {
		t.Errorf("%d replicas though the busier draw misses the SLO there", b.Replicas)
	}
}

// TestConfidenceUnreachable: a model error no replica count can absorb
// (×e^±3) fails the candidate on the SLO "at 90%", the climb stopping
// where a replica more no longer brings the edge 1% nearer (TPOT's floor),
// not at --max-replicas.
func TestConfidenceUnreachable(t *testing.T) {
	slos := []analysis.SLO{{Metric: "tpot", Stat: "p99", LimitS: 0.03}}
	res := search(t, tinySpace(t, 0), constantTraffic(300, 0.05), Options{SLOs: slos, ModelError: wholeCorpus(3), Confidence: &Confidence{Level: 0.9}})
	if res.Best != nil {
		t.Fatalf("a candidate passed: %+v", res.Best)
	}
	c := res.Candidates[0]
	if c.Passes || !slices.Contains(c.FailedSLOs, "tpot_p99 at 90%") || c.PointReplicas == nil {
		t.Fatalf("failed %v (point replicas %v); want tpot_p99 at 90%% beside the point estimate's", c.FailedSLOs, c.PointReplicas)
	}
	if c.Replicas <= *c.PointReplicas || c.Replicas >= DefaultMaxReplicas {
		t.Errorf("climbed to %d replicas from the point's %d; want a stop once a replica more no longer helps, short of %d", c.Replicas, *c.PointReplicas, DefaultMaxReplicas)
	}
}
