package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// defaultTraffic is the traffic profile of the embedded run.
const defaultTraffic = workload.DefaultTraffic

// trafficFlags choose the requests: a log, or synthetic traffic.
type trafficFlags struct {
	log           logFlags
	workload      string
	traffic       string
	requests      int
	rates         loadList // --rate: one, or a sweep's list where sweepable
	arrival       string
	speedup       float64
	prompt        string
	think         string
	answer        string
	turns         string
	thinkTime     string
	concurrencies loadList // --concurrency likewise
	// sweepable marks the command that takes lists (loadtest).
	sweepable bool
	set       *pflag.FlagSet // where the flags were registered: which were given
}

// rate is --rate's (first) value; concurrency --concurrency's.
func (f *trafficFlags) rate() float64    { return f.rates.first() }
func (f *trafficFlags) concurrency() int { return int(f.concurrencies.first()) }

// sweep reports whether a list of rates or concurrencies was given.
func (f *trafficFlags) sweep() bool { return len(f.rates.vals) > 1 || len(f.concurrencies.vals) > 1 }

func (f *trafficFlags) register(fs *pflag.FlagSet) {
	f.set = fs
	fs.StringVar(&f.workload, "workload", "", "request log to replay (native records, OpenAI usage records or mapped JSONL/CSV, optionally .gz)")
	f.log.register(fs)
	fs.StringVar(&f.traffic, "traffic", defaultTraffic, "traffic profile for synthetic requests: a name (see thinkcap profiles) or a YAML file from thinkcap fit")
	fs.IntVar(&f.requests, "requests", 0, fmt.Sprintf("synthetic requests to generate, or the first N of --workload (default %d synthetic)", workload.DefaultRequests))
	rateHelp := fmt.Sprintf("synthetic arrival rate in requests/s (default %d)", workload.DefaultRatePerS)
	concHelp := "closed loop: keep N requests in flight (arrival times are ignored)"
	if f.sweepable {
		rateHelp += "; a list (1,2,4,8) sweeps them, one run each"
		concHelp += "; a list (1,8,64) sweeps them"
	}
	f.concurrencies.integer = true
	f.rates.sweepable, f.concurrencies.sweepable = f.sweepable, f.sweepable
	fs.Var(&f.rates, "rate", rateHelp)
	fs.StringVar(&f.arrival, "arrival", "poisson", "arrival process: poisson, constant, gamma:burstiness=B (as vllm bench serve; <1 is burstier), or with --workload day-shaped (the log's own hourly profile at --rate)")
	fs.Float64Var(&f.speedup, "speedup", 0, "replay the log F times faster (arrival times divided by F)")
	fs.StringVar(&f.prompt, "prompt-tokens", "", "prompt length: a number or a distribution, e.g. lognormal:p50=800,p99=6000")
	fs.StringVar(&f.think, "think-tokens", "", "thinking length: a number or a distribution, e.g. lognormal:p50=1500,p99=12000,max=30000")
	fs.StringVar(&f.answer, "answer-tokens", "", "answer length: a number or a distribution, e.g. uniform:100..400")
	fs.StringVar(&f.turns, "turns", "", "synthetic multi-turn sessions: turns per session, a number or a distribution, e.g. uniform:2..12 (sessions start at --rate divided by the mean turns)")
	fs.StringVar(&f.thinkTime, "think-time", "", "with --turns: the user's or tool's seconds after a turn's answer before the next, e.g. exponential:mean=20 (default 10)")
	fs.Var(&f.concurrencies, "concurrency", concHelp)
}

// options are the flags as workload's traffic options; an arrival process
// or a distribution that does not parse is left out (validate reports
// it).
func (f *trafficFlags) options() workload.TrafficOptions {
	o, _ := f.parse()
	return o
}

// parse is the flags as workload's traffic options, the arrival process
// and the distributions parsed (workload.TrafficSpecs), every problem of
// those returned.
func (f *trafficFlags) parse() (workload.TrafficOptions, error) {
	o := workload.TrafficOptions{
		Workload: f.workload, Log: f.log.options(), Traffic: f.traffic,
		Requests: f.requests, RatePerS: f.rate(), Speedup: f.speedup,
		Concurrency: f.concurrency(), Given: given(f.set),
	}
	specs := workload.TrafficSpecs{Arrival: f.arrival, Prompt: f.prompt, Think: f.think, Answer: f.answer, Turns: f.turns, ThinkTime: f.thinkTime}
	return o, specs.ParseInto(&o)
}

// validate checks the traffic flags before any log is read
// (workload.TrafficOptions.Validate), as bad input.
func (f *trafficFlags) validate() error {
	o, unparsed := f.parse()
	var errs []error
	for _, l := range []struct {
		flag string
		list *loadList
	}{{"--rate", &f.rates}, {"--concurrency", &f.concurrencies}} {
		if len(l.list.vals) <= 1 {
			continue
		}
		for _, v := range l.list.vals {
			p := o
			p.RatePerS, p.Concurrency = 0, 0
			if l.flag == "--rate" {
				p.RatePerS = v
			} else {
				p.Concurrency = int(v)
			}
			if err := p.Validate(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(f.rates.vals) > 1 && len(f.concurrencies.vals) > 0 || len(f.concurrencies.vals) > 1 && len(f.rates.vals) > 0 {
		errs = append(errs, fmt.Errorf("--rate and --concurrency: a sweep varies one of them"))
	}
	if len(errs) > 0 {
		return inputerr.New(errors.Join(append(errs, unparsed)...))
	}
	return inputerr.New(errors.Join(o.Validate(), unparsed))
}

// load reads or generates the requests. Warnings go to warn; errors are
// bad input.
func (f *trafficFlags) load(cat *profiles.Catalog, seed int64, warn io.Writer) ([]workload.Request, error) {
	o := f.options()
	reqs, err := o.Load(cat, uint64(seed), warn)
	return reqs, inputerr.New(err)
}

// lookupTraffic is a traffic profile by name, or the one profile of a
// YAML file (as `thinkcap fit` writes it).
func lookupTraffic(cat *profiles.Catalog, nameOrFile string) (profiles.Traffic, error) {
	return cat.LookupTraffic(nameOrFile)
}
