package scenario

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/sim"
)

// twoPools is a thinking pool of two replicas and a one-replica pool of a
// smaller model, each with its own traffic.
func twoPools(t *testing.T) []Pool {
	t.Helper()
	g := simtest.GPU(t, "h100-sxm")
	main := sim.Config{Model: simtest.Model(t, "qwen3-8b"), GPU: g, Step: g.Step, Replicas: 2, TimelineIntervalS: 1}
	small := sim.Config{Model: simtest.Model(t, "qwen3-1.7b"), GPU: g, Step: g.Step, Replicas: 1, TimelineIntervalS: 1}
	return []Pool{
		{Name: "thinking", Config: main, Requests: simtest.MixedTraffic(t, 40, 4, 1)},
		{Name: "route", Config: small, Requests: simtest.MixedTraffic(t, 20, 2, 2)},
	}
}

func TestRunPoolsMergesPools(t *testing.T) {
	pools := twoPools(t)
	var started, ended []string
	rep, err := RunPools(pools, PoolsOptions{
		Options: sim.Options{Timeline: true},
		StartPool: func(pool string) (func(int, int), func()) {
			started = append(started, pool)
			return nil, func() { ended = append(ended, pool) }
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"thinking", "route"}; !slices.Equal(started, want) || !slices.Equal(ended, want) {
		t.Errorf("started %v, ended %v; want each pool's run started and ended in order", started, ended)
	}
	if len(rep.Reports) != 2 || len(rep.Results) != 60 {
		t.Fatalf("%d reports, %d results; want 2 and every request once", len(rep.Reports), len(rep.Results))
	}
	for i, r := range rep.Results {
		wantPool, lo, hi := "", 0, 1 // the first pool's results carry no pool; replicas 0-1
		if i >= 40 {
			wantPool, lo, hi = "route", 2, 2 // the second's follow: replica 2
		}
		if r.Pool != wantPool || r.Replica < lo || r.Replica > hi {
			t.Fatalf("result %d: pool %q replica %d, want pool %q replica in [%d, %d]", i, r.Pool, r.Replica, wantPool, lo, hi)
		}
	}
	replicas := map[int]bool{}
	for _, s := range rep.Timeline {
		replicas[s.Replica] = true
	}
	if !reflect.DeepEqual(replicas, map[int]bool{0: true, 1: true, 2: true}) {
		t.Errorf("timeline replicas %v, want 0, 1 (thinking) and 2 (route)", replicas)
	}

	s := rep.Summary()
	if s.Requests.Total != 60 || len(s.Pools) != 2 || s.Pools[0].Pool != "thinking" || s.Pools[1].Pool != "route" {
		t.Fatalf("summary over %d requests with pools %+v", s.Requests.Total, s.Pools)
	}
	main, route := rep.Reports[0].Summary(), rep.Reports[1].Summary()
	if s.Config != main.Config || s.Capacity != main.Capacity || s.KVUsage != main.KVUsage || s.LatencyS.ITL != main.LatencyS.ITL {
		t.Errorf("top level %+v %+v, want the main pool's deployment, capacity, KV usage and ITL", s.Config, s.KVUsage)
	}
	if !strings.Contains(s.Pools[1].Config.Model, "1.7") || s.Pools[1].Requests.Total != 20 {
		t.Errorf("route pool %+v, want the small model's 20 requests", s.Pools[1].Config)
	}
	if *s.Preemptions != *main.Preemptions+*route.Preemptions || s.Running.Peak != main.Running.Peak+route.Running.Peak ||
		s.Waiting.Mean != main.Waiting.Mean+route.Waiting.Mean {
		t.Errorf("preemptions %d, running peak %d: want the pools' sums", *s.Preemptions, s.Running.Peak)
	}
}

func TestRunPoolsOnePoolIsARun(t *testing.T) {
	p := twoPools(t)[:1]
	p[0].Name = ""
	rep, err := RunPools(p, PoolsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := sim.Run(p[0].Config, p[0].Requests, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Results, one.Results) || !reflect.DeepEqual(rep.Summary(), one.Summary()) {
		t.Error("one pool's results and summary differ from a plain run's")
	}
	if _, err := RunPools(nil, PoolsOptions{}); err == nil {
		t.Error("no pool: no error")
	}
}
