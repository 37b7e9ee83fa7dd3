package logstats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/thinkcap/thinkcap/workload"
)

// ClassAll names the one class of requests that carry neither a mode nor a
// category.
const ClassAll = "all"

// FitReport is a traffic profile fitted from a log: one class per (effort
// mode × task category) seen, with its share of the requests and the fit of
// its prompt, think and answer tokens. It carries what a profiles.Traffic
// needs (the command writes it as one: analysis does not import profiles)
// and the fit quality the user should see.
type FitReport struct {
	Name     string     `json:"name"`
	Requests int        `json:"requests"`
	Classes  []ClassFit `json:"classes"`
	// Sessions is the fit of the log's multi-turn sessions: turns per
	// session and the think time between turns (seconds); absent when no
	// record has a session.
	Sessions *SessionsFit `json:"sessions,omitempty"`
}

// SessionsFit is a FitReport's sessions.
type SessionsFit struct {
	Sessions   int       `json:"sessions"`
	Turns      FitResult `json:"turns"`
	ThinkTimeS FitResult `json:"think_time_s"`
}

// ClassFit is one class of a FitReport.
type ClassFit struct {
	Name     string `json:"name"`
	Mode     string `json:"mode"`
	Category string `json:"category"`
	Count    int    `json:"count"`
	// Share is Count over the report's Requests.
	Share  float64   `json:"share"`
	Prompt FitResult `json:"prompt_tokens"`
	Think  FitResult `json:"think_tokens"`
	Answer FitResult `json:"answer_tokens"`
}

// TrafficFitter accumulates the token counts of requests, class by class,
// for FitTraffic. It keeps three numbers a request, never the records, so a
// caller can stream a log of millions of lines through Add. The zero value
// is ready to use.
type TrafficFitter struct {
	classes map[classKey]*classValues
	n       int
	// lastKey and last cache the previous request's class: logs often come
	// in runs of one class.
	lastKey classKey
	last    *classValues
	// turns counts each session's turns; thinkTimes are the think times of
	// later turns, in seconds.
	turns      map[string]int32
	thinkTimes []float64
}

// classValues are one class's token counts, as int32 (12 bytes a request)
// until they are fitted; the readers cap counts at workload.MaxTokens.
type classValues struct{ prompt, think, answer []int32 }

// Add counts one request.
func (f *TrafficFitter) Add(r *workload.Request) {
	k := keyOf(r)
	c := f.last
	if c == nil || k != f.lastKey {
		if f.classes == nil {
			f.classes = make(map[classKey]*classValues)
		}
		c = f.classes[k]
		if c == nil {
			c = &classValues{}
			f.classes[k] = c
		}
		f.lastKey, f.last = k, c
	}
	c.prompt = append(c.prompt, clampTokens(r.PromptTokens))
	c.think = append(c.think, clampTokens(r.ThinkTokens))
	c.answer = append(c.answer, clampTokens(r.AnswerTokens))
	f.n++
	if r.SessionID != "" {
		if f.turns == nil {
			f.turns = map[string]int32{}
		}
		f.turns[r.SessionID]++
		if f.turns[r.SessionID] > 1 && r.ThinkTimeS > 0 {
			f.thinkTimes = append(f.thinkTimes, r.ThinkTimeS)
		}
	}
}

// Len is the number of requests added.
func (f *TrafficFitter) Len() int { return f.n }

