package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

// randomCase draws a small deployment and workload that exercise
// preemption, chunked prefill, prefix caching, speculative decoding,
// priorities and several replicas.
func randomCase(t *testing.T, r *rand.Rand) (Config, []workload.Request, Options) {
	t.Helper()
	model, gpu := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
	cfg := Config{
		Model: model, GPU: gpu,
		NumGPUBlocksOverride: 300 + r.IntN(600),
		MaxNumSeqs:           1 + r.IntN(64),
		MaxModelLen:          4096,
		Replicas:             1 + r.IntN(3),
		Router:               []string{"round-robin", "least-requests", "least-kv"}[r.IntN(3)],
		SchedulingPolicy:     []string{"fcfs", "priority"}[r.IntN(2)],
		DisablePrefixCaching: r.IntN(4) == 0,
		Seed:                 r.Int64(),
	}
	cfg.MaxNumBatchedTokens = cfg.MaxNumSeqs + r.IntN(2048)
	if r.IntN(3) == 0 {
		k := 1 + r.IntN(4)
		method := []string{"eagle", "ngram", "mtp"}[r.IntN(3)]
		cfg.Speculative = &SpeculativeConfig{Method: method, NumSpeculativeTokens: k, AcceptanceRates: DefaultAcceptance(method, k)}
	}
	n := 20 + r.IntN(150)
	reqs := make([]workload.Request, n)
	at := 0.0
	for i := range reqs {
		at += r.ExpFloat64() / 20
		reqs[i] = workload.Request{
			ID: fmt.Sprint(i), ArrivalS: at,
			PromptTokens: 1 + r.IntN(1500), ThinkTokens: r.IntN(1500), AnswerTokens: r.IntN(300),
			Priority: r.IntN(3),
		}
		if r.IntN(3) == 0 {
			reqs[i].PrefixID = fmt.Sprint("p", r.IntN(3))
			reqs[i].PrefixTokens = r.IntN(reqs[i].PromptTokens + 1)
		}
		if i > 0 && r.IntN(5) == 0 {
			// A follow-up (two-phase, escalation), sometimes continuing
			// its predecessor's sequence.
			p := reqs[r.IntN(i)]
			reqs[i].After = p.ID
			reqs[i].ArrivalS = r.Float64() / 10
			if r.IntN(2) == 0 {
				reqs[i].PrefixID = ""
				reqs[i].PrefixTokens = p.TotalTokens()
				reqs[i].PromptTokens = p.TotalTokens() + 1 + r.IntN(200)
			}
		}
	}
	opt := Options{Timeline: true}
	if r.IntN(4) == 0 {
		opt.Concurrency = 1 + r.IntN(20)
	}
	return cfg, reqs, opt
}

// TestInvariants drives random cases event by event and checks, after every
// event: blocks used + free = total and match what requests hold; the
// clock never goes back; and at the end that every request ended exactly
// once.
func TestInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 60 {
		cfg, reqs, opt := randomCase(t, r)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if err := cfg.Resolve(); err != nil {
				t.Fatal(err)
			}
			capacity, err := ComputeCapacity(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			c, err := newCluster(&cfg, capacity, reqs, opt)
			if err != nil {
				t.Fatal(err)
			}
			ended := make([]int, len(reqs))
			for _, e := range c.engines {
				e.finished = func(e *engine, s *seq) {
					ended[s.idx]++
					c.finishAt(s, e.now)
				}
			}
			last := int64(0)
			engineNow := make([]int64, len(c.engines))
			for events := 0; ; events++ {
				// The next event's time never goes back.
				at, _ := c.nextArrival()
				at = min(at, c.nextFront())
				for _, e := range c.engines {
					at = min(at, e.nextEvent())
				}
				if !c.advance() {
					break
				}
				if at < last {
					t.Fatalf("event at %d after one at %d", at, last)
				}
				last = at
				for _, e := range c.engines {
					checkBlocks(t, e)
					if e.now < engineNow[e.id] {
						t.Fatalf("engine %d clock went back from %d to %d", e.id, engineNow[e.id], e.now)
					}
					engineNow[e.id] = e.now
				}
				if events > 5_000_000 {
					t.Fatal("simulation does not end")
				}
			}
			for idx, res := range c.results {
				want := 1
				if q := reqs[idx]; res.Status == workload.StatusRejected && (q.TotalTokens() > cfg.MaxModelLen || q.OutputTokens() < 1) {
					want = 0 // rejected at the door, never in an engine
				}
				if res.Status == workload.StatusCancelled {
					want = 0 // a follow-up of a failed request is never sent
				}
				if ended[idx] != want {
					t.Fatalf("request %d ended %d times (status %q)", idx, ended[idx], res.Status)
				}
				if res.Status == "" {
					t.Fatalf("request %d has no result", idx)
				}
				if res.OK() && (res.TTFTS < res.QueueS || res.E2ES < res.TTFTS || (res.TTFAS > 0 && res.TTFAS < res.TTFTS)) {
					t.Fatalf("request %d: queue %g ttft %g ttfa %g e2e %g out of order", idx, res.QueueS, res.TTFTS, res.TTFAS, res.E2ES)
				}
			}
		})
	}
}

// TestSameSeedSameBytes: a run is a pure function of config, requests and
// seed.
func TestSameSeedSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for i := range 5 {
		cfg, reqs, opt := randomCase(t, r)
		a, b := runJSON(t, cfg, reqs, opt), runJSON(t, cfg, reqs, opt)
		if !bytes.Equal(a, b) {
			t.Fatalf("case %d: two runs with the same seed differ", i)
		}
	}
}

func runJSON(t *testing.T, cfg Config, reqs []workload.Request, opt Options) []byte {
	t.Helper()
	rep, err := Run(cfg, reqs, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(struct {
		R  []workload.Result
		T  []TimelineSample
		Q  Quantiles
		P  int64
		KV float64
	}{rep.Results, rep.Timeline, rep.ITL, rep.Preemptions, rep.KVUsageMean})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
