package logstats

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/logstats/logstatstest"
	"github.com/thinkcap/thinkcap/workload"
)

func TestFitTrafficRecoversShares(t *testing.T) {
	const n = 30_000
	reqs := logstatstest.Mixture(t, n)
	rep, err := FitTraffic("prod", reqs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Name != "prod" || rep.Requests != n || len(rep.Classes) != 3 {
		t.Fatalf("report %s, %d requests, %d classes", rep.Name, rep.Requests, len(rep.Classes))
	}
	want := []struct {
		name, mode, category string
		share                float64
	}{
		{"low", "low", "", 0.6}, {"medium-rag", "medium", "rag", 0.3}, {"high-math", "high", "math", 0.1},
	}
	total := 0
	for i, w := range want {
		c := rep.Classes[i]
		if c.Name != w.name || c.Mode != w.mode || c.Category != w.category {
			t.Errorf("class %d: %s (%s, %s), want %s", i, c.Name, c.Mode, c.Category, w.name)
		}
		if math.Abs(c.Share-w.share) > 0.01 || c.Share != float64(c.Count)/n {
			t.Errorf("%s: share %v (count %d), want %v", c.Name, c.Share, c.Count, w.share)
		}
		if c.Prompt.N != c.Count || c.Think.N != c.Count || c.Answer.N != c.Count {
			t.Errorf("%s: field sizes %d %d %d, count %d", c.Name, c.Prompt.N, c.Think.N, c.Answer.N, c.Count)
		}
		total += c.Count
	}
	if total != n {
		t.Errorf("counts add up to %d", total)
	}
	low, medium, high := rep.Classes[0], rep.Classes[1], rep.Classes[2]
	if low.Think.Spec != "constant:0" {
		t.Errorf("low think %s, want constant:0", low.Think.Spec)
	}
	if low.Prompt.Family != FamilyLognormal {
		t.Errorf("low prompt %s", low.Prompt.Spec)
	}
	if s := medium.Think.Spikes; len(s) != 1 || s[0].Kind != "cap" || s[0].Value != 1024 {
		t.Errorf("medium think spikes %+v, want the 1024 cap", s)
	}
	if s := high.Think.Spikes; len(s) != 1 || s[0].Kind != "zero" || math.Abs(s[0].Mass-0.05) > 0.01 {
		t.Errorf("high think spikes %+v, want 5%% zeros", s)
	}
	if high.Think.Family != FamilyGamma || medium.Answer.Family != FamilyGamma {
		t.Errorf("high think %s, medium answer %s: want gamma", high.Think.Spec, medium.Answer.Spec)
	}
}

func TestFitTrafficClassNames(t *testing.T) {
	reqs := []workload.Request{
		{PromptTokens: 10},
		{PromptTokens: 10, Mode: "low"},
		{PromptTokens: 10, Category: "low"},
		{PromptTokens: 10, Category: "code review, v2"},
		{PromptTokens: 10, Category: "code_review__v2"},
	}
	rep, err := FitTraffic("t", reqs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range rep.Classes {
		names = append(names, c.Name)
		if c.Share != 0.2 || c.Prompt.Spec != "constant:10" {
			t.Errorf("class %+v", c)
		}
	}
	// Order: no mode first (categories alphabetically), then low.
	if got, want := strings.Join(names, " "), "all code_review__v2 code_review__v2-2 low low-2"; got != want {
		t.Errorf("names %q, want %q", got, want)
	}
}

func TestFitTrafficErrors(t *testing.T) {
	if _, err := FitTraffic("x", nil, FitOptions{}); err == nil || !strings.Contains(err.Error(), "no requests") {
		t.Errorf("no requests: %v", err)
	}
	reqs := []workload.Request{{PromptTokens: 1}}
	if _, err := FitTraffic("x", reqs, FitOptions{SpikeMinMass: 2}); err == nil {
		t.Error("bad options accepted")
	}
	var f TrafficFitter
	f.Add(&reqs[0])
	if f.Len() != 1 {
		t.Errorf("Len %d", f.Len())
	}
	// Fitting twice, with more requests in between, is allowed.
	if _, err := f.Fit("x", FitOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Add(&workload.Request{PromptTokens: 3})
	rep, err := f.Fit("x", FitOptions{})
	if err != nil || rep.Requests != 2 || rep.Classes[0].Prompt.N != 2 {
		t.Fatalf("refit: %+v, %v", rep, err)
	}
}

// BenchmarkFitTraffic1M fits a 1M-request, three-class log already in
// memory: the fitting part of `thinkcap fit` (reading is measured by the
// readers' benchmarks).
func BenchmarkFitTraffic1M(b *testing.B) {
	reqs := logstatstest.Mixture(b, 1_000_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var f TrafficFitter
		for i := range reqs {
			f.Add(&reqs[i])
		}
		if _, err := f.Fit("bench", FitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFitTrafficSessions: a log with sessions fits its turns per session
// and think times, and the profile carries them; one without has none.
func TestFitTrafficSessions(t *testing.T) {
	var reqs []workload.Request
	for s := range 200 {
		turns := 1 + s%5
		for k := 1; k <= turns; k++ {
			reqs = append(reqs, workload.Request{PromptTokens: 100 + s, ThinkTokens: 50, AnswerTokens: 20,
				SessionID: fmt.Sprint("s", s), Turn: k, ThinkTimeS: float64(3 + s%4)})
		}
	}
	rep, err := FitTraffic("agents", reqs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sf := rep.Sessions
	if sf == nil || sf.Sessions != 200 || sf.Turns.Spec == "" || sf.ThinkTimeS.Spec == "" {
		t.Fatalf("sessions fit %+v", sf)
	}
	turns, err := workload.ParseDist(sf.Turns.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if m := turns.Mean(); m < 2.5 || m > 3.5 {
		t.Errorf("turns %s: mean %g, want about 3", sf.Turns.Spec, m)
	}
	if p := trafficProfile(&rep, "agents.jsonl"); p.Sessions == nil || p.Sessions.Turns != sf.Turns.Spec {
		t.Errorf("profile sessions %+v", p.Sessions)
	}
	plain, err := FitTraffic("plain", reqs[:0:0], FitOptions{})
	if err == nil && plain.Sessions != nil {
		t.Error("sessions without any")
	}
}
