package loadtest

import (
	"errors"
	"fmt"
	"io"

	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/report"
)

// Write prints the outcome to w, the summary JSON with -o json, else the
// summary table, the schedule lag and the thresholds' table, and returns
// the run's verdict: an InterruptedError for a run stopped by a signal
// (whatever was measured is shown first), else an error when the breaker
// aborted the run, a threshold was crossed or no request succeeded. With
// --predict the finished run is then verified against the prediction,
// after the summary is shown (the comparison simulates the run again),
// and a comparison outside tolerance fails it too.
func Write(w io.Writer, out *Outcome) error {
	if out.release != nil {
		defer out.release()
	}
	var stopped error
	if out.Signal != nil {
		stopped = &InterruptedError{Signal: out.Signal, Finished: out.Finished, Planned: out.Planned}
	}
	s := &out.Summary
	if out.json {
		if stopped != nil {
			return errors.Join(writeJSON(w, *s), stopped)
		}
		return errors.Join(writeJSON(w, *s), verdict(w, false, s, out.checks, out.Aborted, out.Finished, out.Planned))
	}
	if err := report.WriteTable(w, s); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nschedule lag p50 %.2f ms, p99 %.2f ms, %d requests later than %v\n",
		1e3*s.ScheduleLagS.P50, 1e3*s.ScheduleLagS.P99, s.ScheduleLagS.Late, loadgen.LateThreshold)
	if stopped != nil {
		return stopped
	}
	// Thresholds after the summary; an aborted run has nothing to verify.
	failed := verdict(w, true, s, out.checks, out.Aborted, out.Finished, out.Planned)
	if out.predict != nil && out.Aborted == "" {
		return errors.Join(failed, out.predict.verifyRun(w, out.Dir))
	}
	return failed
}
