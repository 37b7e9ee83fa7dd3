package sim

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteTimelineCSV writes timeline samples as CSV with a header:
// time_s,replica,kv_usage,running,waiting,preemptions.
func WriteTimelineCSV(w io.Writer, samples []TimelineSample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"time_s", "replica", "kv_usage", "running", "waiting", "preemptions"}); err != nil {
		return err
	}
	for _, s := range samples {
		row := []string{
			strconv.FormatFloat(s.TimeS, 'f', -1, 64),
			strconv.Itoa(s.Replica),
			strconv.FormatFloat(s.KVUsage, 'f', 6, 64),
			strconv.Itoa(s.Running),
			strconv.Itoa(s.Waiting),
			strconv.FormatInt(s.Preemptions, 10),
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
