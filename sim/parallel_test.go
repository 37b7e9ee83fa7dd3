package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

// TestParallelReplicasEquivalence: replicas run one per goroutine give the
// report of the whole cluster stepped in one loop (every result, step,
// preemption and statistic), and hand their results to the sink in the
// same order; over random round-robin deployments on open loops.
func TestParallelReplicasEquivalence(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	ran := 0
	for i := range 60 {
		cfg, reqs, opt := randomCase(t, r)
		cfg.Replicas, cfg.Router = 2+r.IntN(4), "round-robin"
		opt.Concurrency = 0
		for k := range reqs {
			if reqs[k].After != "" {
				reqs[k].After, reqs[k].ArrivalS = "", reqs[k-1].ArrivalS // no follow-ups: independent replicas
			}
		}
		if i%3 == 0 {
			reqs[r.IntN(len(reqs))].PromptTokens = cfg.MaxModelLen + 1 // a rejection: does not turn the cursor
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var sinks [2]bytes.Buffer
			var reports [2][]byte
			for k, seq := range []bool{true, false} {
				sequentialOnly = seq
				o := opt
				enc := json.NewEncoder(&sinks[k])
				o.Sink = func(res *workload.Result) { _ = enc.Encode(res) }
				rep, err := Run(cfg, reqs, o)
				sequentialOnly = false
				if err != nil {
					t.Fatal(err)
				}
				if reports[k], err = json.Marshal(rep); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(reports[0], reports[1]) {
				t.Fatalf("parallel replicas changed the report (%d replicas):\n%s", cfg.Replicas, firstDiff(reports[0], reports[1]))
			}
			if !bytes.Equal(sinks[0].Bytes(), sinks[1].Bytes()) {
				t.Fatalf("parallel replicas changed the sink's order:\n%s", firstDiff(sinks[0].Bytes(), sinks[1].Bytes()))
			}
		})
		ran++
	}
	if ran == 0 {
		t.Fatal("no case ran")
	}
}

// TestParallelReplicasUsed: the parallel path is taken where it may be, so
// that the equivalence test is not comparing the loop with itself.
func TestParallelReplicasUsed(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: replicas always run in one loop")
	}
	cfg := benchConfig(t)
	cfg.Replicas = 4
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	capacity, err := ComputeCapacity(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCluster(&cfg, capacity, simtest.ReasoningTraffic(t, 10, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.parallelReplicas() {
		t.Fatal("4 round-robin replicas on an open loop are not run apart")
	}
	c.opt.Concurrency = 3
	if c.parallelReplicas() {
		t.Fatal("a closed loop is run apart")
	}
}
