package loadtest

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// A load test too large for one client runs as shards (--shard I/N), each
// its own run directory; Merge makes them one run directory again, as one
// client would have written it: the records merged in schedule order, the
// scraping shard's timeline, the summary recomputed from the raw records
// and the shards' gap histograms (never averaged percentiles), and
// metadata.json listing the shards. verify and calibrate take it as any
// other run.

// MergeOptions are `thinkcap merge`'s.
type MergeOptions struct {
	Dirs  []string // the shards' run directories
	Out   string   // the merged run directory
	Force bool     // --force: replace a run already in Out
	Args  []string // the command line, for metadata.json
}

// MergeOutcome is a merged run: its directory, summary and what to say.
type MergeOutcome struct {
	Dir     string
	Summary analysis.Summary
	Notes   []string
}

// shardDir is one shard read back.
type shardDir struct {
	dir      string
	meta     loadgen.Metadata
	results  []workload.Result
	measured []bool
	gaps     *loadgen.GapCounts
	summary  *analysis.Summary
	offsetS  float64
}

// Merge merges the shards (see the file comment). Shards that ended early
// are merged with what they wrote, and the merged run says so.
func Merge(o MergeOptions) (*MergeOutcome, error) {
	if len(o.Dirs) == 0 {
		return nil, inputerr.New(errors.New("merge: no run directory given"))
	}
	if err := loadgen.CheckRunDir(o.Out, o.Force); err != nil {
		return nil, inputerr.New(err)
	}
	shards := make([]*shardDir, len(o.Dirs))
	for i, d := range o.Dirs {
		s, err := readShard(d)
		if err != nil {
			return nil, inputerr.New(err)
		}
		shards[i] = s
	}
	if err := checkShards(shards); err != nil {
		return nil, inputerr.New(err)
	}
	origin := shards[0].scheduleStart()
	for _, s := range shards[1:] {
		if t := s.scheduleStart(); t.Before(origin) {
			origin = t
		}
	}
	out := &MergeOutcome{Dir: o.Out}
	meta := shards[0].meta
	meta.Command, meta.Shard, meta.Start, meta.ScheduleStart = o.Args, nil, origin, origin
	meta.RequestsPlanned, meta.RequestsFinished, meta.Shards = 0, 0, nil
	meta.State, meta.Reason, meta.Interrupted = loadgen.RunComplete, "", false
	var results, measured, fromSent []workload.Result
	gaps := &loadgen.GapHistogram{}
	end := origin
	var scraper *shardDir
	for _, s := range shards {
		s.offsetS = s.scheduleStart().Sub(origin).Seconds()
		for i := range s.results {
			r := s.results[i]
			r.ScheduledS += s.offsetS
			if r.After == "" { // a follow-up's arrival is a delay after its predecessor
				r.ArrivalS += s.offsetS
			}
			if r.SentS > 0 {
				r.SentS += s.offsetS
			}
			results = append(results, r)
			if s.measured[i] {
				measured = append(measured, r)
				fromSent = append(fromSent, fromSentView(r))
			}
		}
		if s.gaps != nil {
			if err := gaps.AddCounts(*s.gaps); err != nil {
				return nil, inputerr.New(fmt.Errorf("%s: %w", s.dir, err))
			}
		} else {
			out.Notes = append(out.Notes, fmt.Sprintf("%s has no %s: its inter-token gaps are not in the merged ITL", s.dir, loadgen.ITLGapsFile))
		}
		if s.meta.End.After(end) {
			end = s.meta.End
		}
		scraped := s.meta.Scrape != nil && s.meta.Scrape.Attempts > 0
		if scraped && scraper == nil {
			scraper = s
		}
		meta.RequestsPlanned += s.meta.RequestsPlanned
		meta.RequestsFinished += len(s.results)
		meta.Shards = append(meta.Shards, loadgen.ShardRun{
			Dir: s.dir, Shard: s.meta.Shard, State: s.meta.State, Reason: s.meta.Reason,
			RequestsPlanned: s.meta.RequestsPlanned, RequestsFinished: len(s.results),
			ScheduleStart: s.scheduleStart(), ServerClockOffsetS: s.meta.ServerClockOffsetS, OffsetS: s.offsetS, Scraped: scraped,
		})
		if s.meta.State != loadgen.RunComplete {
			meta.State, meta.Interrupted = loadgen.RunInterrupted, true
			meta.Reason = fmt.Sprintf("shard %s ended early (%s)", s.name(), s.meta.State)
		}
	}
	meta.End = end
	sort.SliceStable(results, func(i, j int) bool { return results[i].ScheduledS < results[j].ScheduledS })
	if scraper == nil {
		out.Notes = append(out.Notes, "no shard scraped /metrics: the merged run has no server side")
		meta.Scrape = nil
	} else {
		meta.Scrape = scraper.meta.Scrape
	}

	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, inputerr.New(err)
	}
	if err := writeResults(filepath.Join(o.Out, loadgen.ResultsFile), results); err != nil {
		return nil, err
	}
	if err := writeTimeline(o.Out, scraper, origin); err != nil {
		return nil, err
	}
	if err := writeJSONFile(filepath.Join(o.Out, loadgen.ITLGapsFile), gaps.Counts()); err != nil {
		return nil, err
	}
	s := mergedSummary(meta, measured, fromSent, gaps, scraper, origin, end)
	if err := writeJSONFile(filepath.Join(o.Out, loadgen.SummaryFile), &s); err != nil {
		return nil, err
	}
	if err := loadgen.WriteMetadata(filepath.Join(o.Out, loadgen.MetadataFile), meta); err != nil {
		return nil, err
	}
	out.Summary = s
	return out, nil
}

