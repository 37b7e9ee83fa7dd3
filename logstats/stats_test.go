package logstats

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/approx"
	"github.com/thinkcap/thinkcap/logstats/logstatstest"
	"github.com/thinkcap/thinkcap/workload"
)

func statsOf(reqs []workload.Request, opts StatsOptions) StatsReport {
	a := NewStatsAccumulator(opts)
	logstatstest.Feed(a, reqs)
	return a.Result()
}

func TestStatsHandComputed(t *testing.T) {
	rep := statsOf(logstatstest.StatsLog(), StatsOptions{TPOTS: 0.01, Concurrency: 10})
	if len(rep.Classes) != 2 {
		t.Fatalf("%d classes, want 2", len(rep.Classes))
	}
	// Effort order: low before high.
	low, high := rep.Classes[0], rep.Classes[1]
	if low.Mode != "low" || low.Category != "chat" || high.Mode != "high" || high.Category != "math" {
		t.Fatalf("classes %s/%s, %s/%s", low.Mode, low.Category, high.Mode, high.Category)
	}

	// high/math: think 100 200 300 400 1000; answer 0 10 10 20 20;
	// total 110 210 320 420 1000. Rank h = (n-1)p = 3.6 for p90, 3.96 for p99.
	checkDist(t, "high think", high.Think, TokenDist{Mean: 400, P50: 300, P90: 400 + 0.6*600, P99: 400 + 0.96*600, Max: 1000})
	checkDist(t, "high answer", high.Answer, TokenDist{Mean: 12, P50: 10, P90: 20, P99: 20, Max: 20})
	checkDist(t, "high total", high.Total, TokenDist{Mean: 412, P50: 320, P90: 420 + 0.6*580, P99: 420 + 0.96*580, Max: 1000})
	checkNear(t, "high think share", high.ThinkShare, 2000.0/2060)
	checkNear(t, "high p50 s", high.Capacity.RequestS.P50, 3.2)
	checkNear(t, "high p90 s", high.Capacity.RequestS.P90, 7.68)
	checkNear(t, "high p99 s", high.Capacity.RequestS.P99, 9.768)
	checkNear(t, "high req/s", high.Capacity.RequestsPerS, 10/(412*0.01))
	if high.FinishReasons != 5 || high.CapHitRate == nil || high.UnclosedThinkRate == nil {
		t.Fatalf("high finish reasons %d, rates %v %v", high.FinishReasons, high.CapHitRate, high.UnclosedThinkRate)
	}
	checkNear(t, "high cap hit", *high.CapHitRate, 0.4)
	checkNear(t, "high unclosed", *high.UnclosedThinkRate, 0.2)

	// low/chat: no thinking, answers 50 100 150, no finish reasons.
	checkDist(t, "low think", low.Think, TokenDist{})
	checkDist(t, "low answer", low.Answer, TokenDist{Mean: 100, P50: 100, P90: 140, P99: 149, Max: 150})
	checkDist(t, "low total", low.Total, low.Answer)
	if low.ThinkShare != 0 || low.CapHitRate != nil || low.UnclosedThinkRate != nil {
		t.Errorf("low: share %v, rates %v %v; want 0 and no rates", low.ThinkShare, low.CapHitRate, low.UnclosedThinkRate)
	}

	// Overall: think 0 0 0 100 200 300 400 1000; h = 3.5, 6.3, 6.93.
	o := rep.Overall
	if o.Count != 8 || o.FinishReasons != 5 {
		t.Fatalf("overall count %d, finish reasons %d", o.Count, o.FinishReasons)
	}
	checkDist(t, "overall think", o.Think, TokenDist{Mean: 250, P50: 150, P90: 580, P99: 958, Max: 1000})
	checkNear(t, "overall think share", o.ThinkShare, 2000.0/2360)
	checkNear(t, "overall cap hit", *o.CapHitRate, 0.4)
	if o.Capacity.TPOTS != 0.01 || o.Capacity.Concurrency != 10 {
		t.Errorf("capacity options %+v", o.Capacity)
	}
}

