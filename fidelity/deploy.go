package fidelity

import (
	"errors"
	"fmt"
	"strings"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// Deployment is the key points share when they ran the same servers: the
// unit of leave-one-deployment-out cross-validation.
func (r *Record) Deployment() string {
	kv := r.KVCacheDtype
	if kv == "" {
		kv = "auto"
	}
	q := r.Quantization
	if q == "" {
		q = "bf16"
	}
	d := fmt.Sprintf("%s %s tp%d %s kv-%s", shortModel(r.Model), r.GPU, r.TP, q, kv)
	if r.PP > 1 {
		d += fmt.Sprintf(" pp%d", r.PP)
	}
	if r.DP > 1 {
		d += fmt.Sprintf(" dp%d", r.DP)
	}
	if r.EP {
		d += " ep"
	}
	return d
}

// config is the simulator's deployment for a record: the model's profile
// (a quantized checkpoint's id resolves to its base model's, with the
// format its name says when the record gives none), the GPU's, the
// record's parallelism, dtypes and engine flags, vLLM's defaults for the
// rest, prefix caching on unless the record says off, as vLLM's V1 default
// is (random benchmark prompts share nothing, but a preempted request's
// own blocks hit on its resume). skip says why the record cannot be
// replayed ("" when it can).
func config(cat *profiles.Catalog, r *Record) (cfg sim.Config, skip string) {
	m, err := cat.Model(r.Model)
	var unmodelled *profiles.UnmodelledFormatError
	var unknown *profiles.UnknownError
	switch {
	case errors.As(err, &unmodelled):
		return cfg, skipQuantization + "of " + r.Model + " not modelled: " + unmodelled.Checkpoint.Unmodelled
	case errors.As(err, &unknown) && unknown.Why != "":
		return cfg, skipNoModel + r.Model + ": " + unknown.Why
	case err != nil:
		return cfg, skipNoModel + r.Model
	}
	g, err := cat.GPU(r.GPU)
	if err != nil {
		return cfg, skipNoGPU + r.GPU
	}
	q := strings.ToLower(r.Quantization)
	switch q {
	case "", "bf16", "fp16", "none":
		q = ""
	case "fp4": // a source's name for the checkpoint's 4-bit format
		q = "nvfp4"
		if m.ExpertWeightDtype == "mxfp4" {
			q = "mxfp4"
		}
	case "fp8", "mxfp4", "nvfp4", "awq", "gptq":
	case "int4": // Kimi-K2's own checkpoint: the profile's INT4 experts
		if m.ExpertWeightDtype != "int4" {
			return cfg, skipQuantization + "int4 not modelled for " + r.Model
		}
		q = ""
	default:
		return cfg, skipQuantization + r.Quantization + " not modelled"
	}
	if m.ExpertWeightDtype == "mxfp4" && q == "mxfp4" {
		q = "" // gpt-oss ships its experts in mxfp4: the profile already says so
	}
	if r.DP > 1 {
		return cfg, skipDataParallel + " not modelled in one replay"
	}
	if !r.ClosedLoop() && r.RequestRate == 0 {
		return cfg, skipNoLoad
	}
	kv := strings.ToLower(r.KVCacheDtype)
	if kv == "auto" || kv == "bf16" {
		kv = ""
	}
	e := r.Engine
	cfg = sim.Config{
		Model: m, GPU: g, TensorParallelSize: r.TP, PipelineParallelSize: max(r.PP, 1),
		KVCacheDtype: kv, Quantization: q, GPUMemoryUtilization: e.GPUMemoryUtilization,
		MaxNumSeqs: e.MaxNumSeqs, MaxNumBatchedTokens: e.MaxNumBatchedTokens,
		MaxModelLen: e.MaxModelLen, BlockSize: e.BlockSize,
		DisablePrefixCaching: e.EnablePrefixCaching != nil && !*e.EnablePrefixCaching,
		EnableExpertParallel: r.EP,
		EnforceEager:         e.EnforceEager != nil && *e.EnforceEager,
		Step:                 g.Step, Replicas: 1,
	}
	cfg.VLLMVersion = vllmVersion(r)
	if offlineClient(r.Workload.Client) {
		cfg.EntryPoint = "llm"
	}
	cfg.Env = e.Env // the kernels it selects (sim/kernels.go)
	if e.AsyncScheduling != nil {
		async := *e.AsyncScheduling
		cfg.AsyncScheduling = &async
	}
	if e.AvailableKVGiB > 0 {
		cfg.KVCacheMemoryBytes = int64(e.AvailableKVGiB * (1 << 30))
	}
	if err := cfg.Resolve(); err != nil {
		return cfg, skipConfig + err.Error()
	}
	if _, err := sim.ComputeCapacity(&cfg); err != nil {
		// The source ran, so vLLM started: without a max_model_len of its
		// own, the model's full context may not fit thinkcap's capacity
		// where it fitted the server's; the workload's longest request is
		// what the replay needs.
		if e.MaxModelLen > 0 {
			return cfg, skipCapacity + err.Error()
		}
		cfg.MaxModelLen = longestRequest(r)
		if _, err := sim.ComputeCapacity(&cfg); err != nil {
			return cfg, skipCapacity + err.Error()
		}
	}
	return cfg, ""
}

// offlineClient reports whether a record's client drives vLLM's LLM class
// rather than a server: `vllm bench throughput` (and its predecessor,
// benchmarks/benchmark_throughput.py) builds an LLM from the engine
// arguments and generates every prompt in one call
// (vllm/benchmarks/throughput.py run_vllm).
func offlineClient(client string) bool {
	c := strings.ToLower(client)
	return strings.Contains(c, "bench throughput") || strings.Contains(c, "benchmark_throughput")
}

// longestRequest is the most tokens a request of the record's workload
// can hold (prompt plus output), rounded up to a 1024-token multiple.
func longestRequest(r *Record) int {
	most := func(l Length) float64 {
		switch {
		case l.Max > 0:
			return l.Max
		case l.Dist != "":
			return l.Mean + 6*l.SD
		}
		return 4 * l.Mean
	}
	n := most(r.Workload.InputLen) + most(r.Workload.OutputLen) + float64(r.Workload.PrefixLen)
	return (int(n)/1024 + 1) * 1024
}
