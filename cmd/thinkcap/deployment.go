package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// deploymentFlags are the flags that describe a deployment, named as
// `vllm serve` names them wherever the concept is the same.
type deploymentFlags struct {
	profilesPath string
	model        string
	gpu          string
	tp           int
	kvCacheDtype string
	quantization string
	gpuMemUtil   float64
	maxNumSeqs   int
	maxBatched   int
	maxModelLen  int
	blockSize    int
	prefixCache  bool
	specConfig   string
	acceptance   string
	blocks       int
	kvMemBytes   int64
	policy       string
	longPrefill  int
	stepModel    string
	replicas     int
	router       string
	seed         int64
	// set is the flag set the flags were registered in: which were given
	// (a flag given as 0 is checked, not taken for vLLM's default).
	set *pflag.FlagSet
}

func (f *deploymentFlags) register(fs *pflag.FlagSet) {
	f.set = fs
	fs.StringVar(&f.profilesPath, "profiles", "", "extra GPU/model/traffic profiles: a YAML file or a directory of them")
	fs.StringVar(&f.model, "model", "qwen3-8b", "model profile name or Hugging Face id (see thinkcap profiles)")
	fs.StringVar(&f.gpu, "gpu", "h100-sxm", "GPU profile name (see thinkcap profiles)")
	fs.IntVarP(&f.tp, "tensor-parallel-size", "t", 1, "GPUs per replica (vLLM -tp)")
	fs.StringVar(&f.kvCacheDtype, "kv-cache-dtype", "auto", "KV cache dtype: auto, fp8, fp8_e4m3, fp8_e5m2, ...")
	fs.StringVar(&f.quantization, "quantization", "", "weight quantization: fp8, mxfp4, nvfp4 (default: the checkpoint's)")
	fs.Float64Var(&f.gpuMemUtil, "gpu-memory-utilization", 0.92, "fraction of GPU memory vLLM may use")
	fs.IntVar(&f.maxNumSeqs, "max-num-seqs", 0, "most requests running at once (default: vLLM's for the GPU)")
	fs.IntVar(&f.maxBatched, "max-num-batched-tokens", 0, "token budget per engine step (default: vLLM's for the GPU)")
	fs.IntVar(&f.maxModelLen, "max-model-len", 0, "context length (default: the model's)")
	fs.IntVar(&f.blockSize, "block-size", 0, "KV block size in tokens (default: the attention backend's, 16; 64 for MLA)")
	fs.BoolVar(&f.prefixCache, "enable-prefix-caching", true, "prefix caching (vLLM's default: on); --enable-prefix-caching=false turns it off")
	fs.StringVar(&f.specConfig, "speculative-config", "", `speculative decoding as vLLM's JSON, e.g. '{"method":"eagle3","num_speculative_tokens":3}'`)
	fs.StringVar(&f.acceptance, "acceptance", "", "speculative acceptance: a mean acceptance length (2.4) or per-position rates (0.8,0.6,0.4)")
	fs.IntVar(&f.blocks, "num-gpu-blocks-override", 0, "KV blocks per replica, as vLLM logs them (always wins over the computed capacity)")
	fs.Int64Var(&f.kvMemBytes, "kv-cache-memory-bytes", 0, "KV cache memory per GPU in bytes (skips the memory model, as in vLLM)")
	fs.StringVar(&f.policy, "scheduling-policy", "fcfs", "fcfs or priority")
	fs.IntVar(&f.longPrefill, "long-prefill-token-threshold", 0, "cap on one request's prefill chunk per step (0: off)")
	fs.StringVar(&f.stepModel, "step-model", "", "YAML file overriding step-time coefficients (see README)")
	fs.IntVar(&f.replicas, "replicas", 1, "replicas behind the router")
	fs.StringVar(&f.router, "router", "round-robin", "round-robin, least-requests or least-kv")
	fs.Int64Var(&f.seed, "seed", 0, "random seed")
}

// catalog loads the embedded profiles plus the user's.
func (f *deploymentFlags) catalog() (*profiles.Catalog, error) {
	cat, err := profiles.Embedded()
	if err != nil {
		return nil, err
	}
	if f.profilesPath != "" {
		if err := cat.LoadPath(f.profilesPath); err != nil {
			return nil, badInput(fmt.Errorf("--profiles: %w", err))
		}
	}
	return cat, nil
}

// given reports whether the user set the flag.
func (f *deploymentFlags) given(name string) bool { return f.set != nil && f.set.Changed(name) }

// validate checks what the flags say on their own, needing no profile:
// the engine's values (checkValues), --speculative-config and
// --acceptance. It reports every problem, as bad input.
func (f *deploymentFlags) validate() error {
	_, err := f.speculative()
	return badInput(errors.Join(f.checkValues(), err))
}

