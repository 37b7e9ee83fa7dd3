package scenario

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

func intervalOptions(seeds int) Options {
	return Options{
		Deployment: sim.DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm", Engine: sim.Config{Seed: 3}},
		Traffic: workload.TrafficOptions{Requests: 300, RatePerS: 4,
			Prompt: mustDist("lognormal:p50=600,p99=6000"), Think: mustDist("lognormal:p50=800,p99=8000"), Answer: mustDist("lognormal:p50=200,p99=900")},
		Route:             RouteOptions{TensorParallelSize: 1, Replicas: 1},
		TimelineIntervalS: 1, Seeds: seeds, Confidence: 0.9,
	}
}

// leaves are every [lo, hi] of a set, and the summary's value of each.
func leaves(set *analysis.IntervalSet, s *analysis.Summary) (ranges []analysis.Range, values []float64) {
	for _, name := range slices.Sorted(maps.Keys(analysis.LatencyFigures)) {
		st, l := analysis.LatencyFigures[name](s), set.LatencyS[name]
		ranges = append(ranges, l.Mean, l.P50, l.P90, l.P99)
		values = append(values, st.Mean, st.P50, st.P90, st.P99)
	}
	for _, name := range slices.Sorted(maps.Keys(analysis.ThroughputFigures)) {
		ranges, values = append(ranges, set.Throughput[name]), append(values, analysis.ThroughputFigures[name](s))
	}
	ranges = append(ranges, set.KVUsage["mean"], set.KVUsage["peak"])
	values = append(values, s.KVUsage.Mean, s.KVUsage.Peak)
	if set.Preemptions != nil && s.Preemptions != nil {
		ranges, values = append(ranges, *set.Preemptions), append(values, float64(*s.Preemptions))
	}
	return ranges, values
}

// TestTrafficIntervalCoverage: the seed-only 90% intervals of 20 draws
// hold about 90% of 200 further draws of the same traffic, over every
// figure (the minimum and maximum of 20 draws hold a 21st with
// probability 19/21). Intervals that did not redraw the traffic (the same
// seed again) would be points and hold almost none.
func TestTrafficIntervalCoverage(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	o := intervalOptions(20)
	run, err := Simulate(cat, o)
	if err != nil {
		t.Fatal(err)
	}
	iv := run.Summary.Intervals
	if iv == nil || iv.Traffic == nil || iv.Seeds != 20 {
		t.Fatalf("intervals %+v; want 20 seeds' traffic intervals", iv)
	}
	ranges, point := leaves(iv.Traffic, &run.Summary)
	for i, r := range ranges {
		if !(r[0] <= point[i] && point[i] <= r[1]) {
			t.Errorf("leaf %d: the run's own value %g lies outside its traffic interval %v", i, point[i], r)
		}
	}
	cfg, err := o.Deployment.Config(cat)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TimelineIntervalS = 1
	inside, total := 0, 0
	for draw := 20; draw < 220; draw++ {
		s, err := o.runDraw(cat, cfg, draw)
		if err != nil {
			t.Fatal(err)
		}
		_, vals := leaves(iv.Traffic, &s)
		for i, r := range ranges {
			if math.IsNaN(r[0]) {
				continue
			}
			total++
			if r[0] <= vals[i] && vals[i] <= r[1] {
				inside++
			}
		}
	}
	cov := float64(inside) / float64(total)
	t.Logf("seed-only 90%% intervals of 20 draws hold %.1f%% of %d values of 200 further draws", 100*cov, total)
	if cov < 0.80 || cov > 0.97 {
		t.Errorf("coverage %.1f%%; want 80-97%% (about 90.5%%)", 100*cov)
	}
}

