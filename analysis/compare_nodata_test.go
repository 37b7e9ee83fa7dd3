package analysis

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCompareNoData: a checked metric with no data on a side (KV usage
// never scraped, no answer on either side) is "no data": neither a pass
// nor a failure, null in JSON (report.TestWriteComparisonNoData: "-" in
// the table); when every checked metric has none the verdict is "no data".
func TestCompareNoData(t *testing.T) {
	p, m := compareBase(), compareBase()
	m.KVUsage = KVUsage{NoData: true} // never scraped
	m.Preemptions = nil
	tol := map[string]float64{"tpot_mean": 0.1, "kv_usage_mean": 0.15, "kv_usage_peak": 0.15, "preemptions": 0.25}
	c := Compare(&p, &m, tol)
	if c.Verdict != VerdictPass || !c.Pass || c.Failed != nil {
		t.Errorf("verdict %q pass %v failed %v, want pass: tpot_mean passes, the rest has no data", c.Verdict, c.Pass, c.Failed)
	}
	if want := []string{"kv_usage_mean", "kv_usage_peak", "preemptions"}; !slices.Equal(c.NoData, want) {
		t.Errorf("no data %v, want %v", c.NoData, want)
	}
	for _, name := range []string{"kv_usage_mean", "kv_usage_peak", "preemptions"} {
		mc := metricOf(t, c, name)
		if mc.Pass != nil || mc.Verdict != VerdictNoData || mc.Error != nil || !math.IsNaN(mc.Measured) {
			t.Errorf("%s: pass %s verdict %q error %v measured %v; want no data", name, ptrString(mc.Pass), mc.Verdict, mc.Error, mc.Measured)
		}
	}
	if mc := metricOf(t, c, "tpot_mean"); mc.Verdict != VerdictPass {
		t.Errorf("tpot_mean verdict %q", mc.Verdict)
	}

	// JSON: encodable, nulls where there is no data, and read back.
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("a comparison with no data does not encode: %v", err)
	}
	for _, want := range []string{`"name":"kv_usage_mean","predicted":0.5,"measured":null`, `"verdict":"no data"`, `"verdict":"pass"`,
		`"bound":{"relative":0.15,"slack":0.01,"time_scale":1,"absolute":null}`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s:\n%s", want, data)
		}
	}
	var back Comparison
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if mc := metricOf(t, back, "kv_usage_mean"); !math.IsNaN(mc.Measured) || mc.Predicted != 0.5 || mc.Verdict != VerdictNoData || !math.IsNaN(mc.Bound.Absolute) {
		t.Errorf("read back as %+v", mc)
	}

	// Every check without data: no verdict to give.
	c = Compare(&p, &m, map[string]float64{"kv_usage_mean": 0.15, "preemptions": 0.25})
	if c.Verdict != VerdictNoData || c.Pass || c.Reason == "" {
		t.Errorf("every check without data: verdict %q pass %v reason %q, want no data", c.Verdict, c.Pass, c.Reason)
	}
	// A failure with some no data is a failure.
	p.LatencyS.TPOT.Mean *= 2
	c = Compare(&p, &m, tol)
	if c.Verdict != VerdictFail || c.Pass || !slices.Equal(c.Failed, []string{"tpot_mean"}) {
		t.Errorf("verdict %q failed %v, want fail on tpot_mean", c.Verdict, c.Failed)
	}
	// Nothing checked at all passes, as before (--tolerance none).
	if c := Compare(&p, &m, nil); c.Verdict != VerdictPass {
		t.Errorf("no checks: verdict %q", c.Verdict)
	}
}

