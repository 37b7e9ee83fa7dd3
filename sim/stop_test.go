package sim

import (
	"reflect"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

// TestOnResultStops checks the early-termination hook: the run ends at the
// result that asked for it, every other request is cancelled, and the report
// says so.
func TestOnResultStops(t *testing.T) {
	reqs := simtest.ReasoningTraffic(t, 500, 5)
	cfg := benchConfig(t)
	seen := 0
	rep, err := Run(cfg, reqs, Options{OnResult: func(r *workload.Result) bool {
		if r.Status == "" || r.Status == workload.StatusCancelled {
			t.Errorf("OnResult saw status %q", r.Status)
		}
		seen++
		return seen == 100
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Stopped {
		t.Error("Stopped not set")
	}
	if seen != 100 {
		t.Errorf("OnResult called %d times after stopping at 100", seen)
	}
	finished, cancelled := 0, 0
	for _, r := range rep.Results {
		switch r.Status {
		case workload.StatusCancelled:
			cancelled++
		case "":
			t.Fatal("a request has no result")
		default:
			finished++
		}
	}
	if finished != 100 || cancelled != 400 {
		t.Errorf("finished %d, cancelled %d; want 100 and 400", finished, cancelled)
	}
}

// TestOnResultNeverStopping checks that a hook that never stops changes
// nothing: the report is the one of a run without it.
func TestOnResultNeverStopping(t *testing.T) {
	reqs := simtest.ReasoningTraffic(t, 300, 5)
	cfg := benchConfig(t)
	plain, err := Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	hooked, err := Run(cfg, reqs, Options{OnResult: func(*workload.Result) bool { n++; return false }})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(reqs) {
		t.Errorf("OnResult called %d times for %d requests", n, len(reqs))
	}
	if hooked.Stopped || !reflect.DeepEqual(plain, hooked) {
		t.Error("a hook that never stops changed the report")
	}
}
