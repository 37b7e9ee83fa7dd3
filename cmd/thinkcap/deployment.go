package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/internal/inputerr"
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
	pp           int
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
	// flashInferSampler is --flashinfer-sampler.
	flashInferSampler bool
	expertParallel    bool // --enable-expert-parallel
	longPrefill       int
	stepModel         string
	replicas          int
	router            string
	seed              int64
	vllmVersion       string
	entryPoint        string
	apiServers        int               // --api-server-count
	async             bool              // --async-scheduling
	noAsync           bool              // --no-async-scheduling
	env               map[string]string // --env: the server's kernel-selecting environment
	enforceEager      bool              // --enforce-eager
	// maxCaptureSize is --max-cudagraph-capture-size, cudaGraphSizes its
	// name before vLLM 0.11.1 (--cuda-graph-sizes N).
	maxCaptureSize, cudaGraphSizes int
	// set is the flag set the flags were registered in: which were given
	// (a flag given as 0 is checked, not taken for vLLM's default).
	set *pflag.FlagSet
}

func (f *deploymentFlags) register(fs *pflag.FlagSet) {
	f.set = fs
	fs.StringVar(&f.profilesPath, "profiles", "", "extra GPU/model/traffic profiles: a YAML file or a directory of them")
	fs.StringVar(&f.model, "model", "qwen3-8b", "model profile name or Hugging Face id (see thinkcap profiles)")
	fs.StringVar(&f.gpu, "gpu", "h100-sxm", "GPU profile name (see thinkcap profiles)")
	fs.IntVarP(&f.tp, "tensor-parallel-size", "t", 1, "GPUs per pipeline stage (vLLM -tp)")
	fs.IntVar(&f.pp, "pipeline-parallel-size", 1, "pipeline stages per replica, the layers split over them; GPUs per replica = TP × PP (vLLM -pp)")
	fs.StringVar(&f.kvCacheDtype, "kv-cache-dtype", "auto", "KV cache dtype: auto, fp8, fp8_e4m3, fp8_e5m2, ...")
	fs.StringVar(&f.quantization, "quantization", "", "weight quantization: fp8, mxfp4, nvfp4, awq, gptq (default: the format the --model id ends in, e.g. -AWQ, else the checkpoint's)")
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
	fs.BoolVar(&f.flashInferSampler, "flashinfer-sampler", false, `the server samples with FlashInfer (VLLM_USE_FLASHINFER_SAMPLER=1; its log prints "Using FlashInfer for top-p & top-k sampling"): a smaller startup activation peak`)
	fs.BoolVar(&f.expertParallel, "enable-expert-parallel", false, "place each MoE layer's experts whole on the TP ranks instead of sharding every expert (vLLM --enable-expert-parallel)")
	fs.IntVar(&f.longPrefill, "long-prefill-token-threshold", 0, "cap on one request's prefill chunk per step (0: off)")
	fs.StringVar(&f.stepModel, "step-model", "", "YAML file overriding step-time coefficients (see docs/step-model.md)")
	fs.IntVar(&f.replicas, "replicas", 1, "replicas behind the router")
	fs.StringVar(&f.router, "router", "round-robin", "round-robin, least-requests or least-kv")
	fs.Int64Var(&f.seed, "seed", 0, "random seed")
	fs.StringVar(&f.vllmVersion, "vllm-version", sim.DefaultVLLMVersion, "vLLM release whose startup memory profile sizes the KV cache (and its defaults)")
	fs.StringVar(&f.entryPoint, "entry-point", "api_server", "how vLLM is started: api_server (vllm serve) or llm (the LLM class, vllm bench throughput: its own batch defaults, no API server, prompts tokenised in turn)")
	fs.IntVar(&f.apiServers, "api-server-count", 0, "API server processes per replica, sharing the requests' HTTP and tokenisation work (vLLM's default 1)")
	fs.BoolVar(&f.enforceEager, "enforce-eager", false, "no CUDA graphs: every step launches its kernels one by one, each at the host's launch cost (vLLM --enforce-eager)")
	fs.IntVar(&f.maxCaptureSize, "max-cudagraph-capture-size", 0, "largest step, in tokens, replayed from a CUDA graph; larger steps run eager (default: the release's, min(2 × max-num-seqs, 512) from vLLM 0.10, 512 before)")
	fs.IntVar(&f.cudaGraphSizes, "cuda-graph-sizes", 0, "--max-cudagraph-capture-size as vLLM 0.9-0.12 names it (one size)")
	fs.BoolVar(&f.async, "async-scheduling", false, "schedule the next step while the GPU runs this one (vLLM's default from 0.14; default: --vllm-version's)")
	fs.BoolVar(&f.noAsync, "no-async-scheduling", false, "schedule each step after the last one's outputs (vLLM's default before 0.14)")
	fs.StringToStringVar(&f.env, "env", nil, "the server's environment variables that pick its GEMM kernels, e.g. VLLM_MXFP4_USE_MARLIN=1 (docs/step-model.md: the kernel table)")
}