// checkValues checks every numeric engine flag given against vLLM's bounds
// (sim.CheckFlag: a flag given as 0 is refused where vLLM refuses 0) and
// the enum flags given.
func (f *deploymentFlags) checkValues() error {
	var errs []error
	for _, n := range []struct {
		flag string
		v    float64
	}{
		{"tensor-parallel-size", float64(f.tp)},
		{"gpu-memory-utilization", f.gpuMemUtil},
		{"max-num-seqs", float64(f.maxNumSeqs)},
		{"max-num-batched-tokens", float64(f.maxBatched)},
		{"max-model-len", float64(f.maxModelLen)},
		{"block-size", float64(f.blockSize)},
		{"num-gpu-blocks-override", float64(f.blocks)},
		{"kv-cache-memory-bytes", float64(f.kvMemBytes)},
		{"long-prefill-token-threshold", float64(f.longPrefill)},
		{"replicas", float64(f.replicas)},
	} {
		if f.given(n.flag) {
			errs = append(errs, sim.CheckFlag(n.flag, n.v))
		}
	}
	for _, c := range []struct{ flag, v string }{
		{"kv-cache-dtype", f.kvCacheDtype},
		{"quantization", f.quantization},
		{"scheduling-policy", f.policy},
		{"router", f.router},
	} {
		if f.given(c.flag) {
			errs = append(errs, sim.CheckFlagChoice(c.flag, c.v))
		}
	}
	return badInput(errors.Join(errs...))
}

// speculative parses --speculative-config with --acceptance (or the
// method's default acceptance); nil when off.
func (f *deploymentFlags) speculative() (*sim.SpeculativeConfig, error) {
	sc, err := sim.ParseSpeculativeConfig(f.specConfig)
	switch {
	case err != nil:
		return nil, err
	case sc == nil && f.acceptance != "":
		return nil, fmt.Errorf("--acceptance needs --speculative-config")
	case sc == nil:
		return nil, nil
	case f.acceptance != "":
		if sc.AcceptanceRates, err = sim.ParseAcceptance(f.acceptance, sc.NumSpeculativeTokens); err != nil {
			return nil, err
		}
	default:
		sc.AcceptanceRates = sim.DefaultAcceptance(sc.Method, sc.NumSpeculativeTokens)
	}
	return sc, nil
}

// config builds the simulator's deployment from the flags. Errors are bad
// input.
func (f *deploymentFlags) config(cat *profiles.Catalog) (sim.Config, error) {
	var cfg sim.Config
	if err := f.validate(); err != nil {
		return cfg, err
	}
	model, err := cat.Model(f.model)
	if err != nil {
		return cfg, badInput(fmt.Errorf("--model: %w", err))
	}
	gpu, err := cat.GPU(f.gpu)
	if err != nil {
		return cfg, badInput(fmt.Errorf("--gpu: %w", err))
	}
	step := gpu.Step
	if f.stepModel != "" {
		override, err := profiles.LoadStepCoefficients(f.stepModel)
		if err != nil {
			return cfg, badInput(fmt.Errorf("--step-model: %w", err))
		}
		step = step.Merge(override)
	}
	cfg = sim.Config{
		Model: model, GPU: gpu,
		TensorParallelSize:        f.tp,
		KVCacheDtype:              f.kvCacheDtype,
		Quantization:              f.quantization,
		GPUMemoryUtilization:      f.gpuMemUtil,
		MaxNumSeqs:                f.maxNumSeqs,
		MaxNumBatchedTokens:       f.maxBatched,
		MaxModelLen:               f.maxModelLen,
		BlockSize:                 f.blockSize,
		DisablePrefixCaching:      !f.prefixCache,
		NumGPUBlocksOverride:      f.blocks,
		KVCacheMemoryBytes:        f.kvMemBytes,
		SchedulingPolicy:          f.policy,
		LongPrefillTokenThreshold: f.longPrefill,
		Step:                      step,
		Replicas:                  f.replicas,
		Router:                    f.router,
		Seed:                      f.seed,
	}
	sc, err := f.speculative()
	if err != nil {
		return cfg, badInput(err)
	}
	if sc != nil && sc.Method == sim.SpecDraftModel {
		draft, err := cat.Model(sc.Model)
		if err != nil {
			return cfg, badInput(fmt.Errorf("--speculative-config: draft model: %w", err))
		}
		cfg.DraftModel = &draft
	}
	cfg.Speculative = sc
	if err := cfg.Resolve(); err != nil {
		return cfg, badInput(err)
	}
	return cfg, nil
}
