package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
)

// runBoth simulates a case step by step and with decode stretches and
// returns both reports as JSON.
func runBoth(t *testing.T, cfg Config, run func(Config) (*Report, error)) (ref, got []byte) {
	t.Helper()
	defer func() { stepByStep = false }()
	for _, byStep := range []bool{true, false} {
		stepByStep = byStep
		rep, err := run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if byStep {
			ref = b
		} else {
			got = b
		}
	}
	return ref, got
}

// TestDecodeJumpEquivalence: a run with decode stretches is the run step by
// step, to the nanosecond: every request's result, the step count,
// preemptions, KV and queue statistics, the ITL histogram and the timeline,
// over random deployments (replicas and routers, FCFS and priority, prefix
// caching, follow-ups, closed loops, sliding-window layers, pools small
// enough to preempt) and the benchmark's reasoning workload.
func TestDecodeJumpEquivalence(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 17))
	for i := range 80 {
		cfg, reqs, opt := randomCase(t, r)
		cfg.Speculative = nil // stretches stop at speculative decoding; test what they do
		if i%4 == 0 {
			cfg.Model, _ = cat.Model("gpt-oss-20b") // sliding-window groups: BlocksFor's cap
		}
		if i%3 == 0 {
			for k := range reqs {
				reqs[k].ThinkTokens *= 3 // longer stretches, more block crossings
			}
		}
		if i%5 == 0 {
			// The front end's horizon, on the resolved step model.
			if err := cfg.Resolve(); err != nil {
				t.Fatal(err)
			}
			cfg.Step.APIRequestOverheadMs, cfg.Step.APIServerCPUMs = 20, 5
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ref, got := runBoth(t, cfg, func(c Config) (*Report, error) { return Run(c, reqs, opt) })
			if !bytes.Equal(ref, got) {
				t.Fatalf("decode stretches changed the run (%d replicas, router %s, %s, prefix caching %v, concurrency %d):\n%s",
					cfg.Replicas, cfg.Router, cfg.SchedulingPolicy, !cfg.DisablePrefixCaching, opt.Concurrency, firstDiff(ref, got))
			}
		})
	}
	t.Run("benchmark workload", func(t *testing.T) {
		reqs := simtest.ReasoningTraffic(t, 3000, benchRate)
		ref, got := runBoth(t, benchConfig(t), func(c Config) (*Report, error) { return Run(c, reqs, Options{Timeline: true}) })
		if !bytes.Equal(ref, got) {
			t.Fatalf("decode stretches changed the benchmark run:\n%s", firstDiff(ref, got))
		}
	})
}

// firstDiff shows where two JSON documents part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("step by step: …%s…\nstretched:    …%s…", a[from:min(len(a), i+100)], b[from:min(len(b), i+100)])
}

// TestDecodeJumpTakesSteps: on the benchmark workload most steps are taken
// in stretches, or the fast path has silently stopped working.
func TestDecodeJumpTakesSteps(t *testing.T) {
	rep, err := Run(benchConfig(t), simtest.ReasoningTraffic(t, 2000, benchRate), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Steps == 0 || float64(rep.stretched) < 0.6*float64(rep.Steps) {
		t.Fatalf("%d of %d steps in stretches: too few", rep.stretched, rep.Steps)
	}
	t.Logf("%d of %d steps in stretches", rep.stretched, rep.Steps)
}
