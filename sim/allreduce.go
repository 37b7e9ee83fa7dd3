package sim

// allReduce prices tensor-parallel all-reduces of a step: a fixed latency
// plus a time per token of the step. Through host memory NCCL has two
// protocols and picks, for every call, the one its cost model says is
// faster (nccl src/graph/tuning.cc): a low-latency one (LL, LL128: the
// data travels in flag-carrying stores the peer polls, so a call starts
// soon but each byte moves slowly) and Simple (bulk copies through the
// host's shared-memory buffers, slower to start, faster per byte). A
// decode step's all-reduces are a few kilobytes a token and take the
// first; a prefill's megabytes take the second. Without GPU peer-to-peer
// vLLM's custom all-reduce is off (custom_all_reduce.py) and every
// all-reduce is NCCL's. Over NVLink and between servers one protocol is
// modelled (small is zero).
type allReduce struct {
	fixedNs, nsPerToken           float64 // Simple, or the only protocol
	smallFixedNs, smallNsPerToken float64 // the low-latency protocol; 0 when not modelled
}

// ns is the all-reduces' time for a step of tokens: the cheaper protocol.
func (a allReduce) ns(tokens float64) float64 {
	t := a.fixedNs + a.nsPerToken*tokens
	if a.smallNsPerToken > 0 {
		t = min(t, a.smallFixedNs+a.smallNsPerToken*tokens)
	}
	return t
}

// scaled is a made calls times as often, moving volume times its values
// in all (layers; for a draft model, its layers × its hidden size over the
// target's): latencies scale with the calls, per-token times with the
// volume, for both protocols alike.
func (a allReduce) scaled(calls, volume float64) allReduce {
	return allReduce{a.fixedNs * calls, a.nsPerToken * volume, a.smallFixedNs * calls, a.smallNsPerToken * volume}
}

// layerAllReduce is one decoder layer's all-reduces: two of c's hidden
// state (bf16), after attention and after the MLP, plus the model's
// normalisation all-reduces (profiles.Model.NormAllReduces: two fp32 sums
// a token, all latency). A ring moves 2(tp−1)/tp of a buffer over each
// one-way link; across servers the network card paces it (nodes.go).
func layerAllReduce(c *Config) allReduce {
	tp := float64(c.TensorParallelSize)
	norms := float64(c.Model.NormAllReduces)
	calls := 2 + norms
	bytes := 2 * (tp - 1) / tp * (2*float64(c.Model.HiddenSize)*2 + norms*2*4)
	oneWay, extraUs := c.allReduceLink()
	a := allReduce{fixedNs: calls * (allReduceLatencyUs(c) + extraUs) * 1e3, nsPerToken: bytes / oneWay * 1e9}
	if eff := c.Step.HostSmallAllReduceEfficiency; c.GPU.AllReduceViaHost && eff > 0 && c.tpNodes() <= 1 {
		a.smallFixedNs = calls * c.Step.HostSmallAllReduceLatencyUs * 1e3
		a.smallNsPerToken = bytes / c.serverLinkAt(eff) * 1e9
	}
	return a
}

// linkEfficiency is the fraction of the one-way link bandwidth c's
// all-reduces reach: host_all_reduce_efficiency when NCCL stages them
// through host memory (profiles.GPU.AllReduceViaHost), else
// interconnect_efficiency.
func linkEfficiency(c *Config) float64 {
	if c.GPU.AllReduceViaHost && c.Step.HostAllReduceEfficiency > 0 {
		return c.Step.HostAllReduceEfficiency
	}
	return c.Step.InterconnectEfficiency
}

// allReduceLatencyUs is the fixed latency of one of c's all-reduces:
// host_all_reduce_latency_us when NCCL stages them through host memory
// (vllm/distributed/device_communicators/custom_all_reduce.py turns the
// custom all-reduce off without GPU peer-to-peer), else
// all_reduce_latency_us.
func allReduceLatencyUs(c *Config) float64 {
	if c.GPU.AllReduceViaHost && c.Step.HostAllReduceLatencyUs > 0 {
		return c.Step.HostAllReduceLatencyUs
	}
	return c.Step.AllReduceLatencyUs
}
