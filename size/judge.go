package size

import (
	"math"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Names of the checks that are not latency SLOs, as failed_slos lists them.
const (
	checkPreemption = "preemption_rate"
	checkRejected   = "rejected" // requests over max_model_len: not served at all
)

// judge watches a run's results as they finish and stops it as soon as the
// verdict is certain to be "fails". A search spends most of its runs on
// deployments that are too small, and an overloaded deployment shows it
// early: stopping there makes those runs cost a fraction of a full one.
//
// The bounds hold whatever the unfinished requests do. A quantile at rank
// h = (n−1)·p (analysis.Quantile) exceeds the limit once the values above
// the limit fill every rank from floor(h) up, that is once there are
// n − floor((n−1)·p) of them; that count grows with n, so reaching it for n
// = every request proves it for the completed ones, however many they end
// up being. A mean exceeds the limit once the sum so far over every request
// does, latencies being non-negative.
type judge struct {
	slos     []analysis.SLO
	latency  []*analysis.Latency // each SLO's
	n        int                 // requests in the run: an upper bound on any metric's count
	maxPre   float64             // preemptions per request allowed
	need     []int               // quantile SLOs: values above the limit that prove failure
	over     []int               // values above the limit so far
	sum      []float64
	preempts int64
}

func newJudge(slos []analysis.SLO, n int, maxPreemptionRate float64) *judge {
	j := &judge{slos: slos, n: n, maxPre: maxPreemptionRate,
		latency: make([]*analysis.Latency, len(slos)),
		need:    make([]int, len(slos)), over: make([]int, len(slos)), sum: make([]float64, len(slos))}
	for i, s := range slos {
		j.latency[i] = s.Latency()
		if p := s.Quantile(); p >= 0 {
			j.need[i] = n - int(math.Floor(float64(n-1)*p))
		}
	}
	return j
}

// observe is sim.Options.OnResult: true stops the run.
func (j *judge) observe(r *workload.Result) bool {
	j.preempts += int64(r.Preemptions)
	if float64(j.preempts) > j.maxPre*float64(j.n) {
		return true
	}
	if r.Status == workload.StatusRejected {
		return true
	}
	if !r.OK() {
		return false
	}
	for i, s := range j.slos {
		v, ok := j.latency[i].Counted(r)
		if !ok {
			continue
		}
		if j.need[i] > 0 {
			if v > s.LimitS {
				j.over[i]++
				if j.over[i] >= j.need[i] {
					return true
				}
			}
			continue
		}
		j.sum[i] += v
		if j.sum[i] > s.LimitS*float64(j.n) {
			return true
		}
	}
	return false
}

// Measurement is what one run showed, and which checks it failed.
type Measurement struct {
	Latencies   analysis.Latencies
	Preemptions int64
	// PreemptionRate is preemptions per request.
	PreemptionRate float64
	KVUsagePeak    float64
	Rejected       int
	// Complete is false when the run stopped at the first certain failure:
	// its figures then cover the requests finished by then only.
	Complete bool
	Finished int      // requests that finished (all of them when Complete)
	Failed   []string // the SLO names and checks that failed
}

// Passes reports whether every check held.
func (m *Measurement) Passes() bool { return len(m.Failed) == 0 }

// measure judges a finished (or stopped) run against the SLOs.
func measure(rep *sim.Report, slos []analysis.SLO, maxPreemptionRate float64) Measurement {
	s := analysis.Summarize("simulation", rep.Results, rep.DurationS)
	m := Measurement{
		Latencies:   s.LatencyS,
		Preemptions: rep.Preemptions,
		KVUsagePeak: rep.KVUsagePeak,
		Rejected:    s.Requests.Rejected,
		Complete:    !rep.Stopped,
	}
	for i := range rep.Results {
		if rep.Results[i].Status != workload.StatusCancelled {
			m.Finished++
		}
	}
	if n := len(rep.Results); n > 0 {
		m.PreemptionRate = float64(rep.Preemptions) / float64(n)
	}
	for _, slo := range slos {
		if slo.Of(s.LatencyS) > slo.LimitS {
			m.Failed = append(m.Failed, slo.Name())
		}
	}
	if m.PreemptionRate > maxPreemptionRate {
		m.Failed = append(m.Failed, checkPreemption)
	}
	if m.Rejected > 0 {
		m.Failed = append(m.Failed, checkRejected)
	}
	if rep.Stopped && len(m.Failed) == 0 {
		// The judge's bounds imply one of the checks above; this guards the
		// verdict should they ever disagree.
		m.Failed = append(m.Failed, "stopped")
	}
	return m
}