func checkDist(t *testing.T, name string, got, want TokenDist) {
	t.Helper()
	if !approx.Equal(got.Mean, want.Mean) || !approx.Equal(got.P50, want.P50) || !approx.Equal(got.P90, want.P90) ||
		!approx.Equal(got.P99, want.P99) || !approx.Equal(got.Max, want.Max) {
		t.Errorf("%s = %+v, want %+v", name, got, want)
	}
}

func checkNear(t *testing.T, name string, got, want float64) {
	t.Helper()
	if !approx.Equal(got, want) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestStatsDefaultsAndValidate(t *testing.T) {
	rep := statsOf(logstatstest.StatsLog()[:1], StatsOptions{})
	if c := rep.Overall.Capacity; c.TPOTS != DefaultTPOTS || c.Concurrency != DefaultConcurrency {
		t.Errorf("zero options gave %+v, want the defaults", c)
	}
	for _, bad := range []StatsOptions{{TPOTS: -1}, {Concurrency: -2}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

// TestStatsJSONKeys pins the JSON contract of `thinkcap stats -o json`.
func TestStatsJSONKeys(t *testing.T) {
	b, err := json.Marshal(statsOf(logstatstest.StatsLog(), StatsOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if len(top) != 2 || top["overall"] == nil || top["classes"] == nil {
		t.Fatalf("top-level keys of %s", b)
	}
	var classes []map[string]any
	if err := json.Unmarshal(top["classes"], &classes); err != nil {
		t.Fatal(err)
	}
	for _, c := range classes {
		for _, k := range []string{"mode", "category", "count", "think", "answer", "total", "think_share", "capacity"} {
			if _, ok := c[k]; !ok {
				t.Errorf("class lacks %q: %v", k, c)
			}
		}
		think := c["think"].(map[string]any)
		for _, k := range []string{"mean", "p50", "p90", "p99", "max"} {
			if _, ok := think[k]; !ok {
				t.Errorf("think lacks %q", k)
			}
		}
	}
	var overall map[string]any
	if err := json.Unmarshal(top["overall"], &overall); err != nil {
		t.Fatal(err)
	}
	if _, ok := overall["mode"]; ok {
		t.Error("overall has a mode")
	}
}

func TestStatsEmptyAndRepeated(t *testing.T) {
	a := NewStatsAccumulator(StatsOptions{})
	rep := a.Result()
	if rep.Overall.Count != 0 || rep.Classes == nil || len(rep.Classes) != 0 {
		t.Fatalf("empty: %+v", rep)
	}
	if b, err := json.Marshal(rep); err != nil || !bytes.Contains(b, []byte(`"classes":[]`)) {
		t.Fatalf("empty JSON %s, %v", b, err)
	}
	// Result sorts in place; adding more and asking again must still be right.
	reqs := logstatstest.StatsLog()
	for i := range reqs[:4] {
		a.Add(&reqs[i])
	}
	_ = a.Result()
	for i := range reqs[4:] {
		a.Add(&reqs[4+i])
	}
	got, want := a.Result(), statsOf(logstatstest.StatsLog(), StatsOptions{})
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Errorf("incremental result\n%s\nwant\n%s", gb, wb)
	}
}

// TestQuantileInt32 checks the int32 shortcut against Quantile.
func TestQuantileInt32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		n := 1 + rng.IntN(100)
		ints := make([]int32, n)
		floats := make([]float64, n)
		for i := range ints {
			ints[i] = int32(rng.IntN(100000))
		}
		slices.Sort(ints)
		for i, v := range ints {
			floats[i] = float64(v)
		}
		for _, p := range []float64{0, 0.01, 0.5, 0.9, 0.99, 1} {
			if a, b := quantileInt32(ints, p), analysis.Quantile(floats, p); !approx.Equal(a, b) {
				t.Fatalf("p=%v: quantileInt32 %v, Quantile %v", p, a, b)
			}
		}
	}
}

// BenchmarkStats1M accumulates a million requests in six classes with
// long-tailed thinking and summarises them: the cost of `thinkcap stats`
// beyond reading the log (target: at most 1.5 s).
func BenchmarkStats1M(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(7, 8))
	modes := []string{"low", "medium", "high"}
	categories := []string{"extraction", "math"}
	reqs := make([]workload.Request, n)
	for i := range reqs {
		think := int(math.Exp(6 + 1.2*rng.NormFloat64()))
		reqs[i] = workload.Request{
			Mode: modes[rng.IntN(3)], Category: categories[rng.IntN(2)],
			ThinkTokens: min(think, 32768), AnswerTokens: 50 + rng.IntN(500), FinishReason: "stop",
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		a := NewStatsAccumulator(StatsOptions{})
		for i := range reqs {
			a.Add(&reqs[i])
		}
		if rep := a.Result(); rep.Overall.Count != n {
			b.Fatalf("count %d", rep.Overall.Count)
		}
	}
}

// TestStatsAddResult checks result records: ok ones count as their
// request, the others only by status (report.TestWriteStatsTableFailed
// checks how the table prints them).
func TestStatsAddResult(t *testing.T) {
	reqs := logstatstest.StatsLog()
	a := NewStatsAccumulator(StatsOptions{})
	statuses := []string{workload.StatusHTTPError, workload.StatusTimeout, workload.StatusHTTPError}
	for i := range reqs {
		a.AddResult(&workload.Result{Request: reqs[i], Status: workload.StatusOK})
		if i < len(statuses) {
			// A failed record with tokens: they must not reach the statistics.
			a.AddResult(&workload.Result{Request: workload.Request{ThinkTokens: 1e6, AnswerTokens: 1e6}, Status: statuses[i]})
		}
	}
	got, want := a.Result(), statsOf(logstatstest.StatsLog(), StatsOptions{})
	if got.Failed["http_error"] != 2 || got.Failed["timeout"] != 1 || len(got.Failed) != 2 {
		t.Errorf("failed %v", got.Failed)
	}
	got.Failed = nil
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Errorf("ok results\n%s\nwant the requests'\n%s", gb, wb)
	}
	if bytes.Contains(wb, []byte(`"failed"`)) {
		t.Errorf("a request log's report has a failed key: %s", wb)
	}
}

// TestStatsSessions: sessions are counted with their turns, and each turn's
// means come from that turn's records only; a log without sessions has none.
func TestStatsSessions(t *testing.T) {
	a := NewStatsAccumulator(StatsOptions{})
	add := func(sess string, turn, input, think, answer int) {
		a.Add(&workload.Request{SessionID: sess, Turn: turn, PromptTokens: input, ThinkTokens: think, AnswerTokens: answer})
	}
	add("a", 1, 100, 300, 100)
	add("a", 2, 50, 100, 100)
	add("b", 1, 300, 100, 100)
	add("", 0, 10, 10, 10) // not in a session
	rep := a.Result()
	s := rep.Sessions
	if s == nil || s.Sessions != 2 || s.Turns.Max != 2 || s.Turns.Mean != 1.5 || len(s.ByTurn) != 2 {
		t.Fatalf("sessions %+v", s)
	}
	if t1 := s.ByTurn[0]; t1.Requests != 2 || t1.Input != 200 || t1.Think != 200 || t1.ThinkShare != 400.0/600 {
		t.Errorf("turn 1: %+v", t1)
	}
	if t2 := s.ByTurn[1]; t2.Turn != 2 || t2.Requests != 1 || t2.Input != 50 || t2.ThinkShare != 0.5 {
		t.Errorf("turn 2: %+v", t2)
	}
	b := NewStatsAccumulator(StatsOptions{})
	b.Add(&workload.Request{PromptTokens: 1, AnswerTokens: 1})
	if b.Result().Sessions != nil {
		t.Error("sessions in a log without any")
	}
}
