package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/thinkcap/thinkcap/profiles"
)

// Class is one kind of request in a synthetic workload: an effort mode and
// task category with its share of the requests and its length distributions.
type Class struct {
	Name     string
	Mode     string // low, medium, high, or empty
	Category string
	// Share is the class's weight; shares are normalised over all classes.
	Share float64
	// Prompt is the distribution of the whole prompt, shared prefix included.
	Prompt Dist
	// Think and Answer are the distributions of hidden reasoning and visible
	// answer tokens; nil means none.
	Think, Answer Dist
	// PrefixID and PrefixTokens give every request of the class a shared
	// prompt prefix (a system prompt) for prefix caching.
	PrefixID     string
	PrefixTokens int
}

// Synthetic describes a synthetic workload. Its zero value needs Requests,
// RatePerS and Classes set; the rest has usable defaults.
type Synthetic struct {
	// Requests is how many requests to generate.
	Requests int
	// RatePerS is the mean arrival rate in requests per second; +Inf puts
	// every arrival at 0. Closed-loop callers may ignore the arrival times.
	RatePerS float64
	// Arrival is the arrival process name (see ParseArrival); empty means
	// poisson.
	Arrival string
	// Seed selects the random streams: the same seed gives the same requests.
	Seed    uint64
	Classes []Class
}

// Validate reports every problem with the configuration.
func (s Synthetic) Validate() error {
	var errs []error
	if s.Requests < 1 {
		errs = append(errs, fmt.Errorf("requests: must be at least 1, got %d", s.Requests))
	}
	if _, err := ParseArrival(s.arrivalName(), s.RatePerS); err != nil {
		errs = append(errs, err)
	}
	if len(s.Classes) == 0 {
		errs = append(errs, errors.New("classes: need at least one class"))
	}
	total := 0.0
	for i, c := range s.Classes {
		cerrs := c.validate()
		if c.Prompt == nil {
			cerrs = append(cerrs, errors.New("prompt: missing distribution"))
		}
		for _, err := range cerrs {
			errs = append(errs, fmt.Errorf("%s: %w", c.label(i), err))
		}
		if c.Share > 0 && !math.IsInf(c.Share, 0) {
			total += c.Share
		}
	}
	if len(s.Classes) > 0 && total <= 0 {
		errs = append(errs, errors.New("classes: shares must not all be zero"))
	}
	return errors.Join(errs...)
}

func (s Synthetic) arrivalName() string {
	if s.Arrival == "" {
		return ArrivalPoisson
	}
	return s.Arrival
}

// validate lists the class's problems other than its distributions; the
// caller names the class.
func (c *Class) validate() []error {
	var errs []error
	if math.IsNaN(c.Share) || math.IsInf(c.Share, 0) || c.Share < 0 {
		errs = append(errs, fmt.Errorf("share: must be a non-negative number, got %g", c.Share))
	}
	if c.Mode != "" && !validMode(c.Mode) {
		errs = append(errs, fmt.Errorf("mode: must be one of %s, %s, %s, got %q", ModeLow, ModeMedium, ModeHigh, c.Mode))
	}
	if c.PrefixTokens < 0 || c.PrefixTokens >= MaxTokens {
		errs = append(errs, fmt.Errorf("prefix_tokens: must be in [0, %d), got %d", MaxTokens, c.PrefixTokens))
	}
	return errs
}

// label names class i in error messages.
func (c *Class) label(i int) string {
	if c.Name != "" {
		return fmt.Sprintf("class %q", c.Name)
	}
	return "class " + strconv.Itoa(i+1)
}

