package sim

import (
	"fmt"
	"math"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// Autoscale is an autoscaler in front of the replicas, as the field runs
// one for vLLM (Kubernetes' HorizontalPodAutoscaler on a custom metric,
// KEDA, llm-d's variant autoscaler): every IntervalS it reads a metric over
// the ready replicas and asks for
//
//	desired = ceil(ready × metric / Target)
//
// (HPA's rule, with its 10% tolerance), between Min and Max. A replica
// asked for takes ScaleUpDelayS to load its weights and warm up before the
// router sends it anything (and costs from the moment it is asked for); a
// scale-down takes the highest count desired over the last CoolDownS (HPA's
// stabilisation window), stops routing to the replicas removed, newest
// first, and they cost until their last request finishes.
type Autoscale struct {
	Min, Max int
	// Metric is "running" (requests running, waiting or in the API server,
	// per ready replica: vllm:num_requests_running + waiting) or "kv"
	// (vllm:kv_cache_usage_perc, 0..1, the ready replicas' mean).
	Metric        string
	Target        float64
	IntervalS     float64
	ScaleUpDelayS float64
	CoolDownS     float64
}

// Autoscale metrics.
const (
	ScaleOnRunning = "running"
	ScaleOnKV      = "kv"
)

// hpaTolerance is HPA's: no change while metric/target is within 10% of 1.
const hpaTolerance = 0.1

// Validate reports every problem with the policy, each naming its field
// ("Autoscale.Min": the command shows its flag).
func (a *Autoscale) Validate() error {
	var problems inputerr.List
	if a.Min < 1 {
		problems.Fieldf("Autoscale.Min", "must be at least 1, got %d", a.Min)
	}
	if a.Max < a.Min {
		problems.Fieldf("Autoscale.Max", "%d is below %s %d", a.Max, inputerr.Name("Autoscale.Min"), a.Min)
	}
	switch a.Metric {
	case ScaleOnRunning:
		if !(a.Target > 0) || math.IsInf(a.Target, 0) {
			problems.Field("Autoscale.Target", fmt.Errorf("running requests per replica must be positive, got %g", a.Target))
		}
	case ScaleOnKV:
		if !(a.Target > 0 && a.Target <= 1) {
			problems.Field("Autoscale.Target", fmt.Errorf("KV usage must be in (0, 1], got %g", a.Target))
		}
	default:
		problems.Fieldf("Autoscale.Metric", "%q: want running or kv", a.Metric)
	}
	for _, d := range []struct {
		field string
		v     float64
		pos   bool
	}{{"Autoscale.IntervalS", a.IntervalS, true}, {"Autoscale.ScaleUpDelayS", a.ScaleUpDelayS, false}, {"Autoscale.CoolDownS", a.CoolDownS, false}} {
		if math.IsNaN(d.v) || math.IsInf(d.v, 0) || d.v < 0 || d.pos && d.v == 0 {
			problems.Fieldf(d.field, "must be a non-negative duration (positive for the interval), got %gs", d.v)
		}
	}
	return problems.Err()
}

// ScalePoint is the fleet from TimeS on: replicas ready (routed to),
// starting (asked for, loading) and draining (no longer routed to, still
// finishing).
type ScalePoint struct {
	TimeS                     float64
	Ready, Starting, Draining int
}

// Replica states under an autoscaler.
const (
	replicaOff = iota
	replicaStarting
	replicaReady
	replicaDraining
)

// autoscaler is an Autoscale policy at work on a cluster's engines.
type autoscaler struct {
	policy   Autoscale
	interval int64
	delay    int64
	coolDown int64
	state    []int   // by engine
	readyAt  []int64 // starting engines: when they are ready
	since    []int64 // when each costing engine started costing
	ready    []*engine
	nextTick int64
	// recent are the counts desired over the cool-down window, oldest first.
	recent  []desiredAt
	costNs  float64 // replica-nanoseconds paid so far
	history []ScalePoint
}

type desiredAt struct {
	t int64
	n int
}

func newAutoscaler(p Autoscale, engines []*engine) *autoscaler {
	a := &autoscaler{
		policy: p, interval: secondsToNs(p.IntervalS), delay: secondsToNs(p.ScaleUpDelayS), coolDown: secondsToNs(p.CoolDownS),
		state: make([]int, len(engines)), readyAt: make([]int64, len(engines)), since: make([]int64, len(engines)),
		nextTick: secondsToNs(p.IntervalS),
	}
	for _, e := range engines[:p.Min] {
		a.state[e.id] = replicaReady
		a.ready = append(a.ready, e)
	}
	a.record(0)
	return a
}

// next is the autoscaler's next event: a replica ready, or a tick.
func (a *autoscaler) next() int64 {
	t := a.nextTick
	for id, s := range a.state {
		if s == replicaStarting {
			t = min(t, a.readyAt[id])
		}
	}
	return t
}

// fire handles the autoscaler's event at t: replicas ready by then join the
// router, and at a tick the metric is read and the fleet resized.
func (a *autoscaler) fire(c *cluster, t int64) {
	changed := false
	for _, e := range c.engines {
		if a.state[e.id] == replicaStarting && a.readyAt[e.id] <= t {
			a.state[e.id] = replicaReady
			a.ready = append(a.ready, e)
			changed = true
		}
	}
	if t >= a.nextTick {
		a.nextTick += a.interval
		changed = a.resize(c, t) || changed
	}
	if changed {
		a.record(t)
	}
}

// resize applies HPA's rule at t and reports whether the fleet changed.
func (a *autoscaler) resize(c *cluster, t int64) bool {
	ready := len(a.ready)
	var sum float64
	for _, e := range a.ready {
		switch a.policy.Metric {
		case ScaleOnKV:
			sum += e.pool.usage()
		default:
			sum += float64(e.load())
		}
	}
	metric := sum / float64(max(ready, 1))
	desired := ready
	if ratio := metric / a.policy.Target; math.Abs(ratio-1) > hpaTolerance {
		desired = int(math.Ceil(float64(ready) * ratio))
	}
	desired = min(max(desired, a.policy.Min), a.policy.Max)
	a.recent = append(a.recent, desiredAt{t, desired})
	for len(a.recent) > 1 && a.recent[0].t < t-a.coolDown {
		a.recent = a.recent[1:]
	}
	starting := 0
	for _, s := range a.state {
		if s == replicaStarting {
			starting++
		}
	}
	switch {
	case desired > ready+starting:
		for _, e := range c.engines {
			if desired <= ready+starting {
				break
			}
			if a.state[e.id] == replicaOff {
				a.state[e.id], a.readyAt[e.id], a.since[e.id] = replicaStarting, t+a.delay, t
				starting++
			}
		}
		return true
	case starting == 0:
		keep := 0
		for _, d := range a.recent {
			keep = max(keep, d.n)
		}
		if keep >= ready {
			return false
		}
		for len(a.ready) > keep {
			e := a.ready[len(a.ready)-1]
			a.ready = a.ready[:len(a.ready)-1]
			a.state[e.id] = replicaDraining
			a.drained(e, t)
		}
		return true
	}
	return false
}

// drained turns a draining replica off once it holds no request.
func (a *autoscaler) drained(e *engine, t int64) {
	if a.state[e.id] != replicaDraining || e.load() > 0 {
		return
	}
	a.state[e.id] = replicaOff
	a.costNs += float64(t - a.since[e.id])
	a.record(t)
}

// close ends the run at t: every replica still costing pays until then.
func (a *autoscaler) close(t int64) {
	for id, s := range a.state {
		if s != replicaOff {
			a.costNs += float64(t - a.since[id])
		}
	}
}

func (a *autoscaler) record(t int64) {
	p := ScalePoint{TimeS: nsToSeconds(t), Ready: len(a.ready)}
	for _, s := range a.state {
		switch s {
		case replicaStarting:
			p.Starting++
		case replicaDraining:
			p.Draining++
		}
	}
	if n := len(a.history); n > 0 && a.history[n-1].TimeS == p.TimeS {
		a.history[n-1] = p
		return
	}
	a.history = append(a.history, p)
}