// TestSimulateIntervals: every figure's interval holds the traffic's and
// is wider by the model's error where a corpus metric bears on it; one
// seed gives the model's alone; the JSON mirrors the summary's keys with
// [lo, hi] leaves.
func TestSimulateIntervals(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	run, err := Simulate(cat, intervalOptions(0)) // 300 requests: 20 seeds by default
	if err != nil {
		t.Fatal(err)
	}
	s := run.Summary
	iv := s.Intervals
	if iv.Seeds != DefaultSeeds || iv.Confidence != 0.9 {
		t.Fatalf("seeds %d at %g; want %d at 0.9", iv.Seeds, iv.Confidence, DefaultSeeds)
	}
	for _, fig := range []string{"ttft", "tpot", "itl", "e2e", "ttfa", "queue"} {
		tr, all := iv.Traffic.LatencyS[fig].P99, iv.LatencyS[fig].P99
		b, ok := iv.Model[fig]
		if !ok || b.Points < profiles.MinModelErrorPoints || !(b.Factor[0] < 1 && b.Factor[1] > 1) {
			t.Errorf("%s: model band %+v; want one from the corpus straddling 1", fig, b)
			continue
		}
		// Wider than either source alone (the model's median may move
		// it: a biased model's interval is not centred on the point).
		w, wt, wm := math.Log(all[1]/all[0]), math.Log(tr[1]/tr[0]), math.Log(b.Factor[1]/b.Factor[0])
		if !(w > wt && w > wm && w < wt+wm) {
			t.Errorf("%s p99: interval %v (log width %.3f) against the traffic's %v (%.3f) and the model's factors %v (%.3f)", fig, all, w, tr, wt, b.Factor, wm)
		}
	}
	if s.Throughput.RequestsPerS > 0.95*4*1.2 {
		t.Errorf("requests/s %.2f: the run was meant to keep up with 4 req/s", s.Throughput.RequestsPerS)
	}
	if _, ok := iv.Model["throughput"]; ok {
		t.Error("an open loop that keeps up took the model's throughput error")
	}
	one, err := Simulate(cat, intervalOptions(1))
	if err != nil {
		t.Fatal(err)
	}
	o := one.Summary.Intervals
	if o.Traffic != nil || o.Seeds != 1 {
		t.Errorf("one seed: traffic %v, seeds %d; want none, 1", o.Traffic, o.Seeds)
	}
	p, b := one.Summary.LatencyS.TPOT.P50, o.Model["tpot"].Factor
	if r := o.LatencyS["tpot"].P50; math.Abs(r[0]-p*b[0]) > 1e-9*p || math.Abs(r[1]-p*b[1]) > 1e-9*p {
		t.Errorf("one seed: TPOT p50 %v; want the point %g times the model's factors %v", r, p, b)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Intervals struct {
			Confidence float64                          `json:"confidence"`
			LatencyS   map[string]map[string][2]float64 `json:"latency_s"`
			Throughput map[string][2]float64            `json:"throughput"`
			KVUsage    map[string][2]float64            `json:"kv_usage"`
			Preempt    *[2]float64                      `json:"preemptions"`
			Traffic    struct {
				LatencyS map[string]any `json:"latency_s"`
			} `json:"traffic"`
			Model map[string]struct{ Factor [2]float64 } `json:"model"`
		} `json:"intervals"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Intervals
	for what, ok := range map[string]bool{
		"confidence":                     d.Confidence == 0.9,
		"latency_s.ttft's four stats":    len(d.LatencyS["ttft"]) == 4,
		"throughput.output_tokens_per_s": d.Throughput["output_tokens_per_s"][1] > 0,
		"kv_usage.peak":                  d.KVUsage["peak"][1] > 0,
		"preemptions":                    d.Preempt != nil,
		"traffic.latency_s":              len(d.Traffic.LatencyS) == 6,
		"model.tpot.factor":              d.Model["tpot"].Factor[0] > 0,
	} {
		if !ok {
			t.Errorf("intervals JSON: %s missing or wrong", what)
		}
	}
}

// TestIntervalsClosedLoopAndSeeds: a closed loop's throughput is the
// servers' and takes the model's throughput error (an open loop that keeps
// up does not: TestSimulateIntervals); runs up to AutoSeedsMaxRequests are
// redrawn DefaultSeeds times by default, larger ones not at all.
func TestIntervalsClosedLoopAndSeeds(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	o := intervalOptions(5)
	o.Traffic.RatePerS, o.Traffic.Concurrency, o.Traffic.Requests = 0, 16, 200
	run, err := Simulate(cat, o)
	if err != nil {
		t.Fatal(err)
	}
	iv := run.Summary.Intervals
	b, ok := iv.Model["throughput"]
	if !ok || b.Metric != "throughput" {
		t.Fatalf("closed loop: model bands %v; want throughput's", iv.Model)
	}
	all, tr := iv.Throughput["output_tokens_per_s"], iv.Traffic.Throughput["output_tokens_per_s"]
	if !(all[0] < tr[0] && all[1] > tr[1]) {
		t.Errorf("closed loop: throughput interval %v not wider than the traffic's %v", all, tr)
	}
	if autoSeeds(AutoSeedsMaxRequests) != DefaultSeeds || autoSeeds(AutoSeedsMaxRequests+1) != 1 {
		t.Errorf("automatic seeds: %d at %d requests, %d beyond", autoSeeds(AutoSeedsMaxRequests), AutoSeedsMaxRequests, autoSeeds(AutoSeedsMaxRequests+1))
	}
}

// mustDist is spec's distribution; a bad spec is the test's own mistake.
func mustDist(spec string) workload.Dist {
	d, err := workload.ParseDist(spec)
	if err != nil {
		panic(err)
	}
	return d
}
