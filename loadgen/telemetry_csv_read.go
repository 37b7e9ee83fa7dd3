package loadgen

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// TimelineRow is one row of a run's timeline.csv (WriteTimelineCSV) or of
// `simulate --timeline` (sim.WriteTimelineCSV). A cell the server did not
// expose is NaN.
type TimelineRow struct {
	TimeS       float64
	Replica     int
	KVUsage     float64
	Running     float64
	Waiting     float64
	Preemptions float64 // increase since the first row
}

// ReadTimelineCSV reads a timeline written by WriteTimelineCSV or by the
// simulator: a header naming at least time_s, and any of replica,
// kv_usage, running, waiting and preemptions (other columns are ignored).
// Errors name the line. A last line without its newline is dropped
// (ReadTimelineCSVNoted says so).
func ReadTimelineCSV(r io.Reader) ([]TimelineRow, error) {
	return ReadTimelineCSVNoted(r, nil)
}

// ReadTimelineCSVNoted is ReadTimelineCSV telling note (when not nil) what
// it dropped: a load test appends timeline.csv row by row as it scrapes,
// so a run killed mid-write (kill -9) leaves a partial last line, whose
// values may be cut short; it is dropped rather than failing the run.
func ReadTimelineCSVNoted(r io.Reader, note func(string)) ([]TimelineRow, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if n := len(data); n > 0 && data[n-1] != '\n' {
		if cut := bytes.LastIndexByte(data, '\n') + 1; cut > 0 {
			if note != nil {
				note(fmt.Sprintf("line %d: partial last line dropped (the run stopped mid-write)", bytes.Count(data[:cut], []byte{'\n'})+1))
			}
			data = data[:cut]
		}
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("line 1: empty timeline, want a header starting with time_s")
	}
	if err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	col := map[string]int{}
	for i, name := range header {
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // a spreadsheet's byte-order mark
		}
		col[name] = i
	}
	if _, ok := col["time_s"]; !ok {
		return nil, fmt.Errorf("line 1: timeline header %q has no time_s column", header)
	}
	var rows []TimelineRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err // csv.ParseError names the line
		}
		line, _ := cr.FieldPos(0)
		cell := func(name string) (float64, error) {
			i, ok := col[name]
			if !ok || i >= len(rec) || rec[i] == "" {
				return math.NaN(), nil
			}
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return 0, fmt.Errorf("line %d: %s %q is not a number", line, name, rec[i])
			}
			return v, nil
		}
		var row TimelineRow
		var replica float64
		for _, f := range []struct {
			name string
			dst  *float64
		}{{"time_s", &row.TimeS}, {"replica", &replica}, {"kv_usage", &row.KVUsage},
			{"running", &row.Running}, {"waiting", &row.Waiting}, {"preemptions", &row.Preemptions}} {
			if *f.dst, err = cell(f.name); err != nil {
				return nil, err
			}
		}
		if math.IsNaN(row.TimeS) {
			return nil, fmt.Errorf("line %d: time_s is empty", line)
		}
		if !math.IsNaN(replica) {
			if replica < 0 || replica != math.Trunc(replica) || replica > 1e6 {
				return nil, fmt.Errorf("line %d: replica %v is not a replica number", line, replica)
			}
			row.Replica = int(replica)
		}
		rows = append(rows, row)
	}
}
