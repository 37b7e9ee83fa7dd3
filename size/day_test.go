package size

import (
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// dayTraffic is three hours, quiet, busy, quiet, of the requests of
// constantTraffic's kind.
func dayTraffic() []workload.Request {
	var reqs []workload.Request
	for h, rate := range []float64{0.2, 2, 0.2} {
		for k := range int(rate * HourS) {
			reqs = append(reqs, workload.Request{ArrivalS: float64(h)*HourS + float64(k)/rate, PromptTokens: 500, ThinkTokens: 600, AnswerTokens: 150})
		}
	}
	return reqs
}

// TestPlanDay: the busy hour needs more replicas than the quiet ones, the
// fixed fleet is sized for it, the plan costs less than the fixed fleet,
// and the autoscaler's replay pays for something between the minimum and
// its maximum all day.
func TestPlanDay(t *testing.T) {
	cands, err := tinySpace(t, 600).Candidates()
	if err != nil {
		t.Fatal(err)
	}
	slos, err := analysis.ParseSLOs("ttft_p99=2s,tpot_p99=60ms")
	if err != nil {
		t.Fatal(err)
	}
	opt := DayOptions{
		Options:   Options{SLOs: slos},
		Autoscale: sim.Autoscale{Min: 1, Metric: sim.ScaleOnKV, Target: 0.7, IntervalS: 15, ScaleUpDelayS: 120, CoolDownS: 300},
	}
	plan, err := PlanDay(cands, dayTraffic(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Deployment == nil || plan.PeakHour != 1 || len(plan.Hours) != 3 {
		t.Fatalf("deployment %v, peak hour %d, %d hours", plan.Deployment, plan.PeakHour, len(plan.Hours))
	}
	quiet, busy := plan.Hours[0].Replicas, plan.Hours[1].Replicas
	if busy <= quiet || plan.FixedReplicas != busy || !plan.Hours[1].Passes {
		t.Errorf("replicas by hour %d/%d/%d, fixed %d", quiet, busy, plan.Hours[2].Replicas, plan.FixedReplicas)
	}
	if !(plan.PlanCost < plan.FixedCost) {
		t.Errorf("plan $%.2f, fixed $%.2f: the plan should cost less", plan.PlanCost, plan.FixedCost)
	}
	perReplicaHour := float64(plan.GPUsPerReplica) * plan.PricePerGPUHour
	if lo, hi := 3*perReplicaHour*0.9, float64(plan.Autoscale.Max)*3.2*perReplicaHour; plan.AutoscaledCost < lo || plan.AutoscaledCost > hi {
		t.Errorf("autoscaled $%.2f outside [%.2f, %.2f]", plan.AutoscaledCost, lo, hi)
	}
	if plan.Hours[1].AutoscaledMax <= 1 || len(plan.Hours[1].SLOValues) != 2 {
		t.Errorf("busy hour autoscaled: %+v", plan.Hours[1])
	}
}

func TestPlanDayRefusesFollowUps(t *testing.T) {
	reqs := []workload.Request{{ID: "a", PromptTokens: 10, AnswerTokens: 10}, {ID: "b", After: "a", PromptTokens: 10, AnswerTokens: 10}}
	slos, _ := analysis.ParseSLOs("ttft_p99=2s")
	cands, _ := tinySpace(t, 600).Candidates()
	if _, err := PlanDay(cands, reqs, DayOptions{Options: Options{SLOs: slos}, Autoscale: sim.Autoscale{Min: 1, Metric: "kv", Target: 0.7, IntervalS: 15}}); err == nil {
		t.Fatal("follow-ups accepted")
	}
}
