package loadtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/workload"
)

func readSweep(t *testing.T, dir string) SweepOutcome {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out SweepOutcome
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sweepOptions sweeps n requests of the given lengths against url into
// dir, each point's traffic at its rate.
func sweepOptions(t *testing.T, url, dir string, n int) SweepOptions {
	base := testOptions(url, dir, nil)
	base.Model, base.ScrapeInterval = "slow-model", time.Second
	base.Traffic = workload.TrafficOptions{Traffic: workload.DefaultTraffic, Requests: n, Prompt: dist(t, "8"), Think: dist(t, "4"), Answer: dist(t, "4")}
	base.Catalog = catalog(t)
	return SweepOptions{Base: base}
}

// TestAutoSweep: Auto N runs a synchronous point, a throughput point
// (every request at once), then N rates between their request rates.
func TestAutoSweep(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	out := filepath.Join(t.TempDir(), "auto")
	so := sweepOptions(t, srv.URL, out, 6)
	so.Auto = 2
	var stdout, stderr strings.Builder
	so.Base.Stdout, so.Base.Stderr = &stdout, &stderr
	res, err := Sweep(context.Background(), so)
	if err == nil {
		err = WriteSweep(&stdout, res)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	s := readSweep(t, out)
	if len(s.Rows) != 4 || s.Rows[0].Point.Concurrency != 1 || s.Rows[1].Point.Concurrency != 6 {
		t.Fatalf("points %+v", s.Rows)
	}
	lo, hi := s.Rows[0].Measured.Throughput.RequestsPerS, s.Rows[1].Measured.Throughput.RequestsPerS
	r1, r2 := s.Rows[2].Point.Rate, s.Rows[3].Point.Rate
	if !(lo < r1 && r1 < r2 && r2 < hi) {
		t.Errorf("rates %g, %g not evenly inside (%g, %g)", r1, r2, lo, hi)
	}
}

// TestSweepRefusals: what judges or prints one run is refused in a sweep
// before any load (the command's flag refusals are its
// TestLoadtestSweepRefusals).
func TestSweepRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		bad  func(*Options)
		want string
	}{
		{"json", func(o *Options) { o.JSON = true }, "one run"},
		{"threshold", func(o *Options) { o.Thresholds = thresholds(t, "ttft_p99<1s") }, "judge or record one run"},
	} {
		so := sweepOptions(t, "http://127.0.0.1:1", filepath.Join(t.TempDir(), "x"), 2)
		so.Points = []SweepPoint{{Rate: 1}, {Rate: 2}}
		c.bad(&so.Base)
		_, err := Sweep(context.Background(), so)
		if exitCode(err) != exitBadInput || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want bad input with %q", c.name, err, c.want)
		}
	}
}
