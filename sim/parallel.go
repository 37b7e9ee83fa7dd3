package sim

import (
	"runtime"
	"sync"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/workload"
)

// Replicas behind a round-robin router on an open loop never hear of each
// other: which replica a request goes to is fixed by its place among the
// requests vLLM does not reject outright, and nothing one replica does
// reaches another (no follow-ups, no closed loop, no callback that can stop
// the run). Such a run is simulated one replica per goroutine, each replica
// exactly as the whole cluster would step it (its own engine, API server,
// random streams and requests), and the replicas' results are handed to
// Options.Sink in the order the whole cluster would finish them.
// TestParallelReplicasEquivalence checks both.

// parallelReplicas reports whether c's replicas can run on their own.
func (c *cluster) parallelReplicas() bool {
	return !sequentialOnly && c.scaler == nil && len(c.engines) > 1 && runtime.GOMAXPROCS(0) > 1 &&
		c.opt.Concurrency == 0 && c.follow.parent == nil && c.opt.OnResult == nil && c.opt.OnStep == nil &&
		!statefulRouter(c.cfg.Router)
}

// sequentialOnly turns the parallel path off: the equivalence test's
// reference.
var sequentialOnly bool

// sinkEntry is a finished result on its way to the sink, with what orders
// it: its time, whether an arrival produced it (a rejection: arrivals go
// before engine events at one instant), and its replica.
type sinkEntry struct {
	t       int64
	arrival bool
	replica int
	res     workload.Result
}

func (a *sinkEntry) before(b *sinkEntry) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.arrival != b.arrival {
		return a.arrival
	}
	return a.replica < b.replica
}

// runParallel runs each replica as a cluster of one and merges them:
// GOMAXPROCS workers taking replicas in turn, or with a sink every replica
// at once (the sink's merge needs every replica's next result).
func (c *cluster) runParallel() {
	n := len(c.engines)
	parts := make([][]int, n)
	for r := range parts {
		parts[r] = make([]int, 0, len(c.roots)/n+1)
	}
	next := 0 // the round-robin cursor: turned only by requests routed
	for _, i := range c.roots {
		parts[next%n] = append(parts[next%n], i)
		if admissible(&c.reqs[i], c.cfg.MaxModelLen) == "" {
			next++
		}
	}
	c.rr = next

	var progress sync.Mutex
	done := 0
	subs := make([]*cluster, n)
	chans := make([]chan sinkEntry, n)
	for r, e := range c.engines {
		sub := &cluster{
			cfg: c.cfg, capacity: c.capacity, reqs: c.reqs, results: c.results,
			engines: []*engine{e}, roots: parts[r], servedAt: never, opt: c.opt,
		}
		e.finished = sub.finished
		e.horizon = sub.horizonFor
		sub.due.push(e)
		sub.opt.Progress = nil
		if c.opt.Progress != nil {
			sub.onRecord = func() {
				progress.Lock()
				done++
				if done%1024 == 0 || done == len(c.reqs) {
					c.opt.Progress(done, len(c.reqs))
				}
				progress.Unlock()
			}
		}
		if c.opt.Sink != nil {
			ch := make(chan sinkEntry, 256)
			chans[r] = ch
			replica := e.id
			sub.sinkAt = func(t int64, arrival bool, res *workload.Result) {
				ch <- sinkEntry{t: t, arrival: arrival, replica: replica, res: *res}
			}
			sub.opt.Sink = nil
		}
		subs[r] = sub
	}

	workers := min(runtime.GOMAXPROCS(0), n)
	if c.opt.Sink != nil {
		workers = n
	}
	accs := make([]*analysis.Accumulator, workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for w := range workers {
		if c.acc != nil {
			accs[w] = &analysis.Accumulator{}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				r := taken
				taken++
				mu.Unlock()
				if r >= n {
					return
				}
				subs[r].acc = accs[w]
				subs[r].runSequential()
				if chans[r] != nil {
					close(chans[r])
				}
			}
		}()
	}
	if c.opt.Sink != nil {
		mergeSinks(chans, c.opt.Sink)
	}
	wg.Wait()

	for _, sub := range subs {
		c.end = max(c.end, sub.end)
		c.done += sub.done
	}
	for _, a := range accs {
		if a != nil {
			c.acc.Merge(a)
		}
	}
	for _, e := range c.engines {
		e.finished, e.horizon = c.finished, c.horizonFor
	}
}

// mergeSinks hands the replicas' results to sink in time order: each
// replica's come in its own order, so the earliest head is the next.
func mergeSinks(chans []chan sinkEntry, sink func(*workload.Result)) {
	heads := make([]*sinkEntry, len(chans))
	open := make([]bool, len(chans))
	for r, ch := range chans {
		if x, ok := <-ch; ok {
			heads[r], open[r] = &x, true
		}
	}
	for {
		best := -1
		for r, h := range heads {
			if h != nil && (best < 0 || h.before(heads[best])) {
				best = r
			}
		}
		if best < 0 {
			return
		}
		sink(&heads[best].res)
		if x, ok := <-chans[best]; ok {
			heads[best] = &x
		} else {
			heads[best], open[best] = nil, false
		}
	}
}
