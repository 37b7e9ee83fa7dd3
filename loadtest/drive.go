package loadtest

import (
	"context"
	"fmt"
	"time"

	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// drive sends the load with the scraper running beside it: the texts
// --save-text keeps, warmed connections first, progress on stderr, every
// record written as it finishes.
func (r *run) drive(ctx context.Context) (loadgen.Outcome, error) {
	o := r.o
	r.scraper = loadgen.NewScraper(loadgen.ScraperConfig{URL: o.URL, Interval: o.ScrapeInterval, HTTPClient: r.scrapes, APIKey: o.APIKey, OnSample: r.rd.AddSample})
	scrapeCtx, stopScrape := context.WithCancel(ctx)
	defer stopScrape()
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		if o.ScrapeInterval > 0 {
			r.scraper.Run(scrapeCtx)
		}
	}()
	texts, err := newTextLog(r.rd.Dir, o.SaveText)
	if err != nil {
		return loadgen.Outcome{}, err
	}
	defer texts.close()
	// The connections the run will need are opened before the schedule
	// starts, so that no early TTFT counts the client's dialling.
	loadgen.WarmConnections(ctx, r.http, o.URL, o.APIKey, loadgen.ExpectedConcurrency(o.Requests, o.Concurrency, o.MaxInFlight))
	if !o.StartAt.IsZero() {
		if late := time.Since(o.StartAt); late > 0 {
			fmt.Fprintf(o.Stderr, "thinkcap: warning: --start-at %s passed %s ago: starting now, the shards out of step\n", o.StartAt.Format(time.RFC3339), late.Round(time.Millisecond))
		} else if !loadgen.SleepUntil(ctx, o.StartAt) {
			return loadgen.Outcome{Start: time.Now(), End: time.Now()}, nil
		}
	}
	prog := &loadProgress{total: len(o.Requests), target: targetRate(o.Requests), span: scheduleSpan(o), latest: r.scraper.Latest}
	stopProgress := prog.show(o.Stderr, "load test", o.ProgressInterval)
	outcome := loadgen.Run(ctx, r.client, r.runConfig(prog, texts))
	stopProgress()
	stopScrape()
	<-scraped
	if err := r.rd.Err(); err != nil {
		return outcome, fmt.Errorf("writing the run: %w", err)
	}
	return outcome, nil
}

// runConfig is the runner's configuration: the schedule and its pacing,
// the length control of what is sent, and the callbacks that count
// progress and write each record.
func (r *run) runConfig(prog *loadProgress, texts *textLog) loadgen.RunConfig {
	o := r.o
	lengths := &loadgen.LengthControl{
		ForceLength:  o.ForceLength == "on" || o.ForceLength == "auto" && loadgen.ForceLengthFor(o.Model),
		SaveTextRate: o.SaveText, Seed: uint64(o.Seed),
		Prompts: &loadgen.PromptCalibrator{}, Texts: o.PromptTexts, History: o.History,
	}
	// Thinking budgets as the server sees them: forced closure is vLLM's
	// own thinking_token_budget (the lengths the transform predicts),
	// truncate a plain max_tokens, two-phase a gateway's second call.
	if o.ThinkBudget > 0 && o.BudgetPolicy == workload.PolicyForcedClosure {
		lengths.ThinkingBudget = o.ThinkBudget
	}
	return loadgen.RunConfig{
		Requests: o.Requests, Concurrency: o.Concurrency, MaxInFlight: o.MaxInFlight, MaxRate: o.MaxRate,
		WorkerStart: o.workerStart(),
		Duration:    o.Duration, Warmup: o.Warmup.Requests, WarmupDuration: o.Warmup.For,
		MaxConsecutiveFailures: o.MaxConsecutiveFailures,
		// Said at once when the circuit breaker trips, before the records
		// of the requests it cancelled and the summary are written.
		OnAbort: func(reason string) { fmt.Fprintf(o.Stderr, "thinkcap: aborting: %s\n", reason) },
		Build: func(req workload.Request) loadgen.Request {
			prog.sent.Add(1)
			return lengths.Build(req)
		},
		Continue: func(child workload.Request, parent loadgen.Request, pm *loadgen.Measurement) loadgen.Request {
			prog.sent.Add(1)
			return lengths.Continue(child, parent, pm)
		},
		OnResult: func(res *workload.Result, m *loadgen.Measurement, _ bool) {
			lengths.Observe(res.ID, res.PromptTokens)
			if m != nil && lengths.Saves(res.ID) {
				texts.write(res.ID, lengths.SavedPrompt(res.ID), m)
			}
			// Written and flushed one by one: a crash or Ctrl-C keeps every
			// finished record.
			_ = r.rd.WriteResult(res)
			prog.count(res, m)
		},
	}
}
