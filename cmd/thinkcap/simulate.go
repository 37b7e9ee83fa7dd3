package main

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

type simulateOptions struct {
	dep              deploymentFlags
	traffic          trafficFlags
	whatIf           whatIfFlags
	output           string
	resultsPath      string
	timelinePath     string
	timelineInterval float64
}

func newSimulateCmd() *cobra.Command {
	var o simulateOptions
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate a vLLM deployment on logged or synthetic traffic",
		Long: `simulate runs a discrete-event model of vLLM's V1 engine (KV block pool,
continuous-batching scheduler, chunked prefill, preemption by recompute, prefix
caching, speculative decoding) for each replica, on a log of requests or on
synthetic traffic, and reports what users would see (TTFT, time to first answer
token, TPOT, ITL, E2E) and what the servers did (KV usage, queue, preemptions).

With no traffic flags it runs the embedded default: Qwen3-8B on one H100 with
the seed tutorial's three effort modes mixed 70/25/5.`,
		Example: `  thinkcap simulate
  thinkcap simulate --model qwen3-14b --gpu h100-sxm --requests 5000 --rate 1.5 \
      --prompt-tokens lognormal:p50=800,p99=6000 --think-tokens lognormal:p50=1500,p99=12000,max=30000
  thinkcap simulate --workload requests.jsonl --kv-cache-dtype fp8 --results results.jsonl -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd, &o) },
	}
	fs := cmd.Flags()
	o.dep.register(fs)
	o.traffic.register(fs)
	o.whatIf.register(fs)
	fs.StringVarP(&o.output, "output", "o", "table", "table or json (DESIGN.md's summary JSON)")
	fs.StringVar(&o.resultsPath, "results", "", "write per-request result records (JSONL) to this file")
	fs.StringVar(&o.timelinePath, "timeline", "", "write KV usage, running, waiting and preemptions over time (CSV) to this file")
	fs.Float64Var(&o.timelineInterval, "timeline-interval", 1, "simulated seconds between timeline samples")
	return cmd
}

func runSimulate(cmd *cobra.Command, o *simulateOptions) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	if !(o.timelineInterval > 0) || math.IsInf(o.timelineInterval, 1) {
		return badInput(fmt.Errorf("--timeline-interval must be a positive number of seconds, got %g", o.timelineInterval))
	}
	// Every flag before any work: a bad one is named at once.
	if err := errors.Join(o.dep.validate(), o.traffic.validate(), o.whatIf.validate()); err != nil {
		return badInput(err)
	}
	cat, err := o.dep.catalog()
	if err != nil {
		return err
	}
	cfg, err := o.dep.config(cat)
	if err != nil {
		return err
	}
	cfg.TimelineIntervalS = o.timelineInterval
	reqs, err := o.traffic.load(cat, o.dep.seed, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	reqs, transforms, err := o.whatIf.apply(reqs, o.dep.seed)
	if err != nil {
		return err
	}
	pools := []pool{{cfg: cfg, reqs: reqs}}
	if o.whatIf.route != "" {
		kept, routed, err := workload.Route(reqs, o.whatIf.route, uint64(o.dep.seed))
		if err != nil {
			return badInput(err)
		}
		rcfg, err := o.whatIf.routeConfig(o.dep, cat)
		if err != nil {
			return err
		}
		rcfg.TimelineIntervalS = o.timelineInterval
		pools = []pool{{name: "thinking", cfg: cfg, reqs: kept}, {name: "route", cfg: rcfg, reqs: routed}}
	}
	var results []workload.Result
	var timeline []sim.TimelineSample
	replicas := 0
	for i := range pools {
		p := &pools[i]
		bar := newProgress(cmd.ErrOrStderr(), "simulating "+p.name)
		p.rep, err = sim.Run(p.cfg, p.reqs, sim.Options{
			Concurrency: o.traffic.concurrency,
			Timeline:    o.timelinePath != "",
			Progress:    bar.update,
		})
		bar.done()
		if err != nil {
			return badInput(err)
		}
		for _, r := range p.rep.Results {
			r.Pool = p.name
			if p.name == "thinking" {
				r.Pool = ""
			}
			r.Replica += replicas
			results = append(results, r)
		}
		for _, t := range p.rep.Timeline {
			t.Replica += replicas // the route pool's replicas follow the main pool's
			timeline = append(timeline, t)
		}
		replicas += p.cfg.Replicas
	}
	if o.resultsPath != "" {
		if err := writeResults(o.resultsPath, results); err != nil {
			return err
		}
	}
	if o.timelinePath != "" {
		if err := writeFile(o.timelinePath, func(f *bufio.Writer) error { return sim.WriteTimelineCSV(f, timeline) }); err != nil {
			return err
		}
	}
	s := pools[0].rep.Summary()
	if len(pools) > 1 {
		s = poolsSummary(pools, results)
	}
	s.Transforms = transforms
	out := cmd.OutOrStdout()
	if o.output == "json" {
		return writeJSON(out, s)
	}
	if err := analysis.WriteTable(out, &s); err != nil {
		return err
	}
	for i := range s.Pools {
		fmt.Fprintf(out, "\npool %q\n", s.Pools[i].Pool)
		if err := analysis.WriteTable(out, &s.Pools[i]); err != nil {
			return err
		}
	}
	return nil
}

// pool is one simulated pool of replicas and the traffic routed to it.
type pool struct {
	name string
	cfg  sim.Config
	reqs []workload.Request
	rep  *sim.Report
}

// poolsSummary summarises every request together, with the main pool's
// deployment, and each pool on its own.
func poolsSummary(pools []pool, results []workload.Result) analysis.Summary {
	var duration float64
	for _, p := range pools {
		duration = max(duration, p.rep.DurationS)
	}
	s := analysis.Summarize("simulation", results, duration)
	main := pools[0].rep.Summary()
	s.Config, s.Capacity = main.Config, main.Capacity
	var preemptions int64
	s.Preemptions = &preemptions
	for _, p := range pools {
		ps := p.rep.Summary()
		ps.Pool = p.name
		preemptions += *ps.Preemptions
		s.Running.Mean += ps.Running.Mean
		s.Running.Peak += ps.Running.Peak
		s.Waiting.Mean += ps.Waiting.Mean
		s.Waiting.Peak += ps.Waiting.Peak
		s.Pools = append(s.Pools, ps)
	}
	// KV usage and ITL differ per pool's hardware: the top level shows the
	// main pool's; each pool has its own below.
	s.KVUsage, s.LatencyS.ITL = main.KVUsage, main.LatencyS.ITL
	return s
}

// writeResults writes result records as JSONL.
func writeResults(path string, results []workload.Result) error {
	return writeFile(path, func(f *bufio.Writer) error {
		w := workload.NewResultWriter(f)
		for i := range results {
			if err := w.Write(&results[i]); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}

// writeFile creates path and writes it through a buffer.
func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return badInput(err)
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
