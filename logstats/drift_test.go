package logstats

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/logstats/logstatstest"
	"github.com/thinkcap/thinkcap/workload"
)

// noThinking makes n low/chat requests that do not think at all.
func noThinking(n int) []workload.Request {
	reqs := logstatstest.DriftClass("low", "chat", n, 0, -1)
	for i := range reqs {
		reqs[i].ThinkTokens = 0
	}
	return reqs
}

func driftLogOf(reqs ...[]workload.Request) *DriftLog {
	l := NewDriftLog()
	logstatstest.Feed(l, reqs...)
	return l
}

func TestDriftAlertRule(t *testing.T) {
	tests := []struct {
		name      string
		base, new []workload.Request
		alert     bool
		message   string
	}{
		{"rise with flat accuracy",
			logstatstest.DriftClass("high", "math", 100, 1000, 70), logstatstest.DriftClass("high", "math", 100, 1500, 70),
			true, "accuracy stayed flat (70.0% → 70.0%)"},
		{"rise with accuracy down",
			logstatstest.DriftClass("high", "math", 100, 1000, 70), logstatstest.DriftClass("high", "math", 100, 1500, 60),
			true, "accuracy fell (70.0% → 60.0%)"},
		{"rise with accuracy up exactly the tolerance",
			logstatstest.DriftClass("high", "math", 100, 1000, 70), logstatstest.DriftClass("high", "math", 100, 1500, 72),
			true, "accuracy stayed flat"},
		{"rise with accuracy up",
			logstatstest.DriftClass("high", "math", 100, 1000, 70), logstatstest.DriftClass("high", "math", 100, 1500, 80),
			false, ""},
		{"rise without accuracy",
			logstatstest.DriftClass("high", "math", 100, 1000, -1), logstatstest.DriftClass("high", "math", 100, 1500, -1),
			true, "the logs carry no accuracy"},
		{"rise with accuracy in one log only",
			logstatstest.DriftClass("high", "math", 100, 1000, 70), logstatstest.DriftClass("high", "math", 100, 1500, -1),
			true, "only one log carries accuracy"},
		{"rise from little",
			logstatstest.DriftClass("low", "chat", 100, 20, -1), logstatstest.DriftClass("low", "chat", 100, 300, -1),
			true, "rose 1,400.0% (20.0 → 300)"},
		{"rise from zero",
			noThinking(100), logstatstest.DriftClass("low", "chat", 100, 300, -1),
			true, "rose from 0 to 300"},
		{"rise below threshold",
			logstatstest.DriftClass("high", "math", 100, 1000, -1), logstatstest.DriftClass("high", "math", 100, 1390, -1),
			false, ""},
		{"fall",
			logstatstest.DriftClass("high", "math", 100, 1000, -1), logstatstest.DriftClass("high", "math", 100, 500, -1),
			false, ""},
		{"small class",
			logstatstest.DriftClass("high", "math", 29, 1000, -1), logstatstest.DriftClass("high", "math", 100, 3000, -1),
			false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := CompareDrift(driftLogOf(tt.base), driftLogOf(tt.new), DefaultDriftOptions())
			if len(rep.Classes) != 1 {
				t.Fatalf("%d classes", len(rep.Classes))
			}
			c := rep.Classes[0]
			if c.Alert != tt.alert || rep.Overall.Alert != tt.alert {
				t.Fatalf("class alert %v, overall alert %v, want %v; alerts %v", c.Alert, rep.Overall.Alert, tt.alert, rep.Alerts)
			}
			if !tt.alert {
				if len(rep.Alerts) != 0 {
					t.Fatalf("alerts %v", rep.Alerts)
				}
				return
			}
			if len(rep.Alerts) != 2 || rep.Alerts[1].Class != "overall" {
				t.Fatalf("alerts %v, want the class and overall", rep.Alerts)
			}
			if !strings.Contains(rep.Alerts[0].Message, tt.message) {
				t.Errorf("message %q lacks %q", rep.Alerts[0].Message, tt.message)
			}
		})
	}
}

