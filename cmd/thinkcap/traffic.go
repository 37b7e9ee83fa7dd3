package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

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
	log         logFlags
	workload    string
	traffic     string
	requests    int
	rate        float64
	arrival     string
	speedup     float64
	prompt      string
	think       string
	answer      string
	concurrency int
	set         *pflag.FlagSet // where the flags were registered: which were given
}

func (f *trafficFlags) register(fs *pflag.FlagSet) {
	f.set = fs
	fs.StringVar(&f.workload, "workload", "", "request log to replay (native records, OpenAI usage records or mapped JSONL/CSV, optionally .gz)")
	f.log.register(fs)
	fs.StringVar(&f.traffic, "traffic", defaultTraffic, "traffic profile for synthetic requests: a name (see thinkcap profiles) or a YAML file from thinkcap fit")
	fs.IntVar(&f.requests, "requests", 0, fmt.Sprintf("synthetic requests to generate, or the first N of --workload (default %d synthetic)", defaultRequests))
	fs.Float64Var(&f.rate, "rate", 0, fmt.Sprintf("synthetic arrival rate in requests/s (default %d)", defaultRatePerS))
	fs.StringVar(&f.arrival, "arrival", "poisson", "arrival process: poisson, constant, gamma:burstiness=B (as vllm bench serve; <1 is burstier), or with --workload day-shaped (the log's own hourly profile at --rate)")
	fs.Float64Var(&f.speedup, "speedup", 0, "replay the log F times faster (arrival times divided by F)")
	fs.StringVar(&f.prompt, "prompt-tokens", "", "prompt length: a number or a distribution, e.g. lognormal:p50=800,p99=6000")
	fs.StringVar(&f.think, "think-tokens", "", "thinking length: a number or a distribution, e.g. lognormal:p50=1500,p99=12000,max=30000")
	fs.StringVar(&f.answer, "answer-tokens", "", "answer length: a number or a distribution, e.g. uniform:100..400")
	fs.IntVar(&f.concurrency, "concurrency", 0, "closed loop: keep N requests in flight (arrival times are ignored)")
}

// validate checks the traffic flags before any log is read: every problem,
// as bad input. A flag left out takes its default (0 for --requests, --rate,
// --speedup and --concurrency means "not given"); a flag given is checked,
// 0 included.
func (f *trafficFlags) validate() error {
	given := func(name string) bool { return f.set != nil && f.set.Changed(name) }
	var errs []error
	if given("requests") && f.requests < 1 {
		errs = append(errs, fmt.Errorf("--requests must be at least 1, got %d", f.requests))
	}
	if given("concurrency") && f.concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency must be at least 1, got %d", f.concurrency))
	}
	// +Inf is allowed: every request at once, as vllm bench serve's
	// --request-rate inf.
	if given("rate") && !(f.rate > 0) {
		errs = append(errs, fmt.Errorf("--rate must be a positive number of requests per second, got %g", f.rate))
	}
	if given("speedup") && !(f.speedup > 0) {
		errs = append(errs, fmt.Errorf("--speedup must be a positive factor, got %g", f.speedup))
	}
	if f.arrival != arrivalDayShaped {
		if _, err := workload.ParseArrival(f.arrival, 1); err != nil {
			errs = append(errs, fmt.Errorf("--arrival: %w", err))
		}
	}
	if f.prompt != "" || f.think != "" || f.answer != "" {
		if _, err := lengthClass(f.prompt, f.think, f.answer); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := f.log.options(); err != nil {
		errs = append(errs, err)
	}
	return badInput(errors.Join(errs...))
}

// requests reads or generates the requests. Warnings go to warn.
func (f *trafficFlags) load(cat *profiles.Catalog, seed int64, warn io.Writer) ([]workload.Request, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	if f.workload != "" {
		return f.replay(seed, warn)
	}
	if f.arrival == arrivalDayShaped {
		return nil, badInput(fmt.Errorf("--arrival %s takes its shape from a log: give --workload", arrivalDayShaped))
	}
	if f.speedup != 0 {
		return nil, badInput(fmt.Errorf("--speedup rescales a replay: give --workload"))
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
		if t, err = lookupTraffic(cat, f.traffic); err != nil {
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

// arrivalDayShaped replays a log's requests with new arrival times drawn
// from the log's own hourly rate profile.
const arrivalDayShaped = "day-shaped"

// replay reads the --workload log and rescales its arrivals as asked:
// --speedup F, --rate R (the log's mean rate becomes R), or --arrival
// day-shaped (new times with the log's hourly profile, at --rate or the
// log's own rate).
func (f *trafficFlags) replay(seed int64, warn io.Writer) ([]workload.Request, error) {
	if f.prompt != "" || f.think != "" || f.answer != "" {
		return nil, badInput(fmt.Errorf("--workload replays a log's lengths: it does not mix with --prompt/think/answer-tokens"))
	}
	if f.arrival != "poisson" && f.arrival != arrivalDayShaped {
		return nil, badInput(fmt.Errorf("--arrival %s: a replay keeps the log's arrival times, rescales them (--speedup, --rate) or reshapes them (--arrival day-shaped)", f.arrival))
	}
	if f.speedup != 0 && f.rate != 0 {
		return nil, badInput(fmt.Errorf("--speedup and --rate both rescale the replay: give one"))
	}
	reqs, stats, err := f.log.readAll(f.workload, warn)
	if err != nil {
		return nil, fmt.Errorf("--workload: %w", err)
	}
	if f.requests > 0 && f.requests < len(reqs) {
		reqs = reqs[:f.requests]
	}
	switch {
	case f.arrival == arrivalDayShaped:
		rate := f.rate
		if rate == 0 {
			if rate, err = workload.LogRate(reqs); err != nil {
				return nil, badInput(fmt.Errorf("--arrival day-shaped: %w", err))
			}
		}
		times, err := workload.DayShaped(reqs, stats, len(reqs), rate, uint64(seed))
		if err != nil {
			return nil, badInput(fmt.Errorf("--arrival day-shaped: %w", err))
		}
		// The new times are sorted, as the requests are: the order stays.
		for i := range reqs {
			if reqs[i].After == "" {
				reqs[i].ArrivalS = times[i]
			}
		}
	case f.speedup != 0:
		if err := workload.Speedup(reqs, f.speedup); err != nil {
			return nil, badInput(fmt.Errorf("--speedup: %w", err))
		}
	case f.rate != 0:
		if _, err := workload.RescaleToRate(reqs, f.rate); err != nil {
			return nil, badInput(fmt.Errorf("--rate: %w", err))
		}
	}
	return reqs, nil
}

// lookupTraffic is a traffic profile by name, or the one profile of a
// YAML file (as `thinkcap fit` writes it).
func lookupTraffic(cat *profiles.Catalog, nameOrFile string) (profiles.Traffic, error) {
	if !strings.HasSuffix(nameOrFile, ".yaml") && !strings.HasSuffix(nameOrFile, ".yml") {
		return cat.TrafficProfile(nameOrFile)
	}
	var file profiles.Catalog
	if err := file.LoadPath(nameOrFile); err != nil {
		return profiles.Traffic{}, err
	}
	names := file.TrafficNames()
	if len(names) != 1 {
		return profiles.Traffic{}, fmt.Errorf("%s defines %d traffic profiles (%s); load it with --profiles and pick one by name", nameOrFile, len(names), strings.Join(names, ", "))
	}
	return file.Traffic[names[0]], nil
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
