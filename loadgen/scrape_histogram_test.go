package loadgen

import (
	"math"
	"strings"
	"testing"
)

// queueScrapes parses the fixture's scrapes, one second apart.
func queueScrapes(t *testing.T) []Sample {
	t.Helper()
	parts := strings.Split(string(readMetricsFixture(t, "queue-time-scrapes.txt")), "# --- scrape")
	var samples []Sample
	for i, p := range parts[1:] {
		_, body, _ := strings.Cut(p, "\n")
		snap, err := ParseMetrics(strings.NewReader(body))
		if err != nil {
			t.Fatalf("scrape %d: %v", i+1, err)
		}
		if !snap.Has(FieldQueueTime) {
			t.Fatalf("scrape %d: no queue-time histogram", i+1)
		}
		samples = append(samples, sampleAt(float64(i), snap))
	}
	return samples
}

func TestQueueTimeFromScrapes(t *testing.T) {
	samples := queueScrapes(t)
	if len(samples) != 3 {
		t.Fatalf("%d scrapes", len(samples))
	}
	// Engines are summed: the baseline holds engine 0's 2 observations.
	if h := samples[0].QueueTime; h.Count != 2 || h.Sum != 0.2 || h.Counts[0] != 2 || !math.IsInf(h.Bounds[len(h.Bounds)-1], 1) {
		t.Fatalf("baseline %+v", h)
	}
	// Over the window: 21 new observations (14 at most 0.3 s, 4 more at
	// most 0.5, 2 at most 0.8, 1 in (1, 1.5]) and 6.2 s of queueing. The
	// quantiles interpolate within the bucket, as histogram_quantile:
	// p50 = 0.3×10.5/14, p90 = 0.5 + 0.3×(18.9-18)/2, p99 = 1 + 0.5×0.79.
	tel := Summarize(samples, samples[0].Time, samples[2].Time)
	q := tel.QueueTime
	if q == nil {
		t.Fatal("no queue time")
	}
	want := HistogramStats{Count: 21, Mean: 6.2 / 21, P50: 0.225, P90: 0.635, P99: 1.395}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"count", q.Count, want.Count}, {"mean", q.Mean, want.Mean}, {"p50", q.P50, want.P50},
		{"p90", q.P90, want.P90}, {"p99", q.P99, want.P99}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	// A window in which nobody left the queue has no queue time, not 0.
	if tel := Summarize(samples[1:], samples[1].Time, samples[1].Time); tel.QueueTime != nil {
		t.Errorf("empty window: %+v", tel.QueueTime)
	}
	// Nor does a server that does not expose it.
	if tel := Summarize([]Sample{sampleAt(0, telemetryState(0.1, 1, 0, 0, 1, 1)), sampleAt(1, telemetryState(0.1, 1, 0, 0, 1, 1))},
		telemetryT0, telemetryT0.Add(1e9)); tel.QueueTime != nil {
		t.Errorf("never scraped: %+v", tel.QueueTime)
	}
}

// TestQueueTimeReset: a server restart in the window counts what the new
// process observed, as for counters.
func TestQueueTimeReset(t *testing.T) {
	samples := queueScrapes(t)
	restarted := samples[0] // the baseline again, after scrape 2: 2 observations since the restart
	restarted.Time = samples[2].Time
	tel := Summarize([]Sample{samples[0], samples[1], restarted}, samples[0].Time, restarted.Time)
	if q := tel.QueueTime; q == nil || q.Count != 20+2 || tel.CounterResets != 1 {
		t.Fatalf("queue %+v, resets %d", q, tel.CounterResets)
	}
}

func TestHistogramQuantile(t *testing.T) {
	inf := math.Inf(1)
	h := Histogram{Bounds: []float64{1, 2, 4, inf}, Counts: []float64{0, 10, 10, 12}, Count: 12}
	for _, c := range []struct {
		q, want float64
	}{
		{0, 1},      // the first bucket that reaches rank 0 is empty: its upper bound
		{0.25, 1.3}, // rank 3 of the 10 in (1, 2]
		{0.5, 1.6},
		{10.0 / 12, 2},
		{0.9, 4}, // rank 10.8 is in +Inf: the highest finite bound
		{1, 4},
		{-0.1, math.NaN()},
		{1.1, math.NaN()},
	} {
		got := h.Quantile(c.q)
		if !(math.Abs(got-c.want) < 1e-9 || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("q%v = %v, want %v", c.q, got, c.want)
		}
	}
	empty := Histogram{Bounds: []float64{1, inf}, Counts: []float64{0, 0}}
	if v := empty.Quantile(0.5); !math.IsNaN(v) {
		t.Errorf("empty histogram: %v", v)
	}
	if _, ok := empty.Stats(); ok {
		t.Error("empty histogram has stats")
	}
}
