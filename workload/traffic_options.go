package workload

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
)

// Defaults of the embedded run: three effort modes at a rate
// that keeps one H100 busy with Qwen3-8B without overloading it.
const (
	DefaultTraffic  = "effort-modes"
	DefaultRequests = 2000
	DefaultRatePerS = 10
)

// Length defaults for Prompt, Think and Answer when only some are given: a
// reasoning workload with a long thinking tail.
const (
	defaultPromptSpec = "lognormal:p50=800,p99=6000,max=16000"
	defaultThinkSpec  = "lognormal:p50=1500,p99=12000,max=30000"
	defaultAnswerSpec = "lognormal:p50=300,p99=1500,max=4096"
)

// defaultThinkTimeSpec is a session's seconds between a turn's answer and
// the next turn when ThinkTime is not given.
const defaultThinkTimeSpec = "10"

// ArrivalDayShaped replays a log's requests with new arrival times drawn
// from the log's own hourly rate profile (TrafficOptions.DayShaped).
const ArrivalDayShaped = "day-shaped"

// TrafficOptions choose the requests as a command's flags do: a log to
// replay, or synthetic traffic from a profile or length distributions.
type TrafficOptions struct {
	Workload string     // --workload: the log to replay; "": synthetic
	Log      LogOptions // how to read it
	Traffic  string     // --traffic: a profile name or a YAML file from thinkcap fit
	// Requests, RatePerS, Speedup and Concurrency are 0 when not given.
	Requests int     // --requests: synthetic ones, or the first N of the log
	RatePerS float64 // --rate
	// Arrival is --arrival's process (TrafficSpecs parses it); DayShaped
	// is --arrival day-shaped, a replay's new times on its hourly profile.
	Arrival   ArrivalProcess
	DayShaped bool
	Speedup   float64 // --speedup
	// Prompt, Think and Answer are the synthetic requests' lengths
	// (--prompt-tokens, --think-tokens, --answer-tokens; TrafficSpecs parses
	// them); nil: the default, or the profile's when all three are nil.
	Prompt, Think, Answer Dist
	Concurrency           int // --concurrency: closed loop
	// Turns and ThinkTime make synthetic traffic multi-turn sessions
	// (--turns, --think-time: distributions of turns per session and of
	// seconds between a turn's answer and the next turn, 10 when nil);
	// Turns nil: no sessions.
	Turns, ThinkTime Dist
	// Given reports whether the user set a field (by its name here, as
	// errors name it: "ThinkBudget"; the command knows which flag sets it);
	// nil: none was.
	Given func(field string) bool
}

func (o *TrafficOptions) given(field string) bool { return o.Given != nil && o.Given(field) }

func (o *TrafficOptions) lengths() bool { return o.Prompt != nil || o.Think != nil || o.Answer != nil }

// TrafficSpecs are TrafficOptions' arrival process and distributions as
// the user writes them (ParseArrivalProcess's or ArrivalDayShaped,
// ParseDist's); "" leaves one out.
type TrafficSpecs struct{ Arrival, Prompt, Think, Answer, Turns, ThinkTime string }

// ParseInto parses the specs into o's arrival process and distributions,
// each problem an inputerr.Error naming its field: of the lengths only the
// first bad one.
func (s TrafficSpecs) ParseInto(o *TrafficOptions) error {
	var errs inputerr.List
	o.Arrival, o.DayShaped = ArrivalProcess{}, s.Arrival == ArrivalDayShaped
	if s.Arrival != "" && !o.DayShaped {
		a, err := ParseArrivalProcess(s.Arrival)
		errs.Field("Arrival", err)
		o.Arrival = a
	}
	for _, d := range []struct {
		field, spec string
		dst         *Dist
	}{{"Prompt", s.Prompt, &o.Prompt}, {"Think", s.Think, &o.Think}, {"Answer", s.Answer, &o.Answer}} {
		if err := parseDistField(d.field, d.spec, d.dst); err != nil {
			errs.Add(err)
			break
		}
	}
	errs.Add(parseDistField("Turns", s.Turns, &o.Turns))
	errs.Add(parseDistField("ThinkTime", s.ThinkTime, &o.ThinkTime))
	return errs.Err()
}

// parseDistField parses spec into dst ("" leaves it nil), the error
// naming field.
func parseDistField(field, spec string, dst *Dist) error {
	*dst = nil
	if spec == "" {
		return nil
	}
	d, err := ParseDist(spec)
	if err != nil {
		return inputerr.Field(field, err)
	}
	*dst = d
	return nil
}

