package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// The states metadata.json's "state" takes (loadgen writes them: the
// run's state at start, replaced at the end). A run directory written
// before the key existed has none and finished: metadata.json was then
// written only at the end.
const (
	stateRunning     = "running"
	stateComplete    = "complete"
	stateInterrupted = "interrupted"
	stateAborted     = "aborted"
)

// RunState is how the load test ended and what its directory holds, so
// that a verdict on a run that ended early says so.
type RunState struct {
	// State is metadata.json's state: "complete", "interrupted" (a
	// signal), "aborted" (the circuit breaker, a threshold), or "running"
	// when the process died before it could say (kill -9).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// RequestsPlanned is the schedule's length (0 when unknown);
	// RequestsFinished the result records read from results.jsonl.
	RequestsPlanned  int `json:"requests_planned,omitempty"`
	RequestsFinished int `json:"requests_finished"`
	// Notes say how the run ended early and what was read around it (a
	// partial last line dropped, summary.json missing).
	Notes []string `json:"notes,omitempty"`
}

// Early reports whether the run ended before its schedule did.
// A zero RunState (a Run built in memory) is a complete run.
func (s *RunState) Early() bool { return s.State != "" && s.State != stateComplete }

// runStateKeys are metadata.json's keys about the run's end, read here
// apart from loadgen.Metadata so that a directory of any version reads.
type runStateKeys struct {
	State           string `json:"state"`
	Interrupted     bool   `json:"interrupted"`
	Reason          string `json:"reason"`
	RequestsPlanned int    `json:"requests_planned"`
}

// readRunState reads the run's state from metadata.json (already parsed
// once as loadgen.Metadata, so it is valid JSON).
func readRunState(dir string) (RunState, error) {
	path := filepath.Join(dir, "metadata.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return RunState{}, err
	}
	var k runStateKeys
	if err := json.Unmarshal(data, &k); err != nil {
		return RunState{}, fmt.Errorf("%s: %w", path, err)
	}
	s := RunState{State: k.State, Reason: k.Reason, RequestsPlanned: max(k.RequestsPlanned, 0)}
	if s.State == "" {
		s.State = stateComplete
		if k.Interrupted {
			s.State = stateInterrupted
		}
	}
	return s, nil
}

// endNote is the note on a run that ended early, "" for one that did not:
// "run interrupted after 65 of 200 requests (interrupted by signal)".
func (s *RunState) endNote() string {
	of := fmt.Sprintf("%d", s.RequestsFinished)
	if s.RequestsPlanned > 0 {
		of += fmt.Sprintf(" of %d", s.RequestsPlanned)
	}
	why := ""
	if s.Reason != "" {
		why = " (" + s.Reason + ")"
	}
	switch s.State {
	case stateComplete, "":
		return ""
	case stateRunning:
		return fmt.Sprintf("the load test did not finish (metadata state %q: the process died): %s requests recorded", stateRunning, of)
	case stateInterrupted, stateAborted:
		return fmt.Sprintf("run %s after %s requests%s", s.State, of, why)
	}
	return fmt.Sprintf("run ended in state %q after %s requests%s", s.State, of, why)
}

// dropPartialLine returns data without an unterminated last line that
// keep rejects: what a writer killed mid-line leaves. dropped is the
// 1-based number of the line dropped, 0 when none was.
func dropPartialLine(data []byte, keep func(line []byte) bool) (rest []byte, dropped int) {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data, 0
	}
	cut := bytes.LastIndexByte(data, '\n') + 1
	last := data[cut:]
	if len(bytes.TrimSpace(last)) == 0 || keep(last) {
		return data, 0
	}
	return data[:cut], bytes.Count(data[:cut], []byte{'\n'}) + 1
}
