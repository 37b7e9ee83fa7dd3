package calibrate

import (
	"sort"

	"github.com/thinkcap/thinkcap/sim"
)

// stepClock counts one replica's engine steps over time. A request's
// tokens come one per decode step, not evenly in time: when the batch is
// big, steps are slow and every decoding request advances slowly. The
// clock integrates the step rate of the rebuilt batches (1 / step time,
// less the time prefill steps take), so that a request's progress at t is
// the share of its span's steps done by t.
type stepClock struct {
	t0, h float64
	n     []float64 // cumulative steps at t0 + i·h
}

// clockCells is the clock's resolution over a run.
const clockCells = 4096

// at is the steps counted by time t.
func (c *stepClock) at(t float64) float64 {
	x := (t - c.t0) / c.h
	switch {
	case x <= 0:
		return c.n[0]
	case x >= float64(len(c.n)-1):
		return c.n[len(c.n)-1]
	}
	i := int(x)
	return c.n[i] + (x-float64(i))*(c.n[i+1]-c.n[i])
}

// timeOf is the first time the clock reaches n steps.
func (c *stepClock) timeOf(n float64) float64 {
	i := sort.SearchFloat64s(c.n, n)
	switch {
	case i <= 0:
		return c.t0
	case i >= len(c.n):
		return c.t0 + float64(len(c.n)-1)*c.h
	}
	lo, hi := c.n[i-1], c.n[i]
	frac := 1.0
	if hi > lo {
		frac = (n - lo) / (hi - lo)
	}
	return c.t0 + (float64(i-1)+frac)*c.h
}

// progress is the share of q's decode steps done by t (0 before its first
// token, 1 after its last), by the replica's clock or, without one,
// evenly in time.
func (r *reconstruction) progress(q *timedRequest, t float64) float64 {
	steps := 0.0
	if c := r.clock(q.replica); c != nil {
		steps = c.at(t)
	}
	return r.progressAt(q, t, steps)
}

// progressAt is progress given the replica clock's count at t, so that a
// batch of many requests reads the clock once.
func (r *reconstruction) progressAt(q *timedRequest, t, steps float64) float64 {
	var u float64
	if r.clock(q.replica) != nil && q.stepsEnd > q.stepsFirst {
		u = (steps - q.stepsFirst) / (q.stepsEnd - q.stepsFirst)
	} else {
		u = (t - q.first) / (q.end - q.first)
	}
	return min(max(u, 0), 1)
}

func (r *reconstruction) clock(replica int) *stepClock {
	if replica < len(r.clocks) {
		return r.clocks[replica]
	}
	return nil
}

// buildClocks sets every replica's clock from the batches rebuilt with
// model's step times: twice, the second time with the progress the first
// clock gives.
func (r *reconstruction) buildClocks(model *sim.StepModel) {
	replicas := 0
	for i := range r.reqs {
		replicas = max(replicas, r.reqs[i].replica+1)
	}
	for range 2 {
		clocks := make([]*stepClock, replicas)
		for rep := range replicas {
			clocks[rep] = r.buildClock(rep, model)
		}
		r.clocks = clocks
		for i := range r.reqs {
			q := &r.reqs[i]
			if c := r.clocks[q.replica]; c != nil {
				q.stepsFirst, q.stepsEnd = c.at(q.first), c.at(q.end)
			}
		}
	}
}

func (r *reconstruction) buildClock(replica int, model *sim.StepModel) *stepClock {
	var mine []*timedRequest
	t0, t1 := 0.0, 0.0
	for i := range r.reqs {
		q := &r.reqs[i]
		if q.replica != replica {
			continue
		}
		if len(mine) == 0 || q.arrive < t0 {
			t0 = q.arrive
		}
		t1 = max(t1, q.end)
		mine = append(mine, q)
	}
	if len(mine) == 0 || t1 <= t0 {
		return nil
	}
	c := &stepClock{t0: t0, h: (t1 - t0) / clockCells, n: make([]float64, clockCells+1)}
	busy := make([]float64, clockCells)  // seconds of each cell taken by prefill steps
	extra := make([]float64, clockCells) // prefill steps ending in each cell
	cell := func(t float64) int { return min(max(int((t-t0)/c.h), 0), clockCells-1) }
	// Prefill steps end at first tokens; their time is the rebuilt step's.
	sort.Slice(mine, func(a, b int) bool { return mine[a].first < mine[b].first })
	for _, q := range mine {
		cs := r.chunks(q)
		end := q.first
		for m := len(cs) - 1; m >= 0; m-- {
			b := r.batchAt(replica, end, end)
			b.Add(cs[m].start, cs[m].n, 0, false)
			d := model.StepTimeNs(&b) / 1e9
			extra[cell(end)]++
			for t := end - d; t < end; {
				k := cell(t)
				next := min(end, t0+float64(k+1)*c.h)
				if next <= t {
					break
				}
				busy[k] += next - t
				t = next
			}
			end -= d
		}
	}
	for k := range clockCells {
		t := t0 + (float64(k)+0.5)*c.h
		steps := extra[k]
		if b := r.batchAt(replica, t, t); b.NumReqs > 0 {
			if d := model.StepTimeNs(&b) / 1e9; d > 0 {
				steps += max(c.h-busy[k], 0) / d
			}
		}
		c.n[k+1] = c.n[k] + steps
	}
	return c
}
