// Package runtest builds, for tests, what a load test would have recorded
// against a server that behaves exactly like the simulator: the tests of
// verify and calibrate compare the simulator with such runs, where any
// difference is the code's and not the server's.
// It also reads back what a load test recorded.
package runtest

import (
	"path/filepath"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Qwen3OnH100 is Qwen3-8B on one H100 with the profile's coefficients.
func Qwen3OnH100(t testing.TB) sim.Config {
	t.Helper()
	g := simtest.GPU(t, "h100-sxm")
	cfg := sim.Config{Model: simtest.Model(t, "qwen3-8b"), GPU: g, Step: g.Step, NumGPUBlocksOverride: 60000}
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Traffic is simtest.MixedTraffic without request IDs, as a load test that
// sent no IDs records it.
func Traffic(t testing.TB, n int, rate float64, seed uint64) []workload.Request {
	t.Helper()
	reqs := simtest.MixedTraffic(t, n, rate, seed)
	for i := range reqs {
		reqs[i].ID = ""
	}
	return reqs
}

// Recording is what a load test writes to its run directory: every result,
// which of them were measured, the server's timeline and the metadata.
type Recording struct {
	Results  []workload.Result
	Measured []bool
	Timeline []loadgen.TimelineRow
	Meta     loadgen.Metadata
}

// Record runs the simulator with cfg on reqs and returns it as a load test
// would have recorded it: sent at arrival, no client queue, all measured.
func Record(t testing.TB, cfg sim.Config, reqs []workload.Request) Recording {
	t.Helper()
	rep, err := sim.Run(cfg, reqs, sim.Options{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := Recording{Meta: loadgen.Metadata{Model: cfg.Model.HFName}}
	for _, res := range rep.Results {
		res.SentS, res.ScheduledS = res.ArrivalS, res.ArrivalS
		res.QueueS, res.Preemptions, res.Replica = 0, 0, 0
		rec.Results = append(rec.Results, res)
		rec.Measured = append(rec.Measured, true)
	}
	for _, s := range rep.Timeline {
		rec.Timeline = append(rec.Timeline, loadgen.TimelineRow{TimeS: s.TimeS, KVUsage: s.KVUsage,
			Running: float64(s.Running), Waiting: float64(s.Waiting), Preemptions: float64(s.Preemptions)})
	}
	return rec
}

// TokensByID is each request's prompt, think and answer tokens in the run
// directory dir, every request a success.
func TokensByID(t testing.TB, dir string) map[string][3]int {
	t.Helper()
	results, err := workload.ReadResultsFile(filepath.Join(dir, loadgen.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][3]int{}
	for _, r := range results {
		if r.Status != workload.StatusOK {
			t.Fatalf("%s in %s: %s %s", r.ID, dir, r.Status, r.Error)
		}
		out[r.ID] = [3]int{r.PromptTokens, r.ThinkTokens, r.AnswerTokens}
	}
	return out
}
