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