// TestRequireRequests: fewer requests compared than the minimum is "no
// data" whatever the metrics say.
func TestRequireRequests(t *testing.T) {
	p, m := compareBase(), compareBase()
	for _, c := range []struct {
		n, min int
		want   string
	}{{0, 20, VerdictNoData}, {19, 20, VerdictNoData}, {20, 20, VerdictPass}, {0, 0, VerdictPass}} {
		cmp := Compare(&p, &m, DefaultTolerances())
		cmp.RequireRequests(c.n, c.min)
		if cmp.Verdict != c.want || cmp.Pass != (c.want == VerdictPass) {
			t.Errorf("%d of %d: verdict %q pass %v, want %q", c.n, c.min, cmp.Verdict, cmp.Pass, c.want)
		}
		if c.want == VerdictNoData && !strings.Contains(cmp.Reason, "need at least") {
			t.Errorf("%d of %d: reason %q", c.n, c.min, cmp.Reason)
		}
	}
}

// TestCompareBound: the bound reported is the one tested, tolerance ×
// |measured| + slack × the time scale that stretched it, and a 38% TPOT
// miss on a ±10% check shows it and fails (report.TestComparisonRowsBound:
// in its row too).
func TestCompareBound(t *testing.T) {
	p, m := compareBase(), compareBase()
	m.LatencyS.TPOT.Mean, p.LatencyS.TPOT.Mean = 0.020, 0.0276 // 38% high
	tol := map[string]float64{"tpot_mean": 0.1, "kv_usage_mean": 0.15, "running_peak": 0.2}
	c := Compare(&p, &m, tol)
	mc := metricOf(t, c, "tpot_mean")
	if b := mc.Bound; b == nil || b.Relative != 0.1 || b.Slack != tokenSlackS || b.TimeScale != 1 || math.Abs(b.Absolute-0.003) > 1e-15 {
		t.Fatalf("bound %+v, want 10%% of 20 ms + 1 ms = 3 ms", mc.Bound)
	}
	if c.Pass || mc.Verdict != VerdictFail {
		t.Errorf("a 38%% miss on ±10%%: verdict %q", mc.Verdict)
	}
	// At time scale 20 the slack is 20 ms: the same miss passes
	// (report.TestComparisonRowsBound: and the row says why).
	c = CompareScaled(&p, &m, tol, 20)
	mc = metricOf(t, c, "tpot_mean")
	if b := mc.Bound; b.TimeScale != 20 || math.Abs(b.Absolute-0.022) > 1e-15 || mc.Verdict != VerdictPass {
		t.Errorf("scale 20: bound %+v verdict %q", b, mc.Verdict)
	}
	// KV usage and counts are not wall-clock time: not stretched.
	if b := metricOf(t, c, "kv_usage_mean").Bound; b.TimeScale != 1 || math.Abs(b.Absolute-0.085) > 1e-15 {
		t.Errorf("kv_usage_mean bound %+v", b)
	}

	// Property: every check passes exactly when |p − m| ≤ the bound
	// reported, which is tolerance × |measured| + slack × scale.
	r := rand.New(rand.NewPCG(5, 6))
	slack := map[string]Metric{}
	for _, mt := range Metrics() {
		slack[mt.Name] = mt
	}
	for i := range 500 {
		a, b := randomSummary(r), randomSummary(r)
		scale := []float64{1, 0.5, 10, 20}[r.IntN(4)]
		c := CompareScaled(&a, &b, DefaultTolerances(), scale)
		for _, mc := range c.Metrics {
			if mc.Tolerance == nil {
				continue
			}
			mt := slack[mc.Name]
			k := 1.0
			if mt.WallSlack && scale > 1 {
				k = scale
			}
			want := *mc.Tolerance*math.Abs(mc.Measured) + mt.Slack*k
			if mc.Bound.Absolute != want || mc.Bound.TimeScale != k || mc.Bound.Slack != mt.Slack {
				t.Fatalf("case %d %s: bound %+v, want absolute %v at scale %v", i, mc.Name, mc.Bound, want, k)
			}
			if pass := math.Abs(mc.Predicted-mc.Measured) <= mc.Bound.Absolute; *mc.Pass != pass {
				t.Fatalf("case %d %s: pass %v but |p − m| = %v against the bound %v", i, mc.Name, *mc.Pass, math.Abs(mc.Predicted-mc.Measured), mc.Bound.Absolute)
			}
		}
	}
}