// Fit fits every class (see Fit) and returns them in the order of the
// stats report (mode by effort, then category). Fields are fitted
// concurrently. More requests may still be added and Fit called again.
func (f *TrafficFitter) Fit(name string, opt FitOptions) (FitReport, error) {
	minMass, err := opt.spikeMinMass()
	if err != nil {
		return FitReport{}, err
	}
	if f.n == 0 {
		return FitReport{}, errors.New("fit traffic: no requests")
	}
	keys := make([]classKey, 0, len(f.classes))
	for k := range f.classes {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareClasses)
	rep := FitReport{Name: name, Requests: f.n, Classes: make([]ClassFit, len(keys))}
	names := make(map[string]bool, len(keys))
	var wg sync.WaitGroup
	errs := make([]error, 3*len(keys))
	for i, k := range keys {
		c := f.classes[k]
		cf := &rep.Classes[i]
		*cf = ClassFit{Name: uniqueName(className(k), names), Mode: k.mode, Category: k.category,
			Count: len(c.prompt), Share: float64(len(c.prompt)) / float64(f.n)}
		fields := []struct {
			name   string
			values []int32
			dst    *FitResult
		}{
			{"prompt_tokens", c.prompt, &cf.Prompt},
			{"think_tokens", c.think, &cf.Think},
			{"answer_tokens", c.answer, &cf.Answer},
		}
		for j, fd := range fields {
			wg.Go(func() {
				sorted := make([]float64, len(fd.values))
				for i, v := range fd.values {
					sorted[i] = float64(v)
				}
				slices.Sort(sorted)
				res, err := fitSorted(sorted, minMass)
				if err != nil {
					errs[3*i+j] = fmt.Errorf("class %q: %s: %w", cf.Name, fd.name, err)
				}
				*fd.dst = res
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return FitReport{}, fmt.Errorf("fit traffic: %w", err)
	}
	if len(f.turns) > 0 {
		if rep.Sessions, err = f.fitSessions(minMass); err != nil {
			return FitReport{}, fmt.Errorf("fit traffic: sessions: %w", err)
		}
	}
	return rep, nil
}

// fitSessions fits turns per session and the think time (whole seconds,
// as synthetic sessions draw it; 10 s when no later turn says).
func (f *TrafficFitter) fitSessions(minMass float64) (*SessionsFit, error) {
	turns := make([]float64, 0, len(f.turns))
	for _, n := range f.turns {
		turns = append(turns, float64(n))
	}
	slices.Sort(turns)
	sf := &SessionsFit{Sessions: len(f.turns)}
	// Turns are a few small integers, which a continuous family bends:
	// their own quantile table, as the log has them.
	c, ok := fitEmpirical(turns, 0)
	if !ok {
		return nil, fmt.Errorf("turns: no distribution of %d sessions", len(turns))
	}
	sf.Turns = FitResult{Family: FamilyEmpirical, Params: c.Params, Spec: c.Spec, N: len(turns), Spikes: []Spike{}}
	var err error
	think := []float64{10}
	if len(f.thinkTimes) > 0 {
		think = make([]float64, len(f.thinkTimes))
		for i, v := range f.thinkTimes {
			think[i] = math.Round(v)
		}
		slices.Sort(think)
	}
	if sf.ThinkTimeS, err = fitSorted(think, minMass); err != nil {
		return nil, fmt.Errorf("think time: %w", err)
	}
	return sf, nil
}

// FitTraffic fits a traffic profile to reqs: see TrafficFitter.
func FitTraffic(name string, reqs []workload.Request, opt FitOptions) (FitReport, error) {
	var f TrafficFitter
	for i := range reqs {
		f.Add(&reqs[i])
	}
	return f.Fit(name, opt)
}

// className is "mode-category", or whichever of the two is set, or ClassAll.
// Profile names hold no spaces, commas or control characters (they are typed
// on command lines), so a category's are replaced by '_'.
func className(k classKey) string {
	name := ClassAll
	switch {
	case k.mode != "" && k.category != "":
		name = k.mode + "-" + k.category
	case k.mode != "":
		name = k.mode
	case k.category != "":
		name = k.category
	}
	return strings.Map(func(r rune) rune {
		if r == ',' || r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, name)
}

// uniqueName appends -2, -3, ... to a name already taken (a category called
// "low" next to the mode low, or two categories that differ only in
// replaced characters).
func uniqueName(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = name + "-" + strconv.Itoa(i)
	}
	taken[n] = true
	return n
}
