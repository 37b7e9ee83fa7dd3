package sim

import (
	"encoding/json"
	"fmt"

	"github.com/thinkcap/thinkcap/analysis"
)

// Summary is the summary JSON (docs/formats.md) of the simulation: `simulate` prints
// it, and it is the predicted side of verify and loadtest --predict.
func (rep *Report) Summary() analysis.Summary {
	var s analysis.Summary
	if rep.acc != nil {
		s = rep.acc.Summary("simulation", rep.DurationS)
	} else {
		s = analysis.Summarize("simulation", rep.Results, rep.DurationS)
	}
	c := rep.Config
	s.Config = analysis.Config{
		Model: c.Model.Name, GPU: c.GPU.Name, TensorParallelSize: c.TensorParallelSize, PipelineParallelSize: c.pipelineSize(),
		Replicas: c.Replicas, KVCacheDtype: c.KVCacheDtype, MaxNumSeqs: c.MaxNumSeqs,
		MaxNumBatchedTokens: c.MaxNumBatchedTokens, MaxModelLen: c.MaxModelLen,
		Speculative: speculativeString(c.Speculative), VLLMVersion: c.VLLMVersion,
		Kernels:    c.Kernels().String(),
		Checkpoint: c.Model.Checkpoint.Describe(c.Model.Name, c.Quantization),
	}
	s.Capacity = rep.Capacity.Summary()
	q := rep.ITL
	s.LatencyS.ITL = analysis.Stat{Mean: q.Mean, P50: q.P50, P90: q.P90, P99: q.P99}
	if s.Requests.Total == 0 {
		s.LatencyS.ITL = analysis.Stat{NoData: true} // no request, no gap
	}
	preemptions := rep.Preemptions
	s.Preemptions = &preemptions
	s.PrefixCacheHitRate = rep.prefixHitRate()
	s.KVUsage = analysis.KVUsage{Mean: rep.KVUsageMean, Peak: rep.KVUsagePeak}
	s.Running = analysis.Occupancy{Mean: rep.RunningMean, Peak: rep.RunningPeak}
	s.Waiting = analysis.Occupancy{Mean: rep.WaitingMean, Peak: rep.WaitingPeak}
	return s
}

// Summary is the capacity part of the summary JSON.
func (c Capacity) Summary() analysis.Capacity {
	return analysis.Capacity{
		NumGPUBlocks:    c.NumGPUBlocks,
		BlockSize:       c.BlockSize,
		KVBytesPerToken: c.KVBytesPerToken,
		KVCacheTokens:   c.KVCacheTokens,
		MaxConcurrency:  c.MaxConcurrency,
	}
}

// speculativeString renders a speculative config for summaries ("" when off).
func speculativeString(sc *SpeculativeConfig) string {
	if sc == nil {
		return ""
	}
	b, _ := json.Marshal(sc)
	return string(b)
}

// CapacityTable is `thinkcap capacity`'s table: the deployment, then the
// lines vLLM logs for its KV cache at startup.
func CapacityTable(cfg *Config, c Capacity) string {
	stages := ""
	if cfg.pipelineSize() > 1 { // the figures below are the poorest stage's GPU's (pipeline.go)
		stages = fmt.Sprintf(" (TP %d x PP %d; per GPU of the stage that sets the pool)", cfg.TensorParallelSize, cfg.pipelineSize())
	}
	return fmt.Sprintf("%s on %d x %s%s, kv-cache-dtype %s, max-model-len %d\n",
		cfg.Model.Name, cfg.GPUsPerReplica(), cfg.GPU.Name, stages, cfg.KVCacheDtype, cfg.MaxModelLen) + c.StartupLog(cfg.MaxModelLen)
}

// prefixHitRate is vLLM's prefix-cache hit rate (vllm:prefix_cache_hits
// over queries, in tokens) as the completed requests saw it at their first
// scheduling; nil when nothing was cached (prefix caching off, or no prefix
// in the traffic), so that runs without prefixes print as before.
func (rep *Report) prefixHitRate() *float64 {
	var prompt, cached float64
	if rep.acc != nil {
		prompt, cached = rep.acc.PromptTokens()
	} else {
		for i := range rep.Results {
			if r := &rep.Results[i]; r.OK() {
				prompt += float64(r.PromptTokens)
				cached += float64(r.CachedTokens)
			}
		}
	}
	if cached == 0 || prompt == 0 {
		return nil
	}
	rate := cached / prompt
	return &rate
}
