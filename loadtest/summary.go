package loadtest

import (
	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/loadgen"
)

// summarize is the summary JSON (docs/formats.md) of a load test: latencies from the
// result records, the server's side from the scraped metrics.
func summarize(model string, out *loadgen.Outcome, tel *loadgen.Telemetry, gaps *loadgen.GapHistogram, maxModelLen int64) analysis.Summary {
	duration := out.End.Sub(out.Start).Seconds()
	s := analysis.Summarize("loadtest", out.Results, duration)
	sent := analysis.Summarize("loadtest", out.FromSent, duration)
	s.LatencyFromSentS = &sent.LatencyS
	var itl analysis.Stat
	itl.Mean, itl.P50, itl.P90, itl.P99 = gaps.Quantiles()
	s.LatencyS.ITL, s.LatencyFromSentS.ITL = itl, itl
	s.ScheduleLagS = &analysis.ScheduleLag{P50: out.LagP50S, P99: out.LagP99S, Max: out.LagMaxS, Late: out.Late}
	s.Config = analysis.Config{Model: model, Replicas: 1, MaxModelLen: int(maxModelLen)}
	if c := tel.Capacity; c != nil {
		s.Config.KVCacheDtype = c.CacheDtype
		s.Capacity = analysis.Capacity{
			NumGPUBlocks: int(c.NumGPUBlocks), BlockSize: int(c.BlockSize),
			KVCacheTokens: c.KVCacheTokens, MaxConcurrency: c.MaxConcurrency,
		}
	}
	serverSide(&s, tel)
	return s
}

// serverSide fills what only the server's metrics say. What the server
// never told us is null, not zero: a zero would read as measured.
func serverSide(s *analysis.Summary, tel *loadgen.Telemetry) {
	if tel.Preemptions != nil {
		p := int64(*tel.Preemptions)
		s.Preemptions = &p
	}
	s.KVUsage = analysis.KVUsage{NoData: true}
	if g := tel.KVUsage; g != nil {
		s.KVUsage = analysis.KVUsage{Mean: g.Mean, Peak: g.Peak}
	}
	s.Running, s.Waiting = analysis.Occupancy{NoData: true}, analysis.Occupancy{NoData: true}
	if g := tel.Running; g != nil {
		s.Running = analysis.Occupancy{Mean: g.Mean, Peak: int(g.Peak)}
	}
	if g := tel.Waiting; g != nil {
		s.Waiting = analysis.Occupancy{Mean: g.Mean, Peak: int(g.Peak)}
	}
	// A client cannot see the server's queue: the row is the server's
	// vllm:request_queue_time_seconds over the measured window, and "not
	// measured" (never a row of zeros) when it was not scraped.
	s.LatencyS.Queue, s.LatencyFromSentS.Queue = analysis.Stat{NoData: true}, analysis.Stat{NoData: true}
	if q := tel.QueueTime; q != nil {
		st := analysis.Stat{Mean: q.Mean, P50: q.P50, P90: q.P90, P99: q.P99}
		s.LatencyS.Queue, s.LatencyFromSentS.Queue = st, st
	}
	// The server's own TTFT, beside the client's: the histogram over the
	// window, "not measured" when it was not scraped.
	s.LatencyS.TTFTEngine, s.LatencyFromSentS.TTFTEngine = analysis.Stat{NoData: true}, analysis.Stat{NoData: true}
	if h := tel.TTFT; h != nil {
		st := analysis.Stat{Mean: h.Mean, P50: h.P50, P90: h.P90, P99: h.P99}
		s.LatencyS.TTFTEngine, s.LatencyFromSentS.TTFTEngine = st, st
	}
	// Rates over nothing (no draft made, no prefix queried in the window)
	// are unknown, not 0.
	if sd := tel.SpecDecode; sd != nil && sd.Drafts > 0 && sd.DraftTokens > 0 {
		s.SpecDecode = &analysis.SpecDecodeStats{AcceptanceLength: sd.AcceptanceLength, AcceptanceRate: sd.AcceptanceRate, PerPosition: sd.PerPosAcceptanceRate}
	}
	if pc := tel.PrefixCache; pc != nil && pc.Queries > 0 {
		rate := pc.HitRate
		s.PrefixCacheHitRate = &rate
	}
}

// addDistributions gives the latencies their spread at --percentiles: the
// per-request ones from the records, ITL from the run's gap histogram.
func addDistributions(s *analysis.Summary, out *loadgen.Outcome, gaps *loadgen.GapHistogram, ps []float64) {
	s.LatencyS.AddDistributions(analysis.SampleLatencies(out.Results), ps)
	s.LatencyFromSentS.AddDistributions(analysis.SampleLatencies(out.FromSent), ps)
	if gaps.Count() > 0 {
		d := &analysis.Distribution{Min: gaps.Quantile(0), Max: gaps.Quantile(1), Std: gaps.Std()}
		for _, p := range ps {
			d.Percentiles = append(d.Percentiles, analysis.Percentile{P: p, Value: gaps.Quantile(p / 100)})
		}
		s.LatencyS.ITL.Dist, s.LatencyFromSentS.ITL.Dist = d, d
	}
}

// addFailures fills the summary's failure breakdown and, when scraping,
// the scrape counts.
func addFailures(s *analysis.Summary, out *loadgen.Outcome, stats loadgen.ScrapeStats, scraped bool) {
	s.Errors = analysis.Errors(out.Results)
	if scraped {
		s.Scrape = &analysis.ScrapeCounts{Scrapes: stats.Attempts, Failures: stats.Failures, LastError: stats.LastError}
	}
}
