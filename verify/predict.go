package verify

import (
	"math"
	"sort"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Prediction is a run replayed through the simulator, and both sides
// summarised over the same requests and the same window.
type Prediction struct {
	Report *sim.Report
	// Predicted and Measured are the two sides' summaries (the summary
	// JSON, docs/formats.md), over the measured requests.
	Predicted, Measured analysis.Summary
	// PredictedResults and MeasuredResults are the measured requests'
	// results, aligned: the same request at the same index.
	PredictedResults, MeasuredResults []workload.Result
	// PredictedTimeline and MeasuredTimeline are the server's state over
	// time, summed over replicas (KV usage averaged).
	PredictedTimeline, MeasuredTimeline []Point
	// LeftOut counts the requests not replayed: they failed before the
	// server generated their output (HTTP errors, timeouts, cancelled).
	LeftOut int
}

// Point is the server's state at one time, as /metrics shows it.
type Point struct {
	TimeS, KVUsage, Running, Waiting, Preemptions float64
}

// replayed reports whether a result is replayed: the server generated its
// output (ok, or cut inside thinking by its length).
func replayed(r *workload.Result) bool {
	return r.Status == workload.StatusOK || r.Status == workload.StatusTruncated
}

// replayRequests returns the run's requests as the server received them: at
// their sent time, with the token counts the server reported, follow-ups
// as plain requests (they were sent when they were sent). idx maps each to
// its result in r.Results.
func replayRequests(r *Run) (reqs []workload.Request, idx []int) {
	for i := range r.Results {
		res := &r.Results[i]
		if !replayed(res) {
			continue
		}
		req := res.Request
		req.After = ""
		if req.SessionID != "" && req.PrefixTokens > 0 {
			// A session's turn, replayed at its sent time: what the cache may
			// hold of the earlier turns becomes the session's shared prefix,
			// which each turn extends and any turn of it can hit.
			req.PrefixID, req.PrefixTokens = "session:"+req.SessionID, min(req.PrefixTokens, req.PromptTokens-1)
		}
		reqs = append(reqs, req)
		idx = append(idx, i)
	}
	return reqs, idx
}

// Predict replays the run through the simulator configured as cfg (see
// Configure) and summarises both sides.
func Predict(cfg sim.Config, r *Run) (*Prediction, error) {
	reqs, idx := replayRequests(r)
	if interval := scrapeInterval(r.Timeline); interval > 0 {
		cfg.TimelineIntervalS = interval
	}
	rep, err := sim.Run(cfg, reqs, sim.Options{Timeline: true})
	if err != nil {
		return nil, err
	}
	p := &Prediction{Report: rep, LeftOut: len(r.Results) - len(reqs)}
	for k, i := range idx {
		if r.Measured[i] {
			p.PredictedResults = append(p.PredictedResults, rep.Results[k])
			p.MeasuredResults = append(p.MeasuredResults, r.Results[i])
		}
	}
	p.PredictedTimeline = simTimeline(rep.Timeline)
	p.MeasuredTimeline = runTimeline(r.Timeline)

	p.Predicted = rep.Summary()
	fillSide(&p.Predicted, p.PredictedResults, p.PredictedTimeline)
	p.Predicted.Kind = "prediction"
	p.Measured = p.Predicted // the deployment and capacity the prediction assumed
	p.Measured.Kind = "loadtest"
	p.Measured.Transforms, p.Measured.Pools = nil, nil
	p.Measured.SpecDecode, p.Measured.PrefixCacheHitRate = nil, nil
	// The server's state is measured only if scraped: no data until the
	// timeline or the load test's summary says otherwise.
	p.Measured.KVUsage, p.Measured.Running, p.Measured.Waiting = analysis.KVUsage{NoData: true}, analysis.Occupancy{NoData: true}, analysis.Occupancy{NoData: true}
	p.Measured.Preemptions = nil
	if s := r.Summary; s != nil {
		p.Measured.SpecDecode, p.Measured.PrefixCacheHitRate = s.SpecDecode, s.PrefixCacheHitRate
		p.Measured.Capacity.NumGPUBlocks, p.Measured.Capacity.BlockSize = s.Capacity.NumGPUBlocks, s.Capacity.BlockSize
	}
	fillSide(&p.Measured, p.MeasuredResults, p.MeasuredTimeline)
	p.Measured.LatencyS.ITL = measuredITL(r, p.MeasuredResults)
	// The server's own TTFT is in no result record: the load test's
	// summary has it, from the vllm:time_to_first_token_seconds histogram
	// over its measured window.
	p.Measured.LatencyS.TTFTEngine = analysis.Stat{NoData: true}
	if r.Summary != nil && !r.Summary.LatencyS.TTFTEngine.NoData {
		st, k := r.Summary.LatencyS.TTFTEngine, r.TimeScale // an emulator's histogram is in wall seconds
		p.Measured.LatencyS.TTFTEngine = analysis.Stat{Mean: st.Mean * k, P50: st.P50 * k, P90: st.P90 * k, P99: st.P99 * k}
	}
	if len(p.MeasuredTimeline) == 0 && r.Summary != nil {
		// No timeline (scraping was off): the load test's own figures.
		s := r.Summary
		p.Measured.KVUsage, p.Measured.Running, p.Measured.Waiting, p.Measured.Preemptions = s.KVUsage, s.Running, s.Waiting, s.Preemptions
	}
	return p, nil
}

// fillSide sets a summary's request counts, latencies, tokens and
// throughput from results, and its server state from the timeline over the
// window the results span (the measured requests' first arrival to last
// finish on that side).
func fillSide(s *analysis.Summary, results []workload.Result, tl []Point) {
	from, to := window(results)
	itl := s.LatencyS.ITL
	fresh := analysis.Summarize(s.Kind, results, to-from)
	s.Requests, s.DurationS, s.Throughput, s.LatencyS, s.Tokens = fresh.Requests, fresh.DurationS, fresh.Throughput, fresh.LatencyS, fresh.Tokens
	s.LatencyS.ITL = itl
	if len(tl) == 0 {
		return
	}
	// A cell the server did not expose is NaN: each quantity counts only
	// the scrapes that had it, and one that no scrape in the window had is
	// no data, not a zero.
	var kv, running, waiting gauge
	before, last := 0.0, math.NaN()
	for _, p := range tl {
		if p.TimeS < from {
			if !math.IsNaN(p.Preemptions) {
				before = p.Preemptions
			}
			continue
		}
		if p.TimeS > to {
			break
		}
		kv.add(p.KVUsage)
		running.add(p.Running)
		waiting.add(p.Waiting)
		if !math.IsNaN(p.Preemptions) {
			last = p.Preemptions
		}
	}
	s.KVUsage = analysis.KVUsage{Mean: kv.mean(), Peak: kv.peak, NoData: kv.n == 0}
	s.Running = analysis.Occupancy{Mean: running.mean(), Peak: int(running.peak), NoData: running.n == 0}
	s.Waiting = analysis.Occupancy{Mean: waiting.mean(), Peak: int(waiting.peak), NoData: waiting.n == 0}
	s.Preemptions = nil
	if !math.IsNaN(last) {
		s.Preemptions = analysis.Int64(int64(math.Round(max(last-before, 0))))
	}
}

// gauge accumulates one scraped quantity's mean and peak, skipping the
// scrapes that did not have it (NaN).
type gauge struct{ n, sum, peak float64 }

func (g *gauge) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	g.n++
	g.sum += v
	g.peak = max(g.peak, v)
}

