package main

import (
	"fmt"
	"io"
	"math"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// Defaults of the embedded run: the seed tutorial's effort modes at a rate
// that keeps one H100 busy with Qwen3-8B without overloading it.
const (
	defaultTraffic  = "effort-modes"
	defaultRequests = 2000
	defaultRatePerS = 10
)

// Length defaults for --prompt-tokens/--think-tokens/--answer-tokens when
// only some are given: a reasoning workload with a long thinking tail.
const (
	defaultPromptSpec = "lognormal:p50=800,p99=6000,max=16000"
	defaultThinkSpec  = "lognormal:p50=1500,p99=12000,max=30000"
	defaultAnswerSpec = "lognormal:p50=300,p99=1500,max=4096"
)

// trafficFlags choose the requests: a log, or synthetic traffic.
type trafficFlags struct {
	workload    string
	traffic     string
	requests    int
	rate        float64
	arrival     string
	prompt      string
	think       string
	answer      string
	concurrency int
}

func (f *trafficFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.workload, "workload", "", "request records to replay (JSONL or CSV, optionally .gz)")
	fs.StringVar(&f.traffic, "traffic", defaultTraffic, "traffic profile for synthetic requests (see `thinkcap profiles`)")
	fs.IntVar(&f.requests, "requests", 0, fmt.Sprintf("synthetic requests to generate, or the first N of --workload (default %d synthetic)", defaultRequests))
	fs.Float64Var(&f.rate, "rate", 0, fmt.Sprintf("synthetic arrival rate in requests/s (default %d)", defaultRatePerS))
	fs.StringVar(&f.arrival, "arrival", "poisson", "synthetic arrival process: poisson or constant")
	fs.StringVar(&f.prompt, "prompt-tokens", "", "prompt length: a number or a distribution, e.g. lognormal:p50=800,p99=6000")
	fs.StringVar(&f.think, "think-tokens", "", "thinking length: a number or a distribution, e.g. lognormal:p50=1500,p99=12000,max=30000")
	fs.StringVar(&f.answer, "answer-tokens", "", "answer length: a number or a distribution, e.g. uniform:100..400")
	fs.IntVar(&f.concurrency, "concurrency", 0, "closed loop: keep N requests in flight (arrival times are ignored)")
}

// requests reads or generates the requests. Warnings go to warn.
func (f *trafficFlags) load(cat *profiles.Catalog, seed int64, warn io.Writer) ([]workload.Request, error) {
	if f.concurrency < 0 {
		return nil, badInput(fmt.Errorf("--concurrency must be at least 1, got %d", f.concurrency))
	}
	if f.workload != "" {
		if f.prompt != "" || f.think != "" || f.answer != "" || f.rate != 0 {
			return nil, badInput(fmt.Errorf("--workload replays a log: it does not mix with --rate or --prompt/think/answer-tokens"))
		}
		reqs, stats, err := workload.ReadFileWithStats(f.workload)
		if err != nil {
			return nil, badInput(fmt.Errorf("--workload: %w", err))
		}
		if stats.Reordered > 0 {
			fmt.Fprintf(warn, "thinkcap: warning: %s: %d records were out of arrival order; replaying them sorted\n", f.workload, stats.Reordered)
		}
		if f.requests > 0 && f.requests < len(reqs) {
			reqs = reqs[:f.requests]
		}
		return reqs, nil
	}
	syn := workload.Synthetic{
		Requests: f.requests, RatePerS: f.rate, Arrival: f.arrival, Seed: uint64(seed),
	}
	if syn.Requests == 0 {
		syn.Requests = defaultRequests
	}
	if syn.RatePerS == 0 {
		syn.RatePerS = defaultRatePerS
		if f.concurrency > 0 {
			syn.RatePerS = math.Inf(1) // closed loop: arrival times are not used
		}
	}
	var err error
	if f.prompt != "" || f.think != "" || f.answer != "" {
		syn.Classes, err = lengthClass(f.prompt, f.think, f.answer)
	} else {
		var t profiles.Traffic
		if t, err = cat.TrafficProfile(f.traffic); err != nil {
			return nil, badInput(fmt.Errorf("--traffic: %w", err))
		}
		syn.Classes, err = workload.ClassesFromTraffic(t)
	}
	if err != nil {
		return nil, badInput(err)
	}
	reqs, err := syn.Generate()
	return reqs, badInput(err)
}

// lengthClass is the one class the --*-tokens flags describe.
func lengthClass(prompt, think, answer string) ([]workload.Class, error) {
	specs := []struct {
		flag, spec, def string
		dst             *workload.Dist
	}{
		{"--prompt-tokens", prompt, defaultPromptSpec, nil},
		{"--think-tokens", think, defaultThinkSpec, nil},
		{"--answer-tokens", answer, defaultAnswerSpec, nil},
	}
	c := workload.Class{Name: "synthetic", Share: 1}
	specs[0].dst, specs[1].dst, specs[2].dst = &c.Prompt, &c.Think, &c.Answer
	for _, s := range specs {
		spec := s.spec
		if spec == "" {
			spec = s.def
		}
		d, err := workload.ParseDist(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.flag, err)
		}
		*s.dst = d
	}
	return []workload.Class{c}, nil
}
