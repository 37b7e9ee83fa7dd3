package sim

import (
	"errors"
	"fmt"

	"github.com/thinkcap/thinkcap/profiles"
)

// DeploymentOptions describe a deployment as `vllm serve`'s flags do: the
// engine's values, with the model, GPU, speculative decoding and step model
// by name, before the catalog resolves them.
type DeploymentOptions struct {
	// Engine holds the engine flags as given (0: vLLM's default); its Model,
	// GPU, Step, Speculative and DraftModel are set by Config from the
	// fields below.
	Engine Config
	Model  string // --model: a profile name or Hugging Face id
	GPU    string // --gpu: a profile name
	// SpeculativeConfig is vLLM's --speculative-config JSON ("" off), with
	// --acceptance: a mean acceptance length or per-position rates.
	SpeculativeConfig, Acceptance string
	StepModel                     string // --step-model: a YAML file of step-time coefficients
	// Given reports whether the user set a field (by its name in these
	// options, e.g. "Engine.MaxNumSeqs"; the command knows which flag sets
	// it): a field given as 0 is checked, not taken for vLLM's default.
	// Nil: none was.
	Given func(field string) bool
}

func (o *DeploymentOptions) given(field string) bool { return o.Given != nil && o.Given(field) }

// Validate checks what the options say on their own, needing no profile:
// the engine's values (CheckValues), --speculative-config and --acceptance.
// It reports every problem.
func (o *DeploymentOptions) Validate() error {
	_, err := o.Speculative()
	return errors.Join(o.CheckValues(), err)
}

// CheckValues checks every numeric engine flag given against vLLM's bounds
// (CheckFlag: a flag given as 0 is refused where vLLM refuses 0) and the
// enum flags given.
func (o *DeploymentOptions) CheckValues() error {
	c := &o.Engine
	var errs []error
	// Each bound is named as vLLM names the flag (CheckFlag).
	for _, n := range []struct {
		field, flag string
		v           float64
	}{
		{"Engine.TensorParallelSize", "tensor-parallel-size", float64(c.TensorParallelSize)},
		{"Engine.PipelineParallelSize", "pipeline-parallel-size", float64(c.PipelineParallelSize)},
		{"Engine.GPUMemoryUtilization", "gpu-memory-utilization", c.GPUMemoryUtilization},
		{"Engine.MaxNumSeqs", "max-num-seqs", float64(c.MaxNumSeqs)},
		{"Engine.MaxNumBatchedTokens", "max-num-batched-tokens", float64(c.MaxNumBatchedTokens)},
		{"Engine.MaxModelLen", "max-model-len", float64(c.MaxModelLen)},
		{"Engine.BlockSize", "block-size", float64(c.BlockSize)},
		{"Engine.NumGPUBlocksOverride", "num-gpu-blocks-override", float64(c.NumGPUBlocksOverride)},
		{"Engine.KVCacheMemoryBytes", "kv-cache-memory-bytes", float64(c.KVCacheMemoryBytes)},
		{"Engine.LongPrefillTokenThreshold", "long-prefill-token-threshold", float64(c.LongPrefillTokenThreshold)},
		{"Engine.Replicas", "replicas", float64(c.Replicas)},
		{"Engine.APIServerCount", "api-server-count", float64(c.APIServerCount)},
		{"Engine.MaxCUDAGraphCaptureSize", "max-cudagraph-capture-size", float64(c.MaxCUDAGraphCaptureSize)},
		// The same size under its name before vLLM 0.11.1.
		{"Engine.CUDAGraphSizes", "cuda-graph-sizes", float64(c.MaxCUDAGraphCaptureSize)},
	} {
		if o.given(n.field) {
			errs = append(errs, CheckFlag(n.flag, n.v))
		}
	}
	for _, ch := range []struct{ field, flag, v string }{
		{"Engine.KVCacheDtype", "kv-cache-dtype", c.KVCacheDtype},
		{"Engine.Quantization", "quantization", c.Quantization},
		{"Engine.SchedulingPolicy", "scheduling-policy", c.SchedulingPolicy},
		{"Engine.Router", "router", c.Router},
		{"Engine.EntryPoint", "entry-point", c.EntryPoint},
	} {
		if o.given(ch.field) {
			errs = append(errs, CheckFlagChoice(ch.flag, ch.v))
		}
	}
	// Config.AsyncScheduling has two flags, as in vLLM; each is asked
	// for: "Engine.NoAsyncScheduling" is --no-async-scheduling.
	if o.given("Engine.AsyncScheduling") && o.given("Engine.NoAsyncScheduling") {
		errs = append(errs, errors.New("--async-scheduling and --no-async-scheduling contradict each other: give one"))
	}
	// --max-cudagraph-capture-size is --cuda-graph-sizes' successor
	// (vLLM 0.11.1): one value, given under either name.
	if o.given("Engine.MaxCUDAGraphCaptureSize") && o.given("Engine.CUDAGraphSizes") {
		errs = append(errs, errors.New("--max-cudagraph-capture-size and --cuda-graph-sizes set the same size: give one"))
	}
	if o.given("Engine.VLLMVersion") {
		_, err := ParseVLLMVersion(c.VLLMVersion)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Speculative parses --speculative-config with --acceptance (or the
// method's default acceptance); nil when off.
func (o *DeploymentOptions) Speculative() (*SpeculativeConfig, error) {
	sc, err := ParseSpeculativeConfig(o.SpeculativeConfig)
	switch {
	case err != nil:
		return nil, err
	case sc == nil && o.Acceptance != "":
		return nil, fmt.Errorf("--acceptance needs --speculative-config")
	case sc == nil:
		return nil, nil
	case o.Acceptance != "":
		if sc.AcceptanceRates, err = ParseAcceptance(o.Acceptance, sc.NumSpeculativeTokens); err != nil {
			return nil, err
		}
	default:
		sc.AcceptanceRates = DefaultAcceptance(sc.Method, sc.NumSpeculativeTokens)
	}
	return sc, nil
}

// Config is the simulator's deployment: the options validated, the names
// looked up in cat and vLLM's defaults filled in (Resolve). Errors name the
// flag at fault.
func (o *DeploymentOptions) Config(cat *profiles.Catalog) (Config, error) {
	var cfg Config
	if err := o.Validate(); err != nil {
		return cfg, err
	}
	model, err := cat.Model(o.Model)
	if err != nil {
		return cfg, fmt.Errorf("--model: %w", err)
	}
	gpu, err := cat.GPU(o.GPU)
	if err != nil {
		return cfg, fmt.Errorf("--gpu: %w", err)
	}
	step := gpu.Step
	if o.StepModel != "" {
		override, err := profiles.LoadStepCoefficients(o.StepModel)
		if err != nil {
			return cfg, fmt.Errorf("--step-model: %w", err)
		}
		step = step.Merge(override)
		// The user's own coefficients: the corpus's coverage no longer
		// says what they rest on (Caveats).
		gpu.Measured, gpu.StepSource = nil, stepModelSource+o.StepModel
	}
	cfg = o.Engine
	cfg.Model, cfg.GPU, cfg.Step = model, gpu, step
	cfg.Speculative, cfg.DraftModel = nil, nil
	sc, err := o.Speculative()
	if err != nil {
		return cfg, err
	}
	if sc != nil && sc.Method == SpecDraftModel {
		draft, err := cat.Model(sc.Model)
		if err != nil {
			return cfg, fmt.Errorf("--speculative-config: draft model: %w", err)
		}
		cfg.DraftModel = &draft
	}
	cfg.Speculative = sc
	if err := cfg.Resolve(); err != nil {
		return cfg, err
	}
	return cfg, nil
}