func (g *gauge) mean() float64 {
	if g.n == 0 {
		return 0
	}
	return g.sum / g.n
}

// window is the span of a side's results: first arrival to last finish.
func window(results []workload.Result) (from, to float64) {
	from, to = math.Inf(1), 0
	for i := range results {
		from = min(from, results[i].ArrivalS)
		to = max(to, results[i].ArrivalS+results[i].E2ES)
	}
	if math.IsInf(from, 1) {
		return 0, 0
	}
	return from, to
}

// measuredITL is the load test's inter-token latency: every gap it saw
// (summary.json), or, without a summary, the mean of the requests' own.
func measuredITL(r *Run, results []workload.Result) analysis.Stat {
	if len(results) == 0 {
		return analysis.Stat{NoData: true} // nothing measured, whatever the summary's zeros say
	}
	if s := r.Summary; s != nil {
		if s.LatencyFromSentS != nil && !s.LatencyFromSentS.ITL.NoData && s.LatencyFromSentS.ITL != (analysis.Stat{}) {
			return s.LatencyFromSentS.ITL
		}
		return s.LatencyS.ITL
	}
	var sum, n float64
	for i := range results {
		if results[i].ITLMeanS > 0 {
			sum += results[i].ITLMeanS
			n++
		}
	}
	if n == 0 {
		return analysis.Stat{NoData: true}
	}
	return analysis.Stat{Mean: sum / n}
}

// scrapeInterval is the median gap between timeline rows (0 with fewer
// than two rows): the prediction samples its timeline as often.
func scrapeInterval(tl []loadgen.TimelineRow) float64 {
	if len(tl) < 2 {
		return 0
	}
	gaps := make([]float64, 0, len(tl)-1)
	for i := 1; i < len(tl); i++ {
		if g := tl[i].TimeS - tl[i-1].TimeS; g > 0 {
			gaps = append(gaps, g)
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	sort.Float64s(gaps)
	return analysis.Quantile(gaps, 0.5)
}

// runTimeline turns the scraped rows into points; a cell the server did not
// expose stays NaN (unknown), which fillSide skips, the plots leave out and
// the reconstruction's comparisons read as "nothing seen".
func runTimeline(rows []loadgen.TimelineRow) []Point {
	out := make([]Point, 0, len(rows))
	for _, r := range rows {
		out = append(out, Point{TimeS: r.TimeS, KVUsage: r.KVUsage, Running: r.Running, Waiting: r.Waiting, Preemptions: r.Preemptions})
	}
	return out
}

// simTimeline sums the replicas' samples at each time (KV usage averaged),
// as a load test of a cluster behind one endpoint sees it.
func simTimeline(samples []sim.TimelineSample) []Point {
	var out []Point
	for i := 0; i < len(samples); {
		j, p := i, Point{TimeS: samples[i].TimeS}
		for ; j < len(samples) && samples[j].TimeS == p.TimeS; j++ {
			s := &samples[j]
			p.KVUsage += s.KVUsage
			p.Running += float64(s.Running)
			p.Waiting += float64(s.Waiting)
			p.Preemptions += float64(s.Preemptions)
		}
		p.KVUsage /= float64(j - i)
		out = append(out, p)
		i = j
	}
	return out
}
