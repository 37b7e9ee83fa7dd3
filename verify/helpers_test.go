package verify

import (
	"testing"

	"github.com/thinkcap/thinkcap/internal/runtest"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// simulatedRun is a run directory as a load test of a server that behaves
// exactly like the simulator with cfg would have written it.
func simulatedRun(t testing.TB, cfg sim.Config, reqs []workload.Request, dir string) *Run {
	t.Helper()
	rec := runtest.Record(t, cfg, reqs)
	return &Run{Dir: dir, TimeScale: 1, Results: rec.Results, Measured: rec.Measured, Timeline: rec.Timeline, Meta: rec.Meta}
}