// TestDriftSmallClassesIgnored: a small class that triples its thinking
// does not alert, while the large class beside it and the overall do.
func TestDriftSmallClassesIgnored(t *testing.T) {
	base := driftLogOf(logstatstest.DriftClass("low", "chat", 10, 100, -1), logstatstest.DriftClass("high", "math", 200, 1000, -1))
	next := driftLogOf(logstatstest.DriftClass("low", "chat", 10, 300, -1), logstatstest.DriftClass("high", "math", 200, 1700, -1),
		logstatstest.DriftClass("medium", "rag", 50, 500, -1)) // new class: nothing to compare with
	rep := CompareDrift(base, next, DefaultDriftOptions())
	got := map[string]bool{}
	for _, c := range rep.Classes {
		got[c.Mode+"/"+c.Category] = c.Alert
	}
	want := map[string]bool{"low/chat": false, "medium/rag": false, "high/math": true}
	for k, v := range want {
		if a, ok := got[k]; !ok || a != v {
			t.Errorf("%s: alert %v (present %v), want %v", k, a, ok, v)
		}
	}
	if len(rep.Classes) != 3 || rep.Classes[0].Mode != "low" || rep.Classes[1].Mode != "medium" || rep.Classes[2].Mode != "high" {
		t.Errorf("classes not in effort order: %+v", rep.Classes)
	}
	rag := rep.Classes[1]
	if rag.Base.Count != 0 || rag.KS != nil || rag.ThinkMeanChange != nil {
		t.Errorf("class only in the new log: %+v", rag.DriftComparison)
	}
	if len(rep.Alerts) != 2 || rep.Alerts[0].Class != "high/math" || !rep.Overall.Alert {
		t.Errorf("alerts %+v", rep.Alerts)
	}
}

func TestDriftNumbers(t *testing.T) {
	rep := CompareDrift(driftLogOf(logstatstest.DriftClass("high", "math", 100, 1000, 70)),
		driftLogOf(logstatstest.DriftClass("high", "math", 50, 1500, 40)), DefaultDriftOptions())
	c := rep.Classes[0]
	checkNear(t, "base mean", c.Base.ThinkMean, 1000)
	checkNear(t, "new mean", c.New.ThinkMean, 1500)
	checkNear(t, "mean change", *c.ThinkMeanChange, 0.5)
	// p99 of 100 values cycling 980..1020: the top 20 are 1020.
	checkNear(t, "base p99", c.Base.ThinkP99, 1020)
	checkNear(t, "p99 change", *c.ThinkP99Change, 1520.0/1020-1)
	checkNear(t, "base accuracy", *c.Base.Accuracy, 0.7)
	checkNear(t, "new accuracy", *c.New.Accuracy, 0.8)
	checkNear(t, "accuracy change", *c.AccuracyChange, 0.1)
	if c.KS == nil || c.KS.D != 1 || c.KS.PValue > 1e-10 {
		t.Errorf("disjoint samples: KS %+v, want D=1 and a tiny p", c.KS)
	}
	if c.Base.Judged != 100 || c.New.Judged != 50 {
		t.Errorf("judged %d, %d", c.Base.Judged, c.New.Judged)
	}
}

func TestDriftOptionsValidate(t *testing.T) {
	if err := DefaultDriftOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := DriftOptions{Threshold: -0.1, MinCount: -1, AccuracyTolerance: 2}
	err := bad.Validate()
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("Validate(%+v) = %v, want three problems", bad, err)
	}
}

func TestDriftJSON(t *testing.T) {
	rep := CompareDrift(driftLogOf(logstatstest.DriftClass("high", "math", 40, 1000, -1)),
		driftLogOf(logstatstest.DriftClass("high", "math", 40, 1000, -1)), DefaultDriftOptions())
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"alerts":[]`, `"classes":[{"mode":"high","category":"math"`,
		`"ks":{"statistic":0,"p_value":1}`, `"accuracy":null`, `"think_mean_change":0`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
}
