package verify

import (
	"fmt"
	"strings"

	"github.com/thinkcap/thinkcap/sim"
)

// Explicit reports whether the user set a deployment option, by its field
// in sim.DeploymentOptions ("Engine.KVCacheDtype", "Acceptance", ...; the
// command knows which flag sets it): what the user set wins over what the
// run's metadata says.
type Explicit func(field string) bool

// Configure sets cfg up like the server the run measured, from the scraped
// vllm:cache_config_info (num_gpu_blocks, block_size, cache_dtype,
// enable_prefix_caching, gpu_memory_utilization, one engine per replica),
// the served max_model_len, and the measured speculative acceptance. What
// the user set explicitly stays. It returns one note per setting taken from
// the run, for the report.
//
// A KV dtype set against the server's keeps the server's KV memory: the
// block count scales by the ratio of bytes per token, as vLLM would have
// sized the same memory (vllm/v1/core/kv_cache_utils.py
// get_num_blocks: available memory / page size).
func Configure(cfg *sim.Config, r *Run, explicit Explicit) (*Setup, error) {
	var notes []string
	note := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	if r.Meta.MaxModelLen > 0 && !explicit("Engine.MaxModelLen") {
		cfg.MaxModelLen = int(r.Meta.MaxModelLen)
		note("max_model_len %d from /v1/models", cfg.MaxModelLen)
	}
	if cc := r.Meta.CacheConfig; cc != nil {
		if cc.Engines > 1 && !explicit("Engine.Replicas") {
			cfg.Replicas = cc.Engines
			note("%d replicas: one per engine in vllm:cache_config_info", cc.Engines)
		}
		if cc.BlockSize > 0 && !explicit("Engine.BlockSize") {
			cfg.BlockSize = int(cc.BlockSize)
		}
		if cc.GPUMemoryUtilization > 0 && !explicit("Engine.GPUMemoryUtilization") {
			cfg.GPUMemoryUtilization = cc.GPUMemoryUtilization
		}
		if !explicit("Engine.DisablePrefixCaching") && cc.Labels["enable_prefix_caching"] != "" {
			cfg.DisablePrefixCaching = !cc.EnablePrefixCaching
		}
		serverDtype := normaliseDtype(cc.CacheDtype)
		if serverDtype != "" && !explicit("Engine.KVCacheDtype") {
			cfg.KVCacheDtype = serverDtype
		}
		if cc.NumGPUBlocks > 0 && !explicit("Engine.NumGPUBlocksOverride") && !explicit("Engine.KVCacheMemoryBytes") {
			blocks := int(cc.NumGPUBlocks)
			if serverDtype != "" && normaliseDtype(cfg.KVCacheDtype) != serverDtype {
				scaled, err := blocksForDtype(*cfg, serverDtype, blocks)
				if err != nil {
					return nil, err
				}
				note("%d KV blocks for --kv-cache-dtype %s: the server's %d %s blocks' memory", scaled, cfg.KVCacheDtype, blocks, serverDtype)
				blocks = scaled
			} else {
				note("%d KV blocks of %d tokens, kv cache dtype %s, from vllm:cache_config_info", blocks, cc.BlockSize, orAuto(serverDtype))
			}
			cfg.NumGPUBlocksOverride = blocks
		}
	}
	spec, specNotes := configureSpec(cfg, r, explicit("Acceptance"))
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	return &Setup{Notes: append(notes, specNotes...), Spec: spec}, nil
}

// Setup is what Configure took from the run.
type Setup struct {
	Notes []string `json:"notes,omitempty"`
	// Spec is nil unless the server ran speculative decoding.
	Spec *SpecAcceptance `json:"spec_decode,omitempty"`
}

// blocksForDtype converts a block count of the server's KV dtype into the
// count the same memory holds at cfg's dtype.
func blocksForDtype(cfg sim.Config, serverDtype string, blocks int) (int, error) {
	bytesPerToken := func(dtype string) (int64, error) {
		c := cfg
		c.KVCacheDtype, c.NumGPUBlocksOverride = dtype, blocks
		if err := c.Resolve(); err != nil {
			return 0, err
		}
		capacity, err := sim.ComputeCapacity(&c)
		if err != nil {
			return 0, err
		}
		return capacity.KVBytesPerToken, nil
	}
	server, err := bytesPerToken(serverDtype)
	if err != nil {
		return 0, err
	}
	ours, err := bytesPerToken(cfg.KVCacheDtype)
	if err != nil {
		return 0, err
	}
	return int(int64(blocks) * server / max(ours, 1)), nil
}

// normaliseDtype maps vLLM's cache_dtype label to the flag's spelling;
// bfloat16 and float16 caches are "auto" for a bf16/fp16 model.
func normaliseDtype(d string) string {
	switch strings.ToLower(d) {
	case "":
		return ""
	case "bfloat16", "float16", "half", "bf16", "fp16":
		return "auto"
	}
	return strings.ToLower(d)
}

func orAuto(d string) string {
	if d == "" {
		return "auto"
	}
	return d
}