// Generate draws the requests, sorted by arrival, with ids "req-000001" on.
// Arrivals, the class choice and each class's prompt, think and answer
// lengths come from separate random streams (see NewStream), so changing one
// distribution changes neither the arrival times nor the other lengths.
// Prompts hold at least one token beyond the class's shared prefix.
func (s Synthetic) Generate() ([]Request, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("synthetic workload: %w", err)
	}
	arrival, err := ParseArrival(s.arrivalName(), s.RatePerS)
	if err != nil {
		return nil, err // Validate has seen it; kept for safety
	}
	times := Schedule(arrival, s.Requests, NewStream(s.Seed, "arrival"))

	cum := make([]float64, len(s.Classes))
	total := 0.0
	lastUsable := 0
	for i, c := range s.Classes {
		if c.Share > 0 {
			total += c.Share
			lastUsable = i
		}
		cum[i] = total
	}
	type streams struct{ prompt, think, answer *rand.Rand }
	perClass := make([]streams, len(s.Classes))
	for i := range s.Classes {
		perClass[i] = streams{
			prompt: NewStream(s.Seed, "prompt/"+strconv.Itoa(i)),
			think:  NewStream(s.Seed, "think/"+strconv.Itoa(i)),
			answer: NewStream(s.Seed, "answer/"+strconv.Itoa(i)),
		}
	}
	classRand := NewStream(s.Seed, "class")

	reqs := make([]Request, s.Requests)
	for i := range reqs {
		u := classRand.Float64() * total
		k := sort.Search(len(cum), func(j int) bool { return cum[j] > u })
		k = min(k, lastUsable) // u rounds up to total only by float error
		c, st := &s.Classes[k], perClass[k]

		minPrompt := 1
		if c.PrefixTokens > 0 {
			minPrompt = c.PrefixTokens + 1
		}
		reqs[i] = Request{
			ID:           fmt.Sprintf("req-%06d", i+1),
			ArrivalS:     times[i],
			PromptTokens: max(c.Prompt.Sample(st.prompt), minPrompt),
			ThinkTokens:  sampleOrZero(c.Think, st.think),
			AnswerTokens: sampleOrZero(c.Answer, st.answer),
			Mode:         c.Mode,
			Category:     c.Category,
			PrefixID:     c.PrefixID,
			PrefixTokens: c.PrefixTokens,
		}
	}
	return reqs, nil
}

func sampleOrZero(d Dist, r *rand.Rand) int {
	if d == nil {
		return 0
	}
	return d.Sample(r)
}

// ClassesFromTraffic turns a traffic profile's classes into Classes, parsing
// their distribution specs. Errors name the profile, the class and the field.
func ClassesFromTraffic(t profiles.Traffic) ([]Class, error) {
	var errs []error
	fail := func(i int, c *Class, err error) {
		errs = append(errs, fmt.Errorf("traffic profile %q: %s: %w", t.Name, c.label(i), err))
	}
	if len(t.Classes) == 0 {
		return nil, fmt.Errorf("traffic profile %q: no classes", t.Name)
	}
	classes := make([]Class, len(t.Classes))
	total := 0.0
	for i, tc := range t.Classes {
		c := &classes[i]
		*c = Class{
			Name: tc.Name, Mode: tc.Mode, Category: tc.Category, Share: tc.Share,
			PrefixID: tc.PrefixID, PrefixTokens: tc.PrefixTokens,
		}
		specs := []struct {
			field, spec string
			dst         *Dist
			required    bool
		}{
			{"prompt_tokens", tc.PromptTokens, &c.Prompt, true},
			{"think_tokens", tc.ThinkTokens, &c.Think, false},
			{"answer_tokens", tc.AnswerTokens, &c.Answer, false},
		}
		for _, sp := range specs {
			switch {
			case sp.spec != "":
				d, err := ParseDist(sp.spec)
				if err != nil {
					fail(i, c, fmt.Errorf("%s: %w", sp.field, err))
					continue
				}
				*sp.dst = d
			case sp.required:
				fail(i, c, fmt.Errorf("%s: missing distribution", sp.field))
			default:
				*sp.dst = Constant(0)
			}
		}
		for _, err := range c.validate() {
			fail(i, c, err)
		}
		if c.Share > 0 {
			total += c.Share
		}
	}
	if total <= 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("traffic profile %q: shares must not all be zero", t.Name))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return classes, nil
}
