package size

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// Speculative is one --speculative-config choice: off (Config nil) or a
// config with its acceptance rates and, for draft_model, the drafter.
type Speculative struct {
	Config     *sim.SpeculativeConfig
	DraftModel *profiles.Model
}

// Name is "off" or method/k, e.g. eagle3/3.
func (s Speculative) Name() string {
	if s.Config == nil {
		return "off"
	}
	return s.Config.Method + "/" + strconv.Itoa(s.Config.NumSpeculativeTokens)
}

// Space is the grid of deployments to try. Base holds every setting that
// does not vary (memory utilisation, batch token budget, block count
// override, ...); each list varies one setting, and an empty list keeps
// Base's value. StepOverride is merged over each GPU's step coefficients
// (--step-model).
type Space struct {
	Base          sim.Config
	StepOverride  profiles.StepCoefficients
	Models        []profiles.Model
	GPUs          []profiles.GPU
	TP            []int
	PP            []int // pipeline-parallel sizes (--pp)
	KVCacheDtypes []string
	Speculative   []Speculative
	MaxNumSeqs    []int // 0: vLLM's default for the GPU
}

// Candidate is one deployment of the grid, resolved (vLLM's defaults filled
// in); Config.Replicas is what the search varies. Err is why vLLM would
// refuse the configuration (a TP size that does not divide the heads, ...):
// the search reports such a candidate as failed, not as an error.
type Candidate struct {
	Config sim.Config
	Err    error
}

// Name identifies the candidate in tables and tie-breaks.
func (c Candidate) Name() string {
	cfg := &c.Config
	seqs := "default"
	if cfg.MaxNumSeqs > 0 {
		seqs = strconv.Itoa(cfg.MaxNumSeqs)
	}
	gpus := strconv.Itoa(cfg.TensorParallelSize)
	if cfg.PipelineParallelSize > 1 { // TP×PP, e.g. h100-sxm×2×2
		gpus += "×" + strconv.Itoa(cfg.PipelineParallelSize)
	}
	return fmt.Sprintf("%s %s×%s kv=%s spec=%s seqs=%s", modelName(&cfg.Model), cfg.GPU.Name,
		gpus, kvName(cfg.KVCacheDtype), c.speculative().Name(), seqs)
}

// modelName is the model's profile name, with the weight format of the
// quantized checkpoint its id named (qwen3-8b(awq)), so that a checkpoint
// and its base model, both candidates, keep apart.
func modelName(m *profiles.Model) string {
	if f := m.Checkpoint.Format; f != "" {
		return m.Name + "(" + f + ")"
	}
	return m.Name
}

func (c Candidate) speculative() Speculative {
	return Speculative{Config: c.Config.Speculative, DraftModel: c.Config.DraftModel}
}

// baselineKey groups a candidate with its baseline: same model, GPU, TP, PP
// and max_num_seqs.
func (c Candidate) baselineKey() string {
	cfg := &c.Config
	return fmt.Sprintf("%s|%s|%d|%d|%d", modelName(&cfg.Model), cfg.GPU.Name, cfg.TensorParallelSize, cfg.PipelineParallelSize, cfg.MaxNumSeqs)
}

// isBaseline: the default KV dtype and no speculative decoding.
func (c Candidate) isBaseline() bool {
	return kvName(c.Config.KVCacheDtype) == "auto" && c.Config.Speculative == nil
}

func kvName(dtype string) string {
	if dtype == "" {
		return "auto"
	}
	return dtype
}

// Candidates expands the grid in a fixed order (models, GPUs, TP, PP, KV
// dtype, speculative, max_num_seqs), so the same space always gives the same list.
func (s Space) Candidates() ([]Candidate, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	models := s.Models
	if len(models) == 0 {
		models = []profiles.Model{s.Base.Model}
	}
	gpus := s.GPUs
	if len(gpus) == 0 {
		gpus = []profiles.GPU{s.Base.GPU}
	}
	tps := orDefault(s.TP, s.Base.TensorParallelSize)
	pps := orDefault(s.PP, s.Base.PipelineParallelSize)
	kvs := orDefault(s.KVCacheDtypes, s.Base.KVCacheDtype)
	specs := s.Speculative
	if len(specs) == 0 {
		specs = []Speculative{{Config: s.Base.Speculative, DraftModel: s.Base.DraftModel}}
	}
	seqs := orDefault(s.MaxNumSeqs, s.Base.MaxNumSeqs)
	var out []Candidate
	for _, m := range models {
		for _, g := range gpus {
			for _, tp := range tps {
				for _, pp := range pps {
					for _, kv := range kvs {
						for _, sp := range specs {
							for _, ns := range seqs {
								cfg := s.Base
								cfg.Model, cfg.GPU = m, g
								cfg.Step = g.Step.Merge(s.StepOverride)
								cfg.TensorParallelSize, cfg.PipelineParallelSize = tp, pp
								cfg.KVCacheDtype, cfg.MaxNumSeqs = kv, ns
								cfg.Speculative, cfg.DraftModel = cloneSpec(sp.Config), sp.DraftModel
								c := Candidate{Config: cfg}
								// Resolve on a copy: a failure leaves the
								// unresolved values to name the candidate.
								resolved := cfg
								if c.Err = resolved.Resolve(); c.Err == nil {
									c.Config = resolved
								}
								out = append(out, c)
							}
						}
					}
				}
			}
		}
	}
	return out, nil
}

// Validate reports every malformed list entry. A deployment that cannot
// start (weights that do not fit, a TP size that does not divide the heads)
// is not an error here: the search reports it as a failed candidate.
func (s Space) Validate() error {
	var errs []error
	// A listed value is a value given: 0 is refused as vLLM refuses it,
	// not taken for the default (sim.CheckFlag).
	for _, tp := range s.TP {
		if err := sim.CheckFlag("tensor-parallel-size", float64(tp)); err != nil {
			errs = append(errs, inputerr.Field("TP", err))
		}
	}
	for _, pp := range s.PP {
		if err := sim.CheckFlag("pipeline-parallel-size", float64(pp)); err != nil {
			errs = append(errs, inputerr.Field("PP", err))
		}
	}
	for _, kv := range s.KVCacheDtypes {
		if !slices.Contains(sim.KVCacheDtypes, kv) {
			errs = append(errs, inputerr.Field("KVCacheDtypes", fmt.Errorf("unknown %q (valid: %s)", kv, strings.Join(sim.KVCacheDtypes, ", "))))
		}
	}
	for _, n := range s.MaxNumSeqs {
		if err := sim.CheckFlag("max-num-seqs", float64(n)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func orDefault[T any](list []T, def T) []T {
	if len(list) == 0 {
		return []T{def}
	}
	return list
}

// cloneSpec copies a speculative config so candidates share no memory.
func cloneSpec(sc *sim.SpeculativeConfig) *sim.SpeculativeConfig {
	if sc == nil {
		return nil
	}
	c := *sc
	c.AcceptanceRates = append([]float64(nil), sc.AcceptanceRates...)
	return &c
}
