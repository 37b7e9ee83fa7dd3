package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/thinkcap/thinkcap/workload"
)

// Run states: metadata.json's "state" key.
const (
	// RunRunning is written when the run starts. A reader that finds it
	// knows the process died (kill -9, a crash, a lost machine): the
	// results written so far are all there is.
	RunRunning = "running"
	// RunComplete: the schedule ran to its end (or to --duration).
	RunComplete = "complete"
	// RunInterrupted: SIGINT or SIGTERM stopped the run.
	RunInterrupted = "interrupted"
	// RunAborted: the run stopped itself (circuit breaker, a threshold).
	RunAborted = "aborted"
)

// The files of a run directory.
const (
	ResultsFile  = "results.jsonl"
	TimelineFile = "timeline.csv"
	MetadataFile = "metadata.json"
	SummaryFile  = "summary.json"
	TextsFile    = "texts.jsonl"
)

// runMarkers are the files whose presence makes a directory a run that
// --out refuses to overwrite without --force.
var runMarkers = []string{ResultsFile, MetadataFile}

// CheckRunDir refuses, unless force, a directory that already holds a run
// (results.jsonl or metadata.json). A missing directory, or one without
// run files, is fine. Nothing is created.
func CheckRunDir(dir string, force bool) error {
	if force {
		return nil
	}
	for _, name := range runMarkers {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("%s already holds a run (%s): give another --out or --force to overwrite it", dir, name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--out %s: %w", dir, err)
		}
	}
	return nil
}

// RunDir is a load test's run directory while the run lasts: it writes
// metadata.json at the start (state "running") and replaces it atomically
// at the end, appends each result record to results.jsonl and each scrape
// to timeline.csv, flushed one by one, so that whatever stops the process
// leaves files a reader can use. Its methods are safe for concurrent use.
type RunDir struct {
	Dir string

	mu       sync.Mutex
	created  bool // Dir did not exist before OpenRunDir
	meta     Metadata
	results  *os.File
	rw       *workload.ResultWriter
	timeline *os.File
	tbuf     *bufio.Writer
	tw       *TimelineWriter
	written  int
	writeErr error
	closed   bool
}

// OpenRunDir creates dir (and its parents) for a run about to send load,
// after CheckRunDir's refusal of an existing run unless force. Call it
// only once nothing can refuse the run any more (flags, preflight), or
// Remove it on refusal, so that a refused run leaves no directory.
func OpenRunDir(dir string, force bool) (*RunDir, error) {
	if err := CheckRunDir(dir, force); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	d := &RunDir{Dir: dir, created: errors.Is(statErr, fs.ErrNotExist)}
	if force {
		// Files of the run replaced that this one may not write: a summary
		// or texts left beside new results would describe another run.
		for _, name := range []string{SummaryFile, TextsFile} {
			if err := os.Remove(d.Path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("--force: %w", err)
			}
		}
	}
	return d, nil
}

// Path is the path of a file in the run directory.
func (d *RunDir) Path(name string) string { return filepath.Join(d.Dir, name) }

// Start writes metadata.json with state "running" (RequestsPlanned as
// given in meta) and opens results.jsonl and timeline.csv, whose header it
// writes; timeline rows count their time from meta.Start.
func (d *RunDir) Start(meta Metadata) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	// Interrupted until Finish says otherwise: a reader of a run whose
	// process died sees an interrupted run.
	meta.State, meta.Interrupted, meta.Reason = RunRunning, true, ""
	if meta.Start.IsZero() {
		meta.Start = time.Now()
	}
	d.meta = meta
	if err := WriteMetadata(d.Path(MetadataFile), d.meta); err != nil {
		return err
	}
	var err error
	if d.results, err = os.Create(d.Path(ResultsFile)); err != nil {
		return err
	}
	d.rw = workload.NewResultWriter(d.results)
	if d.timeline, err = os.Create(d.Path(TimelineFile)); err != nil {
		return err
	}
	d.tbuf = bufio.NewWriter(d.timeline)
	d.tw = NewTimelineWriter(d.tbuf, meta.Start)
	if err := d.tw.WriteHeader(); err != nil {
		return err
	}
	return d.tbuf.Flush()
}

// WriteResult appends a record to results.jsonl and flushes it: a crash
// or Ctrl-C keeps every finished record. The first write error is kept
// (Err) and returned.
func (d *RunDir) WriteResult(res *workload.Result) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rw == nil {
		return errors.New("run directory not started")
	}
	err := d.rw.Write(res)
	if err == nil {
		err = d.rw.Flush()
	}
	if err != nil {
		if d.writeErr == nil {
			d.writeErr = fmt.Errorf("%s: %w", d.Path(ResultsFile), err)
		}
		return d.writeErr
	}
	d.written++
	return nil
}

// AddSample appends a scrape to timeline.csv and flushes the row. Use it
// as ScraperConfig.OnSample.
func (d *RunDir) AddSample(s Sample) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tw == nil || d.closed {
		return
	}
	err := d.tw.Write(&s)
	if err == nil {
		err = d.tbuf.Flush()
	}
	if err != nil && d.writeErr == nil {
		d.writeErr = fmt.Errorf("%s: %w", d.Path(TimelineFile), err)
	}
}

// Err is the first error writing results.jsonl or timeline.csv.
func (d *RunDir) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.writeErr
}

// Finished is the number of result records written.
func (d *RunDir) Finished() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.written
}

// Update changes the metadata the next Finish writes (the end time, the
// scrape counts, the cache config).
func (d *RunDir) Update(fn func(*Metadata)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn(&d.meta)
}

// State is how the run ended so far: RunRunning until a Finish, and the
// reason of an early end.
func (d *RunDir) State() (state, reason string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.meta.State, d.meta.Reason
}

// Finish records how the run ended and replaces metadata.json atomically
// with the state, the reason and the count of records written. It may be
// called more than once (the breaker's abort when it trips, the command's
// own at the end): an early end (interrupted, aborted) stays, the first
// one's reason with it, and the counts are the latest.
func (d *RunDir) Finish(state, reason string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.meta.State == RunRunning || d.meta.State == RunComplete || d.meta.State == "" {
		d.meta.State, d.meta.Reason = state, reason
	}
	d.meta.Interrupted = d.meta.State != RunComplete
	d.meta.RequestsFinished = d.written
	d.meta.End = time.Now()
	return WriteMetadata(d.Path(MetadataFile), d.meta)
}

// Close closes results.jsonl and timeline.csv.
func (d *RunDir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var errs []error
	if d.tbuf != nil {
		errs = append(errs, d.tbuf.Flush())
	}
	for _, f := range []*os.File{d.results, d.timeline} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// Remove closes the files and deletes what OpenRunDir created: the
// directory when it made it, else only the run files. For a run refused
// after its directory was opened.
func (d *RunDir) Remove() error {
	_ = d.Close()
	if d.created {
		return os.RemoveAll(d.Dir)
	}
	var errs []error
	for _, name := range []string{ResultsFile, TimelineFile, MetadataFile, SummaryFile, TextsFile} {
		if err := os.Remove(d.Path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
