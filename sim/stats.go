package sim

import "sort"

// occupancy accumulates time-weighted means and peaks of an engine's
// state: KV blocks used, running and waiting requests.
type occupancy struct {
	ns                                 float64
	usedNs, runningNs, waitingNs       float64
	peakUsed, peakRunning, peakWaiting int
}

func (o *occupancy) add(dt int64, used, running, waiting int) {
	d := float64(dt)
	o.ns += d
	o.usedNs += d * float64(used)
	o.runningNs += d * float64(running)
	o.waitingNs += d * float64(waiting)
	o.peakUsed = max(o.peakUsed, used)
	o.peakRunning = max(o.peakRunning, running)
	o.peakWaiting = max(o.peakWaiting, waiting)
}

func (o *occupancy) mean(sum float64) float64 {
	if o.ns == 0 {
		return 0
	}
	return sum / o.ns
}

// TimelineSample is the state of one replica at one instant, as vLLM's
// gauges would show it.
type TimelineSample struct {
	TimeS       float64
	Replica     int
	KVUsage     float64 // vllm:kv_cache_usage_perc
	Running     int     // vllm:num_requests_running
	Waiting     int     // vllm:num_requests_waiting
	Preemptions int64   // vllm:num_preemptions_total
}

// timeline samples an engine's state every interval of simulated time.
type timeline struct {
	interval int64
	next     int64
	samples  []TimelineSample
}

func (t *timeline) sample(from, to int64, replica int, usage float64, running, waiting int, preemptions int64) {
	for t.next < to {
		if t.next >= from {
			t.samples = append(t.samples, TimelineSample{
				TimeS: float64(t.next) / 1e9, Replica: replica, KVUsage: usage,
				Running: running, Waiting: waiting, Preemptions: preemptions,
			})
		}
		t.next += t.interval
	}
}

// mergeTimelines interleaves the replicas' samples by time, then replica.
func mergeTimelines(ts []*timeline) []TimelineSample {
	var all []TimelineSample
	for _, t := range ts {
		all = append(all, t.samples...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].TimeS != all[j].TimeS {
			return all[i].TimeS < all[j].TimeS
		}
		return all[i].Replica < all[j].Replica
	})
	return all
}
