package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/workload"
)

// burstTraffic is 0.5 req/s for 10 minutes, 8 req/s for 10 minutes, then
// 0.5 req/s for 20 minutes, of short reasoning requests.
func burstTraffic() []workload.Request {
	var reqs []workload.Request
	t := 0.0
	for _, phase := range []struct{ rate, until float64 }{{0.5, 600}, {8, 1200}, {0.5, 2400}} {
		for ; t < phase.until; t += 1 / phase.rate {
			reqs = append(reqs, workload.Request{ArrivalS: t, PromptTokens: 500, ThinkTokens: 800, AnswerTokens: 200})
		}
	}
	return reqs
}

// TestAutoscaleFollowsTheBurst: the fleet grows during the burst, no
// sooner than the scale-up delay after it asked, no request reaches a
// replica before it is ready, and the fleet shrinks back to the minimum
// once the cool-down has passed; it pays for what it held.
func TestAutoscaleFollowsTheBurst(t *testing.T) {
	cfg := benchConfig(t)
	policy := &Autoscale{Min: 1, Max: 8, Metric: ScaleOnRunning, Target: 16, IntervalS: 15, ScaleUpDelayS: 120, CoolDownS: 300}
	rep, err := Run(cfg, burstTraffic(), Options{Autoscale: policy})
	if err != nil {
		t.Fatal(err)
	}
	peak, readyAt := 0, map[int]float64{0: 0}
	askedAt := -1.0
	for _, p := range rep.Scaling {
		if p.Starting > 0 && askedAt < 0 {
			askedAt = p.TimeS
		}
		if p.Ready > peak {
			for r := peak; r < p.Ready; r++ {
				readyAt[r] = p.TimeS // replicas become ready in id order
			}
			peak = p.Ready
		}
	}
	if peak < 3 {
		t.Fatalf("the fleet peaked at %d ready replicas during a 16x burst: %+v", peak, rep.Scaling)
	}
	if askedAt < 600 || readyAt[1]-askedAt < 120-1e-9 {
		t.Errorf("asked for replicas at %.0f s (burst at 600 s), the second ready at %.0f s: the delay is 120 s", askedAt, readyAt[1])
	}
	last := rep.Scaling[len(rep.Scaling)-1]
	if last.Ready != 1 || last.Starting != 0 {
		t.Errorf("after the burst the fleet ends at %+v, want 1 ready", last)
	}
	for _, r := range rep.Results {
		if at, ok := readyAt[r.Replica]; !ok || r.ArrivalS < at-1e-9 {
			t.Fatalf("request %s arrived at %.1f s on replica %d, ready at %.1f s", r.ID, r.ArrivalS, r.Replica, at)
		}
	}
	if lo, hi := rep.DurationS, float64(peak)*rep.DurationS; rep.ReplicaSeconds < lo || rep.ReplicaSeconds > hi {
		t.Errorf("replica-seconds %.0f outside [%.0f, %.0f]", rep.ReplicaSeconds, lo, hi)
	}
}

// TestAutoscaleFixedIsAFleet: an autoscaler whose minimum is its maximum is
// a fixed fleet of that size: the same results, to the nanosecond.
func TestAutoscaleFixedIsAFleet(t *testing.T) {
	cfg := benchConfig(t)
	cfg.Replicas = 3
	reqs := burstTraffic()
	fixed, err := Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := Run(cfg, reqs, Options{Autoscale: &Autoscale{Min: 3, Max: 3, Metric: ScaleOnKV, Target: 0.5, IntervalS: 15, CoolDownS: 60}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fixed.Results)
	b, _ := json.Marshal(scaled.Results)
	if !bytes.Equal(a, b) {
		t.Fatalf("a 3..3 autoscaler changed the results:\n%s", firstDiff(a, b))
	}
	if want := 3 * scaled.DurationS; math.Abs(scaled.ReplicaSeconds-want) > 1e-6*want {
		t.Errorf("replica-seconds %g, want 3 × %g", scaled.ReplicaSeconds, scaled.DurationS)
	}
}

func TestAutoscaleValidate(t *testing.T) {
	bad := Autoscale{Min: 0, Max: -1, Metric: "qps", Target: -1, IntervalS: 0, ScaleUpDelayS: math.NaN(), CoolDownS: -1}
	err := bad.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{"Autoscale.Min", "Autoscale.Max", "Autoscale.Metric", "Autoscale.IntervalS", "Autoscale.ScaleUpDelayS", "Autoscale.CoolDownS"}
	if got := inputerr.Fields(err); !slices.Equal(got, want) {
		t.Errorf("fields %v, want %v: %v", got, want, err)
	}
}
