package workload

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/profiles"
)

// givenFields is a Given that reports the fields named as set.
func givenFields(fields ...string) func(string) bool {
	return func(f string) bool { return slices.Contains(fields, f) }
}

func mustArrival(t *testing.T, spec string) ArrivalProcess {
	t.Helper()
	a, err := ParseArrivalProcess(spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkProblems checks that err lists want, one line each, in order.
func checkProblems(t *testing.T, name string, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s: no error, want %q", name, want)
		return
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("%s: %q, want %d problems", name, err, len(want))
		return
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("%s: problem %d is %q, want %q", name, i, lines[i], w)
		}
	}
}

// TestTrafficOptionsValidate: every problem at once, each named by its
// field (the command's table shows its flag).
func TestTrafficOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    TrafficOptions
		want []string
	}{
		{"defaults", TrafficOptions{}, nil},
		// Left out, 0 is "not given"; given, 0 is refused.
		{"zeros not given", TrafficOptions{Given: givenFields("Arrival")}, nil},
		{"zeros given", TrafficOptions{RatePerS: math.NaN(), Given: givenFields("Requests", "Concurrency", "RatePerS", "Speedup")}, []string{
			"Requests must be at least 1, got 0", "Concurrency must be at least 1, got 0",
			"RatePerS must be a positive number of requests per second, got NaN", "Speedup must be a positive factor, got 0"}},
		{"infinite rate", TrafficOptions{RatePerS: math.Inf(1), Given: givenFields("RatePerS")}, nil},
		{"day-shaped is checked at load", TrafficOptions{DayShaped: true}, nil},
		{"log", TrafficOptions{Log: LogOptions{Format: "parquet"}}, []string{`--workload-format "parquet": unknown`}},
		{"mapping", TrafficOptions{Log: LogOptions{Mapping: "zz"}}, []string{"--map: "}},
	} {
		checkProblems(t, tc.name, tc.o.Validate(), tc.want)
	}
	// The arrival process and the lengths are parsed before
	// (TrafficSpecs), each error named by its field.
	var o TrafficOptions
	checkProblems(t, "arrival", TrafficSpecs{Arrival: "zipf"}.ParseInto(&o), []string{"Arrival: "})
	checkProblems(t, "lengths", TrafficSpecs{Think: "lognormal:p50=abc"}.ParseInto(&o), []string{"Think: "})
}

