package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// flagBound is the range vLLM accepts for one numeric engine flag.
type flagBound struct {
	min      float64 // smallest value accepted
	minOpen  bool    // min itself is refused
	max      float64 // largest value accepted; 0: no upper bound
	multiple int64   // values must be multiples of it; 0: any
}

// flagBounds are the bounds of the numeric engine flags Config mirrors, by
// `vllm serve` flag name. Resolve checks a Config against them after it has
// filled in the defaults (0 means vLLM's default in a Config); a command
// checks with CheckFlag every flag the user gave, so that a flag given as 0
// is refused as vLLM refuses it rather than taken for "unset".
var flagBounds = map[string]flagBound{
	// vllm/config/parallel.py ParallelConfig: tensor_parallel_size Field(ge=1).
	"tensor-parallel-size": {min: 1},
	// vllm/config/parallel.py ParallelConfig.pipeline_parallel_size: the
	// number of stages (world_size = pp × tp); under 1 there is no stage.
	"pipeline-parallel-size": {min: 1},
	// vllm/config/scheduler.py SchedulerConfig: max_num_seqs and
	// max_num_batched_tokens Field(ge=1). verify_max_model_len also
	// refuses max_num_batched_tokens < max_model_len with chunked prefill
	// off; vLLM V1, which thinkcap models, always chunks prefills, so only
	// its max_num_batched_tokens >= max_num_seqs applies (see Resolve).
	"max-num-seqs":           {min: 1},
	"max-num-batched-tokens": {min: 1},
	// vllm/config/model.py _get_and_verify_max_len: a positive context
	// length (vLLM's -1, "fit the KV cache", is not modelled).
	"max-model-len": {min: 1},
	// vllm/config/cache.py CacheConfig.block_size Field(gt=0); the CUDA
	// attention backends then take multiples of 16 (FlashAttention and
	// Triton MultipleOf(16), FlashInfer 16/32/64, the MLA kernels 32/64/128:
	// get_supported_kernel_block_sizes in vllm/v1/attention/backends/).
	"block-size": {min: 16, multiple: 16},
	// vllm/config/cache.py CacheConfig.gpu_memory_utilization Field(gt=0, le=1).
	"gpu-memory-utilization": {min: 0, minOpen: true, max: 1},
	// vllm/config/cache.py num_gpu_blocks_override and kv_cache_memory_bytes
	// (None: profile the memory): zero blocks or bytes hold no request.
	"num-gpu-blocks-override": {min: 1},
	"kv-cache-memory-bytes":   {min: 1},
	// vllm/config/scheduler.py long_prefill_token_threshold: 0 is off.
	"long-prefill-token-threshold": {min: 0},
	// vllm/entrypoints/cli/serve.py: --api-server-count, at least one
	// process.
	"api-server-count": {min: 1},
	// vllm/config/compilation.py max_cudagraph_capture_size (and 0.9-0.12's
	// --cuda-graph-sizes): a size of at least one token (0 is the
	// release's default in a Config).
	"max-cudagraph-capture-size": {min: 1},
	"cuda-graph-sizes":           {min: 1},
	// thinkcap's own: replicas behind the router.
	"replicas": {min: 1},
}

// flagChoices are the values thinkcap models of the engine's enum flags.
var flagChoices = map[string][]string{
	"kv-cache-dtype":    KVCacheDtypes,
	"quantization":      Quantizations,
	"scheduling-policy": SchedulingPolicies,
	"router":            Routers,
	"entry-point":       EntryPoints,
}

// CheckFlag reports whether v is a value vLLM accepts for the numeric
// engine flag name (without the dashes, e.g. "max-num-seqs"); the error
// names the flag.
func CheckFlag(name string, v float64) error {
	b, ok := flagBounds[name]
	if !ok {
		return fmt.Errorf("sim: no bound for flag --%s", name)
	}
	got := strconv.FormatFloat(v, 'f', -1, 64)
	switch {
	case b.multiple > 0 && !(v >= b.min && v == float64(int64(v)) && int64(v)%b.multiple == 0):
		return fmt.Errorf("--%s must be a positive multiple of %d, got %s", name, b.multiple, got)
	case b.max > 0 && !(v <= b.max && (v > b.min || !b.minOpen && v == b.min)):
		open := "["
		if b.minOpen {
			open = "("
		}
		return fmt.Errorf("--%s must be in %s%s, %s], got %s", name, open, fmtBound(b.min), fmtBound(b.max), got)
	case !(v >= b.min):
		return fmt.Errorf("--%s must be at least %s, got %s", name, fmtBound(b.min), got)
	}
	return nil
}

// CheckFlagChoice reports whether v is a value thinkcap models for the
// engine's enum flag name ("kv-cache-dtype", "quantization",
// "scheduling-policy", "router"); the error names the flag and the choices.
func CheckFlagChoice(name, v string) error {
	choices, ok := flagChoices[name]
	if !ok {
		return fmt.Errorf("sim: no choices for flag --%s", name)
	}
	if slices.Contains(choices, v) {
		return nil
	}
	shown := slices.DeleteFunc(slices.Clone(choices), func(c string) bool { return c == "" })
	return fmt.Errorf("--%s %q is not supported; use one of %s", name, v, strings.Join(shown, ", "))
}

func fmtBound(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
