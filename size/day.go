package size

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// A day's traffic asks how many replicas each hour needs and what the day
// costs, not how many replicas. PlanDay answers it three ways for the
// deployment size chooses at the busiest hour: a fixed fleet sized for that
// hour all day; an hourly plan, each hour's fewest replicas meeting the
// SLOs on that hour's traffic alone (a schedule an operator sets, scaled
// ahead of each hour); and an autoscaler (sim.Autoscale) replayed through
// the simulator over the whole day, with the SLOs checked hour by hour,
// ramps included.

// HourS is the length of a plan's hour.
const HourS = 3600.0

// DayOptions are PlanDay's: the search's options and the autoscaler
// replayed (its Max defaults to twice the plan's peak, within MaxReplicas).
type DayOptions struct {
	Options
	Autoscale sim.Autoscale
}

// DayPlan is PlanDay's answer, as `size --by-hour -o json` prints it.
type DayPlan struct {
	// Deployment is the candidate chosen at the busiest hour, Peak its
	// search there.
	Deployment *Outcome `json:"deployment"`
	Peak       *Result  `json:"peak_hour_search"`
	PeakHour   int      `json:"peak_hour"`
	Hours      []Hour   `json:"hours"`
	SLOs       []string `json:"slos"`
	// Cost over the traffic's span (SpanS: from the first hour's start to
	// the last request's end), USD: a fleet of the peak hour's replicas all
	// the time, the hourly plan, and the autoscaled fleet as replayed (every
	// replica from when it was asked for to when it went away).
	SpanS           float64 `json:"span_s"`
	FixedReplicas   int     `json:"fixed_replicas"`
	FixedCost       float64 `json:"fixed_cost"`
	PlanCost        float64 `json:"plan_cost"`
	AutoscaledCost  float64 `json:"autoscaled_cost"`
	GPUsPerReplica  int     `json:"gpus_per_replica"`
	PricePerGPUHour float64 `json:"price_per_gpu_hour"`
	// Autoscale is the policy replayed; Scaling the fleet over time.
	Autoscale sim.Autoscale    `json:"autoscale"`
	Scaling   []sim.ScalePoint `json:"scaling"`
}

// Hour is one hour of the plan.
type Hour struct {
	Hour     int     `json:"hour"`
	Requests int     `json:"requests"`
	RatePerS float64 `json:"rate_per_s"`
	// Replicas is the fewest meeting every SLO on this hour's traffic
	// alone; Passes false when even MaxReplicas does not.
	Replicas int  `json:"replicas"`
	Passes   bool `json:"passes"`
	// The autoscaled replay over this hour: replicas paid for (mean) and
	// ready (most), each SLO's value over the requests that arrived in the
	// hour, and whether all held.
	AutoscaledMean float64            `json:"autoscaled_replicas_mean"`
	AutoscaledMax  int                `json:"autoscaled_ready_max"`
	SLOValues      map[string]float64 `json:"slo_values_s"`
	AutoscaledMet  bool               `json:"autoscaled_slos_met"`
}

// PlanDay plans the requests hour by hour (see the file comment). A day
// none of whose candidates meets the SLOs at its busiest hour has no
// Deployment.
func PlanDay(cands []Candidate, reqs []workload.Request, opt DayOptions) (*DayPlan, error) {
	opt.defaults()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	hours, err := splitHours(reqs)
	if err != nil {
		return nil, err
	}
	plan := &DayPlan{SLOs: sloNames(opt.SLOs)}
	for h, hr := range hours {
		plan.Hours = append(plan.Hours, Hour{Hour: h, Requests: len(hr), RatePerS: float64(len(hr)) / HourS})
		if len(hr) > len(hours[plan.PeakHour]) {
			plan.PeakHour = h
		}
	}
	peak, err := Search(cands, hours[plan.PeakHour], opt.Options)
	if err != nil {
		return nil, err
	}
	plan.Peak = peak
	if peak.Best == nil {
		return plan, nil
	}
	plan.Deployment = peak.Best
	cfg := peak.Best.cand.Config
	cfg.Router = "least-requests" // as the search runs it
	plan.GPUsPerReplica = max(cfg.TensorParallelSize, 1) * max(cfg.PipelineParallelSize, 1)
	plan.PricePerGPUHour = price(peak.Best.cand, opt.Prices)

	if err := planHours(plan, cfg, hours, &opt); err != nil {
		return nil, err
	}
	for _, h := range plan.Hours {
		plan.FixedReplicas = max(plan.FixedReplicas, h.Replicas)
	}
	policy := opt.Autoscale
	if policy.Max == 0 {
		policy.Max = min(max(2*plan.FixedReplicas, policy.Min), opt.MaxReplicas)
	}
	plan.Autoscale = policy
	rep, err := sim.Run(cfg, reqs, sim.Options{Autoscale: &policy})
	if err != nil {
		return nil, err
	}
	plan.Scaling = rep.Scaling
	// The three fleets over one span, the replay's: from the first hour's
	// start to its last request's end.
	plan.SpanS = rep.DurationS
	perReplicaS := float64(plan.GPUsPerReplica) * plan.PricePerGPUHour / HourS
	plan.AutoscaledCost = rep.ReplicaSeconds * perReplicaS
	plan.FixedCost = float64(plan.FixedReplicas) * plan.SpanS * perReplicaS
	for _, h := range plan.Hours {
		from, to := float64(h.Hour)*HourS, float64(h.Hour+1)*HourS
		if h.Hour == len(plan.Hours)-1 {
			to = max(to, plan.SpanS) // the last hour's requests run on
		}
		plan.PlanCost += float64(h.Replicas) * max(0, min(to, plan.SpanS)-from) * perReplicaS
	}
	judgeHours(plan, rep, opt.SLOs)
	return plan, nil
}