func TestTrafficOptionsLoadSynthetic(t *testing.T) {
	cat := &profiles.Catalog{Traffic: map[string]profiles.Traffic{"t": testTraffic()}}
	o := TrafficOptions{Traffic: "t"}
	reqs, err := o.Load(cat, 1, nil)
	if err != nil || len(reqs) != DefaultRequests {
		t.Fatalf("%d requests, %v; want the default %d", len(reqs), err, DefaultRequests)
	}
	// The default rate: DefaultRatePerS requests a second, about.
	if rate := float64(len(reqs)) / reqs[len(reqs)-1].ArrivalS; rate < DefaultRatePerS*0.9 || rate > DefaultRatePerS*1.1 {
		t.Errorf("rate %g, want about %d", rate, DefaultRatePerS)
	}
	// Closed loop: every request at once.
	o = TrafficOptions{Traffic: "t", Requests: 10, Concurrency: 2, Prompt: mustDist(t, "100")}
	if reqs, err = o.Load(cat, 1, nil); err != nil || len(reqs) != 10 || reqs[9].ArrivalS != 0 || reqs[0].PromptTokens != 100 {
		t.Fatalf("closed loop: %d requests, last at %v, %v", len(reqs), reqs[len(reqs)-1].ArrivalS, err)
	}
	for _, tc := range []struct {
		name string
		o    TrafficOptions
		want string
	}{
		{"unknown profile", TrafficOptions{Traffic: "nope"}, "Traffic: "},
		{"day-shaped", TrafficOptions{Traffic: "t", DayShaped: true}, "Arrival day-shaped takes its shape from a log"},
		{"speedup", TrafficOptions{Traffic: "t", Speedup: 2}, "Speedup rescales a replay"},
	} {
		if _, err := tc.o.Load(cat, 1, nil); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestTrafficOptionsReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	log := `{"arrival_s":0,"prompt_tokens":10,"think_tokens":5,"answer_tokens":3}
{"arrival_s":4,"prompt_tokens":10,"think_tokens":5,"answer_tokens":3}
{"arrival_s":2,"prompt_tokens":10,"think_tokens":5,"answer_tokens":3}
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	o := TrafficOptions{Workload: path, Speedup: 2}
	reqs, err := o.Load(nil, 1, &warn)
	if err != nil || len(reqs) != 3 || reqs[2].ArrivalS != 2 {
		t.Fatalf("replay at 2x: %+v, %v", reqs, err)
	}
	if !strings.Contains(warn.String(), "1 records were out of arrival order") {
		t.Errorf("warnings %q, want the reordered record", warn.String())
	}
	o = TrafficOptions{Workload: path, RatePerS: 1, Requests: 2}
	if reqs, err = o.Load(nil, 1, &warn); err != nil || len(reqs) != 2 {
		t.Fatalf("first 2 at rate 1: %d, %v", len(reqs), err)
	}
	for _, tc := range []struct {
		name string
		o    TrafficOptions
		want string
	}{
		{"lengths", TrafficOptions{Workload: path, Think: mustDist(t, "5")}, "Workload replays a log's lengths"},
		{"arrival", TrafficOptions{Workload: path, Arrival: mustArrival(t, "constant")}, "Arrival constant: a replay keeps"},
		{"both rescales", TrafficOptions{Workload: path, Speedup: 2, RatePerS: 1}, "Speedup and RatePerS both"},
		{"missing", TrafficOptions{Workload: path + ".none"}, "Workload: "},
	} {
		if _, err := tc.o.Load(nil, 1, &warn); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestWhatIfOptionsValidate: every problem at once, each named by its
// field (the command shows its flag).
func TestWhatIfOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    WhatIfOptions
		want []string
	}{
		{"none", WhatIfOptions{BudgetPolicy: PolicyForcedClosure}, nil},
		{"budget 0 given", WhatIfOptions{BudgetPolicy: PolicyForcedClosure, Given: givenFields("ThinkBudget")}, []string{"ThinkBudget must be at least 1 token, got 0"}},
		{"policy alone", WhatIfOptions{BudgetPolicy: "truncate", Given: givenFields("BudgetPolicy")}, []string{"BudgetPolicy only matters with ThinkBudget"}},
		{"every problem", WhatIfOptions{ThinkBudget: 10, BudgetPolicy: "maybe", Escalate: 2, Given: givenFields("ThinkBudget", "BudgetPolicy")},
			[]string{"Escalate must be a fraction in [0, 1], got 2", "BudgetPolicy"}},
	} {
		checkProblems(t, tc.name, tc.o.Validate(), tc.want)
	}
}

func TestWhatIfOptionsApply(t *testing.T) {
	reqs := []Request{{ID: "a", PromptTokens: 10, ThinkTokens: 500, AnswerTokens: 20}}
	o := WhatIfOptions{BudgetPolicy: PolicyForcedClosure}
	out, reports, err := o.Apply(reqs, 1)
	if err != nil || &out[0] != &reqs[0] || reports != nil {
		t.Fatalf("no transform: %v %v, want the requests as they are", reports, err)
	}
	o.ThinkBudget = 100
	if out, reports, err = o.Apply(reqs, 1); err != nil || len(reports) != 1 || out[0].ThinkTokens > 100+3 {
		t.Fatalf("budget 100: think %d, reports %+v, %v", out[0].ThinkTokens, reports, err)
	}
}

// TestLoadDrawReplay: draw 0 of a log is the log; a later draw is the log
// resampled by blocks of time (each request one of the log's, moved to a
// block's time) and then rescaled like the log (--rate), and differs from
// draw 0; synthetic traffic is generated again from the draw's seed.
func TestLoadDrawReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	var b strings.Builder
	for i := range 600 { // ten minutes, one request a second, lengths by minute
		fmt.Fprintf(&b, `{"id":"r%d","arrival_s":%d,"prompt_tokens":%d,"think_tokens":5,"answer_tokens":3}`+"\n", i, i, 10+i/60)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o := TrafficOptions{Workload: path, RatePerS: 2}
	base, err := o.Load(nil, 7, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	zero, err := o.LoadDraw(nil, 7, 0, io.Discard)
	if err != nil || !reflect.DeepEqual(base, zero) {
		t.Fatalf("draw 0 is not Load's traffic (%v)", err)
	}
	one, err := o.LoadDraw(nil, 7, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(base, one) {
		t.Error("draw 1 is the log itself")
	}
	minutes := map[int]int{}
	for _, r := range one {
		orig, _ := strconv.Atoi(strings.TrimPrefix(strings.Split(r.ID, "~")[0], "r"))
		if r.PromptTokens != 10+orig/60 {
			t.Fatalf("%s has %d prompt tokens; the log's request had %d", r.ID, r.PromptTokens, 10+orig/60)
		}
		minutes[orig/60]++
	}
	if len(one) != 600 || len(minutes) == 10 {
		t.Errorf("draw 1: %d requests from %d of the log's minutes; want 600 from minutes drawn with replacement", len(one), len(minutes))
	}
	if rate, err := LogRate(one); err != nil || math.Abs(rate-2) > 0.05 {
		t.Errorf("draw 1 at %g req/s (%v); want the --rate 2 the log was rescaled to", rate, err)
	}
	s := TrafficOptions{Requests: 50, RatePerS: 1, Prompt: mustDist(t, "100"), Think: mustDist(t, "exponential:mean=300"), Answer: mustDist(t, "50")}
	a, _ := s.LoadDraw(nil, 7, 1, io.Discard)
	c, _ := s.LoadDraw(nil, 7, 2, io.Discard)
	if reflect.DeepEqual(a, c) || len(a) != 50 {
		t.Error("two draws of synthetic traffic are the same")
	}
}
