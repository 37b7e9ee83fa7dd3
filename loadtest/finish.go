package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/outfile"
	"github.com/thinkcap/thinkcap/loadgen"
)

// finish completes the run directory once the load has drained: the last
// scrape, the cache config and scrape counts in metadata.json,
// summary.json, and the run's state (complete, aborted or interrupted).
func (r *run) finish(ctx context.Context, outcome *loadgen.Outcome) (*Outcome, error) {
	o := r.o
	// One last scrape so the counters cover the end of the window.
	if o.ScrapeInterval > 0 {
		_, _ = r.scraper.Scrape(context.Background())
	}
	samples := r.scraper.Samples()
	stats := r.scraper.Stats()
	r.rd.Update(func(m *loadgen.Metadata) {
		m.ScheduleStart = outcome.Start
		m.CacheConfig = loadgen.FirstCacheConfig(samples)
		m.Scrape = &stats
		if m.Engine == "" && len(samples) > 0 {
			m.Engine = loadgen.DetectEngine(loadgen.ModelsInfo{}, samples[len(samples)-1].Families)
		}
	})
	tel := loadgen.Summarize(samples, measureFrom(outcome, o.Requests, o.Warmup), outcome.End)
	s := summarize(o.Model, outcome, &tel, r.gaps, r.meta.MaxModelLen)
	addFailures(&s, outcome, stats, o.ScrapeInterval > 0)
	if len(o.Percentiles) > 0 {
		addDistributions(&s, outcome, r.gaps, o.Percentiles)
	}
	if o.Goodput != nil {
		s.Goodput = analysis.ComputeGoodput(outcome.Results, o.Goodput, s.DurationS)
	}
	if err := writeSummary(r.rd, &s); err != nil {
		return nil, err
	}
	// The gap histogram itself, so that thinkcap merge adds the shards'
	// gaps rather than averaging their percentiles.
	if err := writeJSONFile(r.rd.Path(loadgen.ITLGapsFile), r.gaps.Counts()); err != nil {
		return nil, err
	}
	state, reason := loadgen.RunComplete, ""
	if outcome.Aborted != "" {
		state, reason = loadgen.RunAborted, outcome.Aborted
	}
	sig := interruptedBy(ctx)
	if sig != nil {
		state, reason = loadgen.RunInterrupted, "interrupted by signal "+signalName(sig)
	}
	if err := r.rd.Finish(state, reason); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Stderr, "thinkcap: wrote %s (results.jsonl, timeline.csv, metadata.json, summary.json)\n", r.dir)
	if err := r.writeExtraFiles(&s, outcome, samples, string(state)); err != nil {
		return nil, err
	}
	return &Outcome{
		Dir: r.dir, Summary: s, Aborted: outcome.Aborted, Finished: r.rd.Finished(), Planned: len(o.Requests), Signal: sig,
		json: o.JSON, checks: r.checks, predict: o.Predict,
	}, nil
}

// writeExtraFiles writes what was asked for beside the run directory:
// --save-result in vllm bench serve's format, the --report HTML.
func (r *run) writeExtraFiles(s *analysis.Summary, outcome *loadgen.Outcome, samples []loadgen.Sample, state string) error {
	o := r.o
	if o.SaveResult != "" {
		res, err := vllmResult(o, outcome, r.gaps, s, time.Now())
		if err == nil {
			err = writeVLLMResult(o.SaveResult, res)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Stderr, "thinkcap: wrote %s (vllm bench serve's result format)\n", o.SaveResult)
	}
	if o.Report != "" {
		if err := writeLoadReport(o.Report, r, s, outcome, samples, state); err != nil {
			return err
		}
		fmt.Fprintf(o.Stderr, "thinkcap: wrote %s\n", o.Report)
	}
	return nil
}

// writeSummary writes the run's summary.json (metadata.json and
// timeline.csv are the run directory's, written as the run goes).
func writeSummary(rd *loadgen.RunDir, s *analysis.Summary) error {
	return writeJSONFile(rd.Path(loadgen.SummaryFile), s)
}

// writeJSONFile writes v to path as indented JSON.
func writeJSONFile(path string, v any) error {
	return outfile.Write(path, func(w *bufio.Writer) error { return writeJSON(w, v) })
}

// writeJSON writes v as indented JSON, as every -o json does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