// readShard reads a shard's run directory: its metadata, its records in
// schedule order with those its statistics covered (not warm-up), its gap
// histogram and summary when it wrote them.
func readShard(dir string) (*shardDir, error) {
	s := &shardDir{dir: dir}
	var err error
	if s.meta, err = loadgen.ReadMetadata(filepath.Join(dir, loadgen.MetadataFile)); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if s.results, err = workload.ReadResultsFile(filepath.Join(dir, loadgen.ResultsFile)); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	sort.SliceStable(s.results, func(i, j int) bool { return s.results[i].ScheduledS < s.results[j].ScheduledS })
	n, d := 0, time.Duration(0)
	if w, ok := s.meta.Options["warmup"].(string); ok && w != "" {
		if n, d, err = loadgen.ParseWarmup(w); err != nil {
			return nil, fmt.Errorf("%s: metadata.json: options.warmup: %w", dir, err)
		}
	}
	s.measured = make([]bool, len(s.results))
	for i := range s.results {
		s.measured[i] = i >= n && s.results[i].ScheduledS >= d.Seconds()
	}
	if b, err := os.ReadFile(filepath.Join(dir, loadgen.ITLGapsFile)); err == nil {
		var g loadgen.GapCounts
		if err := json.Unmarshal(b, &g); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, loadgen.ITLGapsFile, err)
		}
		s.gaps = &g
	}
	if b, err := os.ReadFile(filepath.Join(dir, loadgen.SummaryFile)); err == nil {
		var sum analysis.Summary
		if err := json.Unmarshal(b, &sum); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, loadgen.SummaryFile, err)
		}
		s.summary = &sum
	}
	return s, nil
}

// checkShards refuses what cannot be one run: other targets or models,
// a shard given twice, shards of different counts.
func checkShards(shards []*shardDir) error {
	first := shards[0].meta
	seen := map[int]string{}
	for _, s := range shards {
		switch {
		case s.meta.TargetURL != first.TargetURL:
			return fmt.Errorf("merge: %s targets %s, %s targets %s: not one run", s.dir, s.meta.TargetURL, shards[0].dir, first.TargetURL)
		case s.meta.Model != first.Model:
			return fmt.Errorf("merge: %s sent to model %q, %s to %q: not one run", s.dir, s.meta.Model, shards[0].dir, first.Model)
		case s.meta.Shard == nil:
			return fmt.Errorf("merge: %s is not a shard (loadtest --shard I/N)", s.dir)
		case first.Shard == nil || s.meta.Shard.Count != first.Shard.Count:
			return fmt.Errorf("merge: %s is shard %s, %s shard %s: not one run", s.dir, s.name(), shards[0].dir, shards[0].name())
		}
		if other, dup := seen[s.meta.Shard.Index]; dup {
			return fmt.Errorf("merge: %s and %s are both shard %s", other, s.dir, s.name())
		}
		seen[s.meta.Shard.Index] = s.dir
	}
	return nil
}

func (s *shardDir) name() string {
	if s.meta.Shard == nil {
		return "-"
	}
	return s.meta.Shard.String()
}

// scheduleStart is when the shard's schedule began (its start on runs
// written before thinkcap recorded it).
func (s *shardDir) scheduleStart() time.Time {
	if !s.meta.ScheduleStart.IsZero() {
		return s.meta.ScheduleStart
	}
	return s.meta.Start
}