// Validate checks the options before any log is read: every problem. A
// flag left out takes its default; a flag given is checked, 0 included.
func (o *TrafficOptions) Validate() error {
	var errs []error
	if o.given("Requests") && o.Requests < 1 {
		errs = append(errs, inputerr.Fieldf("Requests", "must be at least 1, got %d", o.Requests))
	}
	if o.given("Concurrency") && o.Concurrency < 1 {
		errs = append(errs, inputerr.Fieldf("Concurrency", "must be at least 1, got %d", o.Concurrency))
	}
	// +Inf is allowed: every request at once, as vllm bench serve's
	// --request-rate inf.
	if o.given("RatePerS") && !(o.RatePerS > 0) {
		errs = append(errs, inputerr.Fieldf("RatePerS", "must be a positive number of requests per second, got %g", o.RatePerS))
	}
	if o.given("Speedup") && !(o.Speedup > 0) {
		errs = append(errs, inputerr.Fieldf("Speedup", "must be a positive factor, got %g", o.Speedup))
	}
	if _, err := o.Log.ReadOptions(); err != nil {
		errs = append(errs, err)
	}
	switch {
	case o.ThinkTime != nil && o.Turns == nil:
		errs = append(errs, inputerr.Fieldf("ThinkTime", "only matters with %s", inputerr.Name("Turns")))
	case o.Turns != nil && o.Workload != "":
		errs = append(errs, inputerr.Fieldf("Turns", "makes synthetic sessions: a %s log brings its own (session_id, turn)", inputerr.Name("Workload")))
	}
	return errors.Join(errs...)
}

// Load reads or generates the requests; the seed draws synthetic traffic
// and day-shaped arrivals. The log reader's warnings go to warn.
func (o *TrafficOptions) Load(cat *profiles.Catalog, seed uint64, warn io.Writer) ([]Request, error) {
	return o.LoadDraw(cat, seed, 0, warn)
}

// DrawSeed is the seed of a run's draw-th redraw of its traffic (draw 0
// is the run's own seed).
func DrawSeed(seed uint64, draw int) uint64 { return seed + uint64(draw)*0x9e3779b97f4a7c15 }

// LoadDraw is the draw-th draw of the traffic Load makes (draw 0 is
// Load's): synthetic traffic generated again from DrawSeed, a log
// resampled by blocks of time (BlockResample) before it is rescaled, so
// that its bursts survive and which ones the day holds is chance.
func (o *TrafficOptions) LoadDraw(cat *profiles.Catalog, seed uint64, draw int, warn io.Writer) ([]Request, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	seed = DrawSeed(seed, draw)
	if o.Workload != "" {
		return o.replay(seed, draw > 0, warn)
	}
	if o.DayShaped {
		return nil, inputerr.Fieldf("Arrival", "%s takes its shape from a log: give %s", ArrivalDayShaped, inputerr.Name("Workload"))
	}
	if o.Speedup != 0 {
		return nil, inputerr.Fieldf("Speedup", "rescales a replay: give %s", inputerr.Name("Workload"))
	}
	syn := Synthetic{Requests: o.Requests, RatePerS: o.RatePerS, Arrival: o.Arrival.Spec, Seed: seed}
	if syn.Requests == 0 {
		syn.Requests = DefaultRequests
	}
	if syn.RatePerS == 0 {
		syn.RatePerS = DefaultRatePerS
		if o.Concurrency > 0 {
			syn.RatePerS = math.Inf(1) // closed loop: arrival times are not used
		}
	}
	var err error
	var profileSessions *profiles.TrafficSessions
	if o.lengths() {
		syn.Classes, err = lengthClass(o.Prompt, o.Think, o.Answer)
	} else {
		var t profiles.Traffic
		if t, err = cat.LookupTraffic(o.Traffic); err != nil {
			return nil, inputerr.Field("Traffic", err)
		}
		syn.Classes, err = ClassesFromTraffic(t)
		profileSessions = t.Sessions
	}
	if err != nil {
		return nil, err
	}
	reqs, err := syn.Generate()
	if err != nil {
		return nil, err
	}
	turns, think := o.Turns, o.ThinkTime
	if turns != nil && think == nil {
		think, _ = ParseDist(defaultThinkTimeSpec)
	}
	if turns == nil && !o.lengths() && profileSessions != nil {
		// A profile fitted from a log with sessions makes sessions too.
		if turns, err = ParseDist(profileSessions.Turns); err == nil {
			think, err = ParseDist(profileSessions.ThinkTime)
		}
		if err != nil {
			return nil, inputerr.Field("Traffic", fmt.Errorf("sessions: %w", err))
		}
	}
	if turns != nil {
		MakeSessions(reqs, turns, think, seed)
	}
	return reqs, nil
}

