package size

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// Query is a search as `thinkcap size` gives it: the candidate lists by
// name and the SLOs and prices as text. Options and Candidates turn it into
// Search's arguments, every error named by its flag.
type Query struct {
	Models, GPUs  []string
	TP            []int
	PP            []int // --pp: pipeline-parallel sizes
	KVCacheDtypes []string
	// Speculative is --speculative-config's list: off or vLLM's JSON,
	// comma-separated outside braces.
	Speculative string
	MaxNumSeqs  []int
	// Shared are the deployment flags every candidate shares: the engine's
	// values size does not vary, --acceptance (default: each method's) and
	// --step-model (merged over each GPU's coefficients).
	Shared sim.DeploymentOptions

	SLO               string
	MaxPreemptionRate float64
	MaxReplicas       int
	Prices            []string // gpu=USD per GPU-hour
}

// Options are the search's options, parsed and checked: every problem is
// reported, each naming its field.
func (q *Query) Options() (Options, error) {
	var problems inputerr.List
	if q.MaxReplicas < 1 { // Options takes 0 for its default
		problems.Fieldf("MaxReplicas", "must be at least 1, got %d", q.MaxReplicas)
	}
	slos, sloErr := analysis.ParseSLOs(q.SLO)
	problems.Field("SLO", sloErr)
	prices, err := ParsePrices(q.Prices)
	problems.Add(err)
	opts := Options{SLOs: slos, MaxPreemptionRate: q.MaxPreemptionRate, MaxReplicas: max(q.MaxReplicas, 0), Prices: prices}
	// A --slo that did not parse has said so: the SLOs are not missing too.
	problems.Add(opts.validate(sloErr == nil))
	return opts, problems.Err()
}

// Candidates expands the grid of the lists, looked up in cat. It reports
// every malformed entry.
func (q *Query) Candidates(cat *profiles.Catalog) ([]Candidate, error) {
	s, err := q.space(cat)
	if err != nil {
		return nil, err
	}
	return s.Candidates()
}

func (q *Query) space(cat *profiles.Catalog) (Space, error) {
	var errs []error
	s := Space{Base: q.base(), TP: q.TP, PP: q.PP, KVCacheDtypes: q.KVCacheDtypes, MaxNumSeqs: q.MaxNumSeqs}
	for _, name := range q.Models {
		m, err := cat.Model(strings.TrimSpace(name))
		if err != nil {
			errs = append(errs, inputerr.Field("Models", err))
			continue
		}
		s.Models = append(s.Models, m)
	}
	for _, name := range q.GPUs {
		g, err := cat.GPU(strings.TrimSpace(name))
		if err != nil {
			errs = append(errs, inputerr.Field("GPUs", err))
			continue
		}
		s.GPUs = append(s.GPUs, g)
	}
	for _, spec := range splitOutsideBraces(q.Speculative) {
		sp, err := q.speculative(cat, spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Speculative = append(s.Speculative, sp)
	}
	if q.Shared.StepModel != "" {
		override, err := profiles.LoadStepCoefficients(q.Shared.StepModel)
		if err != nil {
			errs = append(errs, inputerr.Field("StepModel", err))
		}
		s.StepOverride = override
	}
	if err := s.Validate(); err != nil {
		errs = append(errs, err)
	}
	return s, errors.Join(errs...)
}

// base is the engine's shared values, less those the grid varies (each
// candidate sets them) and the replicas and router the search sets.
func (q *Query) base() sim.Config {
	b := q.Shared.Engine
	b.TensorParallelSize, b.KVCacheDtype, b.MaxNumSeqs, b.Replicas, b.Router = 0, "", 0, 0, ""
	b.PipelineParallelSize = 0
	return b
}

// speculative parses one --speculative-config entry with --acceptance (or
// the method's default acceptance) and, for draft_model, the drafter.
func (q *Query) speculative(cat *profiles.Catalog, spec string) (Speculative, error) {
	sc, err := sim.ParseSpeculativeConfig(spec)
	if err != nil || sc == nil {
		return Speculative{}, err
	}
	if q.Shared.Acceptance != "" {
		if sc.AcceptanceRates, err = sim.ParseAcceptance(q.Shared.Acceptance, sc.NumSpeculativeTokens); err != nil {
			return Speculative{}, inputerr.Field("Acceptance", err)
		}
	} else {
		sc.AcceptanceRates = sim.DefaultAcceptance(sc.Method, sc.NumSpeculativeTokens)
	}
	sp := Speculative{Config: sc}
	if sc.Method == "draft_model" {
		draft, err := cat.Model(sc.Model)
		if err != nil {
			return sp, inputerr.Field("Speculative", fmt.Errorf("draft model: %w", err))
		}
		sp.DraftModel = &draft
	}
	return sp, nil
}

// splitOutsideBraces splits a list on the commas that are not inside a JSON
// object, so 'off,{"method":"ngram","num_speculative_tokens":3}' is two.
func splitOutsideBraces(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// ParsePrices reads --price gpu=usd entries, reporting every bad one.
func ParsePrices(items []string) (map[string]float64, error) {
	prices := map[string]float64{}
	var errs []error
	for _, item := range items {
		gpu, v, ok := strings.Cut(item, "=")
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || math.IsNaN(p) || math.IsInf(p, 0) || p <= 0 {
			errs = append(errs, inputerr.Field("Prices", fmt.Errorf("%q: want gpu=USD per GPU-hour, e.g. h100-sxm=2.5", item)))
			continue
		}
		prices[strings.TrimSpace(gpu)] = p
	}
	return prices, errors.Join(errs...)
}