// splitHours puts each request in the hour it arrives in, its arrival
// measured from that hour's start.
func splitHours(reqs []workload.Request) ([][]workload.Request, error) {
	if len(reqs) == 0 {
		return nil, errors.New("size --by-hour: no requests")
	}
	var hours [][]workload.Request
	for i := range reqs {
		r := reqs[i]
		if r.After != "" {
			return nil, fmt.Errorf("size --by-hour: request %s is a follow-up (two-phase budget, escalation): an hourly plan takes requests that arrive on their own", r.ID)
		}
		h := int(math.Floor(r.ArrivalS / HourS))
		if h < 0 {
			return nil, fmt.Errorf("size --by-hour: request %s arrives at %g s, before the traffic's start", r.ID, r.ArrivalS)
		}
		for len(hours) <= h {
			hours = append(hours, nil)
		}
		r.ArrivalS -= float64(h) * HourS
		hours[h] = append(hours[h], r)
	}
	return hours, nil
}

// planHours finds each hour's fewest replicas, on the search's workers.
func planHours(plan *DayPlan, cfg sim.Config, hours [][]workload.Request, opt *DayOptions) error {
	capacity, err := sim.ComputeCapacity(&cfg)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(hours))
	next := make(chan int)
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range next {
				hour := &plan.Hours[h]
				if len(hours[h]) == 0 {
					hour.Replicas, hour.Passes = opt.Autoscale.Min, true
					continue
				}
				rn := &runner{cfg: cfg, blocks: capacity.NumGPUBlocks, opt: &opt.Options, memo: newMemo()}
				r, m, err := fewestReplicas(rn, hours[h])
				hour.Replicas, hour.Passes, errs[h] = max(r, opt.Autoscale.Min), m.Passes(), err
			}
		}()
	}
	for h := range hours {
		next <- h
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// judgeHours checks the SLOs hour by hour over the autoscaled replay's
// requests, by the hour they arrived in, and what the fleet was each hour.
func judgeHours(plan *DayPlan, rep *sim.Report, slos []analysis.SLO) {
	byHour := make([][]workload.Result, len(plan.Hours))
	for _, r := range rep.Results {
		if h := int(math.Floor(r.ArrivalS / HourS)); h >= 0 && h < len(byHour) {
			byHour[h] = append(byHour[h], r)
		}
	}
	for h := range plan.Hours {
		hour := &plan.Hours[h]
		hour.SLOValues = map[string]float64{}
		hour.AutoscaledMet = true
		if len(byHour[h]) == 0 {
			continue
		}
		s := analysis.Summarize("simulation", byHour[h], HourS)
		for _, slo := range slos {
			v := slo.Of(s.LatencyS)
			hour.SLOValues[slo.Name()] = v
			if v > slo.LimitS {
				hour.AutoscaledMet = false
			}
		}
		if s.Requests.Rejected > 0 { // vLLM's 400s fail a plan as they fail a search
			hour.AutoscaledMet = false
		}
		hour.AutoscaledMean, hour.AutoscaledMax = fleetOver(rep.Scaling, float64(h)*HourS, float64(h+1)*HourS)
	}
}

// fleetOver is the fleet over [from, to): the time-weighted mean of the
// replicas paid for (ready, starting, draining) and the most ready.
func fleetOver(points []sim.ScalePoint, from, to float64) (mean float64, most int) {
	for i, p := range points {
		end := to
		if i+1 < len(points) {
			end = min(end, points[i+1].TimeS)
		}
		start := max(from, p.TimeS)
		if end <= start {
			continue
		}
		mean += float64(p.Ready+p.Starting+p.Draining) * (end - start)
		most = max(most, p.Ready)
	}
	return mean / (to - from), most
}

func sloNames(slos []analysis.SLO) []string {
	var names []string
	for _, s := range slos {
		names = append(names, s.String())
	}
	return names
}