// replay reads the --workload log and rescales its arrivals as asked:
// --speedup F, --rate R (the log's mean rate becomes R), or --arrival
// day-shaped (new times with the log's hourly profile, at --rate or the
// log's own rate).
func (o *TrafficOptions) replay(seed uint64, redraw bool, warn io.Writer) ([]Request, error) {
	if o.lengths() {
		return nil, inputerr.Fieldf("Workload", "replays a log's lengths: it does not mix with %s, %s or %s", inputerr.Name("Prompt"), inputerr.Name("Think"), inputerr.Name("Answer"))
	}
	if o.Arrival.Kind() != ArrivalPoisson && !o.DayShaped {
		return nil, inputerr.Fieldf("Arrival", "%s: a replay keeps the log's arrival times, rescales them (%s, %s) or reshapes them (%s %s)", o.Arrival.Spec, inputerr.Name("Speedup"), inputerr.Name("RatePerS"), inputerr.Name("Arrival"), ArrivalDayShaped)
	}
	if o.Speedup != 0 && o.RatePerS != 0 {
		return nil, inputerr.Fieldf("Speedup", "and %s both rescale the replay: give one", inputerr.Name("RatePerS"))
	}
	reqs, stats, err := o.Log.ReadAll(o.Workload, warn)
	if err != nil {
		return nil, inputerr.Field("Workload", err)
	}
	grow := o.DayShaped && o.Requests > len(reqs)
	if o.Requests > 0 && o.Requests < len(reqs) {
		reqs = reqs[:o.Requests]
	}
	if redraw {
		reqs = BlockResample(reqs, BlockS(reqs), seed)
	}
	switch {
	case o.DayShaped:
		rate := o.RatePerS
		if rate == 0 {
			if rate, err = LogRate(reqs); err != nil {
				return nil, inputerr.Fieldf("Arrival", "day-shaped: %w", err)
			}
		}
		times, err := DayShaped(reqs, stats, len(reqs), rate, seed)
		if grow && err == nil {
			// More requests than the log holds: the log's requests drawn
			// again (its mix of lengths, modes and prefixes), on the
			// log's hourly profile.
			var profile []float64
			if profile, err = DayShaped(reqs, stats, o.Requests, rate, seed); err == nil {
				reqs, err = resample(reqs, o.Requests, seed)
				times = profile
			}
		}
		if err != nil {
			return nil, inputerr.Fieldf("Arrival", "day-shaped: %w", err)
		}
		// The new times are sorted, as the requests are: the order stays.
		for i := range reqs {
			if reqs[i].After == "" {
				reqs[i].ArrivalS = times[i]
			}
		}
	case o.Speedup != 0:
		if err := Speedup(reqs, o.Speedup); err != nil {
			return nil, inputerr.Field("Speedup", err)
		}
	case o.RatePerS != 0:
		if _, err := RescaleToRate(reqs, o.RatePerS); err != nil {
			return nil, inputerr.Field("RatePerS", err)
		}
	}
	return reqs, nil
}

// lengthClass is the one class the lengths describe, a nil one taking its
// default.
func lengthClass(prompt, think, answer Dist) ([]Class, error) {
	c := Class{Name: "synthetic", Share: 1}
	for _, s := range []struct {
		given Dist
		def   string
		dst   *Dist
	}{
		{prompt, defaultPromptSpec, &c.Prompt},
		{think, defaultThinkSpec, &c.Think},
		{answer, defaultAnswerSpec, &c.Answer},
	} {
		*s.dst = s.given
		if s.given == nil {
			d, err := ParseDist(s.def)
			if err != nil {
				return nil, err
			}
			*s.dst = d
		}
	}
	return []Class{c}, nil
}

// resample draws n requests from a log's, with replacement, each with its
// own id (the original's with "~k"). Follow-ups name their predecessor, so
// a log with them is not resampled.
func resample(reqs []Request, n int, seed uint64) ([]Request, error) {
	for i := range reqs {
		if reqs[i].After != "" {
			return nil, inputerr.Fieldf("Requests", "%d is more than the log's %d, and its follow-up requests (after %q) cannot be drawn again", n, len(reqs), reqs[i].After)
		}
	}
	r := NewStream(seed, "resample")
	out := make([]Request, n)
	for i := range out {
		out[i] = reqs[r.IntN(len(reqs))]
		out[i].ID = out[i].ID + "~" + strconv.Itoa(i)
	}
	return out, nil
}