// options are the flags as the simulator's deployment options.
func (f *deploymentFlags) options() sim.DeploymentOptions {
	util := f.gpuMemUtil
	if !changed(f.set)("gpu-memory-utilization") {
		util = 0 // the --vllm-version's default (0.9 before 0.21)
	}
	return sim.DeploymentOptions{
		Model: f.model, GPU: f.gpu, SpeculativeConfig: f.specConfig, Acceptance: f.acceptance,
		StepModel: f.stepModel, Given: given(f.set),
		Engine: sim.Config{
			TensorParallelSize: f.tp, PipelineParallelSize: f.pp, KVCacheDtype: f.kvCacheDtype, Quantization: f.quantization,
			GPUMemoryUtilization: util, MaxNumSeqs: f.maxNumSeqs, MaxNumBatchedTokens: f.maxBatched,
			MaxModelLen: f.maxModelLen, BlockSize: f.blockSize, DisablePrefixCaching: !f.prefixCache,
			NumGPUBlocksOverride: f.blocks, KVCacheMemoryBytes: f.kvMemBytes, SchedulingPolicy: f.policy, FlashInferSampler: f.flashInferSampler,
			EnableExpertParallel:      f.expertParallel,
			LongPrefillTokenThreshold: f.longPrefill, Replicas: f.replicas, Router: f.router, Seed: f.seed,
			VLLMVersion: f.vllmVersion, EntryPoint: f.entryPoint, AsyncScheduling: f.asyncScheduling(),
			APIServerCount: f.apiServers, Env: f.env,
			EnforceEager: f.enforceEager, MaxCUDAGraphCaptureSize: f.captureSize(),
		},
	}
}

// captureSize is --max-cudagraph-capture-size or, given instead,
// --cuda-graph-sizes (both given: CheckValues refuses them).
func (f *deploymentFlags) captureSize() int {
	if changed(f.set)("cuda-graph-sizes") && !changed(f.set)("max-cudagraph-capture-size") {
		return f.cudaGraphSizes
	}
	return f.maxCaptureSize
}

// asyncScheduling is --async-scheduling or --no-async-scheduling as given,
// nil for --vllm-version's default (both given: CheckValues refuses them).
func (f *deploymentFlags) asyncScheduling() *bool {
	given := changed(f.set)
	switch {
	case given("no-async-scheduling") && f.noAsync:
		off := false
		return &off
	case given("async-scheduling"):
		on := f.async
		return &on
	}
	return nil
}

// changed reports which flags of fs were given; none when fs is nil.
func changed(fs *pflag.FlagSet) func(string) bool {
	return func(name string) bool { return fs != nil && fs.Changed(name) }
}

// catalog loads the embedded profiles plus the user's.
func (f *deploymentFlags) catalog() (*profiles.Catalog, error) {
	cat, err := profiles.Embedded()
	if err != nil {
		return nil, err
	}
	if f.profilesPath != "" {
		if err := cat.LoadPath(f.profilesPath); err != nil {
			return nil, inputerr.New(fmt.Errorf("--profiles: %w", err))
		}
	}
	return cat, nil
}

// validate checks what the flags say on their own, needing no profile
// (sim.DeploymentOptions.Validate), as bad input.
func (f *deploymentFlags) validate() error {
	o := f.options()
	return inputerr.New(o.Validate())
}

// checkValues checks the engine's values given against vLLM's bounds
// (sim.DeploymentOptions.CheckValues), as bad input.
func (f *deploymentFlags) checkValues() error {
	o := f.options()
	return inputerr.New(o.CheckValues())
}

// config builds the simulator's deployment from the flags. Errors are bad
// input.
func (f *deploymentFlags) config(cat *profiles.Catalog) (sim.Config, error) {
	o := f.options()
	cfg, err := o.Config(cat)
	return cfg, inputerr.New(err)
}
