package sim

// PrefillFloorSeconds is the least time c's GPUs can take to prefill a
// prompt of tokens tokens: the linear layers' FLOPs (2 × the active
// parameters a token passes through) at the tensor cores' peak, spread over
// every GPU of the replica, with no attention, no memory traffic and no
// overhead. A measured time to first token below it was not computed: the
// prompt came from the prefix cache.
func PrefillFloorSeconds(c *Config, tokens float64) float64 {
	m := &c.Model
	p := modelParams(m)
	peak := max(linearPeak(linearDtype(c), &c.GPU), linearPeak(expertDtype(c), &c.GPU))
	gpus := float64(max(c.TensorParallelSize, 1) * max(c.PipelineParallelSize, 1))
	return 2 * p.activeNonEmbedding(m) * tokens / (gpus * peak)
}
