package loadgen

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// ReadMetadata reads a run directory's metadata.json.
func ReadMetadata(path string) (Metadata, error) {
	var m Metadata
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Died reports whether the run's process died before it could finish:
// metadata.json still says RunRunning (kill -9, a crash, a lost machine).
func (m *Metadata) Died() bool { return m.State == RunRunning }

// EndedEarly reports whether the run did not run its schedule to the end:
// it died, was interrupted or was aborted.
func (m *Metadata) EndedEarly() bool {
	return m.State == RunRunning || m.State == RunInterrupted || m.State == RunAborted
}

// EndNote is a reader's note on a run that ended early, "" for a complete
// run (or one written before metadata.json had a state). records is the
// number of result records the reader found: after a kill -9 the metadata
// cannot know it.
func (m *Metadata) EndNote(records int) string {
	of := ""
	if m.RequestsPlanned > 0 {
		of = fmt.Sprintf(" of %d planned", m.RequestsPlanned)
	}
	switch m.State {
	case RunRunning:
		return fmt.Sprintf("the run did not finish: its process died (metadata.json still says %q); results.jsonl holds %d%s requests", RunRunning, records, of)
	case RunInterrupted, RunAborted:
		why := ""
		if m.Reason != "" {
			why = " (" + m.Reason + ")"
		}
		return fmt.Sprintf("the run was %s%s after %d%s requests", m.State, why, records, of)
	}
	return ""
}

// EmulatorTimeScale is the time scale a `thinkcap serve` reports in its
// /version ("thinkcap-emulator Qwen/Qwen3-8B time_scale=10"): simulated seconds per wall
// second. A real vLLM server runs at 1.
func EmulatorTimeScale(serverVersion string) float64 {
	for _, field := range strings.Fields(serverVersion) {
		if v, ok := strings.CutPrefix(field, "time_scale="); ok {
			if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && !math.IsInf(s, 1) {
				return s
			}
		}
	}
	return 1
}
