package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/workload"
)

// TestRampUp: RampUp stretches an open loop's schedule onto the
// ramp (sparse first, the full rate after) and leaves the ramp's requests
// out of the statistics; MaxRate is refused with a closed loop.
func TestRampUp(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	dir := filepath.Join(t.TempDir(), "run")
	ramp, err := workload.ParseRamp("linear:200ms")
	if err != nil {
		t.Fatal(err)
	}
	o := slowOptions(t, srv.URL, dir, 40, 100, "2", "2")
	o.ScrapeInterval, o.RampUp, o.JSON = time.Second, &ramp, true
	out, errOut, code := load(t, o)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "ramping up linear over 0.2s") {
		t.Errorf("the start line does not say so: %s", errOut)
	}
	f, err := os.Open(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sched []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			ScheduledS float64 `json:"scheduled_s"`
		}
		_ = json.Unmarshal(sc.Bytes(), &r)
		sched = append(sched, r.ScheduledS)
	}
	// 40 requests 10 ms apart; the linear ramp's 200 ms cover the first
	// 100 ms of schedule (10 requests), sparse at first.
	if len(sched) != 40 {
		t.Fatalf("%d records", len(sched))
	}
	inRamp := 0
	for _, s := range sched {
		if s < 0.2 {
			inRamp++
		}
	}
	if inRamp < 9 || inRamp > 11 {
		t.Errorf("%d requests scheduled in the 200 ms ramp, want about 10", inRamp)
	}
	var s struct {
		Requests struct{ Total int }
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Requests.Total != 40-inRamp {
		t.Errorf("%d requests in the statistics, want the %d after the ramp", s.Requests.Total, 40-inRamp)
	}
	o = testOptions(srv.URL, filepath.Join(t.TempDir(), "x"), traffic(t, workload.TrafficOptions{Requests: 2, Concurrency: 2}, 0))
	o.Model, o.MaxRate, o.Concurrency = "slow-model", 5, 2
	if _, err := Run(context.Background(), o); !slices.Contains(inputerr.Fields(err), "MaxRate") || !strings.Contains(err.Error(), "without Concurrency") {
		t.Errorf("MaxRate with a closed loop: %v, want bad input naming MaxRate", err)
	}
}
