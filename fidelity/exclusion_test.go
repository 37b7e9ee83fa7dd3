package fidelity

import (
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/profiles"
)

// TestExclusionsCountEverything: a record not replayed counts once under
// its skip's rule; every metric of a replayed point is scored or counted
// under one rule (not measured, an open loop's throughput, a TTFT the
// client's test run cached); records first, then metrics, each by count.
func TestExclusionsCountEverything(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	skipped := &Point{Record: &Record{}, Skip: skipNoModel + "x/y"}
	dp := &Point{Record: &Record{}, Skip: skipDataParallel + " not modelled in one replay"}
	capacity := &Point{Record: &Record{}, Skip: skipCapacity + "capacity: too small"}

	open := testRecord()
	open.Concurrency, open.RequestRate = 0, 2
	open.Measured = Metrics{TPOT: Stat{Mean: 10}, OutputThroughput: 100}
	openPoint := &Point{Record: &open, Pairs: map[string]Pair{MetricTPOT: {Measured: 10, Predicted: 11}}}

	cached := testRecord()
	cached.Workload.NumPrompts, cached.Workload.Client = 1, "vllm bench serve"
	cached.Measured = Metrics{TPOT: Stat{Mean: 10}, TTFT: Stat{Mean: 60}, OutputThroughput: 100}
	cachedPoint := &Point{Record: &cached, Pairs: map[string]Pair{MetricTPOT: {Measured: 10, Predicted: 11}, MetricThroughput: {Measured: 100, Predicted: 90}}}
	cachedPoint.cfg, cachedPoint.Skip = config(cat, &cached)
	if cachedPoint.Skip != "" {
		t.Fatal(cachedPoint.Skip)
	}

	got := exclusionsOf([]*Point{skipped, openPoint, dp, cachedPoint, capacity, {Record: &Record{}, Skip: skipNoModel + "z"}})
	want := []Exclusion{
		{Metric: MetricRecord, Rule: RuleNoModel, Count: 2},
		{Metric: MetricRecord, Rule: RuleCapacity, Count: 1},
		{Metric: MetricRecord, Rule: RuleDataParallel, Count: 1},
		{Metric: MetricTTFT, Rule: RuleNotMeasured, Count: 1},
		{Metric: MetricTTFT, Rule: RuleTestRunCached, Count: 1},
		{Metric: MetricThroughput, Rule: RuleUnsaturated, Count: 1},
	}
	for i := range got {
		if got[i].Reason == "" || got[i].Reason != ruleReasons[got[i].Rule] {
			t.Errorf("%s %s: reason %q", got[i].Metric, got[i].Rule, got[i].Reason)
		}
		got[i].Reason = ""
	}
	if !slices.Equal(got, want) {
		t.Errorf("exclusions\n%+v\nwant\n%+v", got, want)
	}
}
