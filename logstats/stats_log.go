package logstats

import (
	"io"

	"github.com/thinkcap/thinkcap/workload"
)

// AddLog feeds the log at path: a results.jsonl of loadtest or simulate
// --results (recognised by its status field, when log names no format or
// mapping) record by record, so that failed requests are counted by status
// rather than rejected as invalid requests; any other log as requests,
// warning on warn about what it skipped.
func (a *StatsAccumulator) AddLog(path string, log workload.LogOptions, warn io.Writer) error {
	if log.Format == "" && log.Mapping == "" {
		results, err := workload.IsResultsFile(path)
		if err != nil {
			return err
		}
		if results {
			return workload.EachResultFile(path, a.AddResult)
		}
	}
	return log.Each(path, warn, a.Add)
}