// fromSentView is a record's latencies counted from when it was sent, as
// the load test's latency_from_sent_s counts them.
func fromSentView(r workload.Result) workload.Result {
	lag := max(r.SentS-r.ScheduledS, 0)
	for _, v := range []*float64{&r.TTFTS, &r.TTFAS, &r.E2ES} {
		if *v > 0 {
			*v = max(*v-lag, 0)
		}
	}
	return r
}

// mergedSummary is the merged run's summary: the client's side from the
// measured records and the merged gaps, the server's from the shard that
// scraped (one client's view of one server), the lag from every record.
func mergedSummary(meta loadgen.Metadata, measured, fromSent []workload.Result, gaps *loadgen.GapHistogram, scraper *shardDir, origin, end time.Time) analysis.Summary {
	duration := end.Sub(origin).Seconds()
	s := analysis.Summarize("loadtest", measured, duration)
	sent := analysis.Summarize("loadtest", fromSent, duration)
	s.LatencyFromSentS = &sent.LatencyS
	var itl analysis.Stat
	itl.Mean, itl.P50, itl.P90, itl.P99 = gaps.Quantiles()
	s.LatencyS.ITL, s.LatencyFromSentS.ITL = itl, itl
	var lags []float64
	late := 0
	for _, r := range measured {
		if r.SentS > 0 && r.After == "" {
			lag := max(r.SentS-r.ScheduledS, 0)
			lags = append(lags, lag)
			if lag > loadgen.LateThreshold.Seconds() {
				late++
			}
		}
	}
	slices.Sort(lags)
	s.ScheduleLagS = &analysis.ScheduleLag{Late: late}
	if len(lags) > 0 {
		s.ScheduleLagS.P50, s.ScheduleLagS.P99, s.ScheduleLagS.Max = analysis.Quantile(lags, 0.5), analysis.Quantile(lags, 0.99), lags[len(lags)-1]
	}
	s.Config = analysis.Config{Model: meta.Model, Replicas: 1, MaxModelLen: int(meta.MaxModelLen)}
	s.Errors = analysis.Errors(measured)
	s.KVUsage, s.Running, s.Waiting = analysis.KVUsage{NoData: true}, analysis.Occupancy{NoData: true}, analysis.Occupancy{NoData: true}
	s.LatencyS.Queue, s.LatencyFromSentS.Queue = analysis.Stat{NoData: true}, analysis.Stat{NoData: true}
	s.LatencyS.TTFTEngine, s.LatencyFromSentS.TTFTEngine = analysis.Stat{NoData: true}, analysis.Stat{NoData: true}
	if scraper != nil && scraper.summary != nil {
		// The server's side, as the scraping shard saw it over the run.
		ss := scraper.summary
		s.Capacity, s.Config.KVCacheDtype = ss.Capacity, ss.Config.KVCacheDtype
		s.Preemptions, s.KVUsage, s.Running, s.Waiting = ss.Preemptions, ss.KVUsage, ss.Running, ss.Waiting
		s.LatencyS.Queue, s.LatencyFromSentS.Queue = ss.LatencyS.Queue, ss.LatencyS.Queue
		s.LatencyS.TTFTEngine, s.LatencyFromSentS.TTFTEngine = ss.LatencyS.TTFTEngine, ss.LatencyS.TTFTEngine
		s.SpecDecode, s.PrefixCacheHitRate, s.Scrape = ss.SpecDecode, ss.PrefixCacheHitRate, ss.Scrape
	}
	return s
}

// writeResults writes the merged records.
func writeResults(path string, results []workload.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return inputerr.New(err)
	}
	if err := workload.WriteResults(f, results); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeTimeline copies the scraping shard's timeline, its times moved to
// count from the merged run's start; a run without one gets a header only.
func writeTimeline(dir string, scraper *shardDir, origin time.Time) error {
	out, err := os.Create(filepath.Join(dir, loadgen.TimelineFile))
	if err != nil {
		return inputerr.New(err)
	}
	w := csv.NewWriter(out)
	defer out.Close()
	if scraper == nil {
		if err := loadgen.NewTimelineWriter(out, origin).WriteHeader(); err != nil {
			return err
		}
		return out.Close()
	}
	in, err := os.Open(filepath.Join(scraper.dir, loadgen.TimelineFile))
	if err != nil {
		return inputerr.New(err)
	}
	defer in.Close()
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	shift := scraper.meta.Start.Sub(origin).Seconds()
	for first := true; ; first = false {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			break // a partial last row (a shard killed mid-write) is dropped
		}
		if !first && len(row) > 0 {
			if t, err := strconv.ParseFloat(row[0], 64); err == nil {
				row[0] = strconv.FormatFloat(t+shift, 'f', 3, 64)
			}
		}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return out.Close()
}
