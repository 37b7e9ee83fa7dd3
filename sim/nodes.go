package sim

import "math"

// This file is a replica larger than one server. A GPU profile's
// gpus_per_node is the GPUs one NVLink domain holds (an HGX board's 8, a
// quad-GH200 node's 4); a replica of TP × PP GPUs beyond it spans servers,
// which reach each other only through their network cards (network_gbps a
// GPU). vLLM runs it as it runs one node (Ray or multiprocessing across
// hosts), but its custom all-reduce is single-node only
// (vllm/distributed/device_communicators/custom_all_reduce.py: "Custom
// allreduce is disabled because this process group spans across nodes"),
// so a tensor-parallel group across servers all-reduces through NCCL over
// the network; vLLM's docs advise TP within a node and PP across nodes
// (docs/serving/parallelism_scaling.md).

// networkHopLatencyUs is the latency NCCL's own tuning model gives one
// network hop of its tree all-reduce with the low-latency protocol, the one
// it picks for small messages (nccl src/graph/tuning.cc hwLat, NET, Tree,
// LL: 5.0 µs).
const networkHopLatencyUs = 5.0

// tpNodes is how many servers one tensor-parallel group spans: 1 within
// an NVLink domain (or where the profile does not say its size).
func (c *Config) tpNodes() int {
	n := c.GPU.GPUsPerNode
	if n <= 0 || c.TensorParallelSize <= n {
		return 1
	}
	return (c.TensorParallelSize + n - 1) / n
}

// SpansNodes reports whether a replica of c takes more GPUs than one
// server of its GPU holds (a profile without gpus_per_node: never).
func (c *Config) SpansNodes() bool {
	n := c.GPU.GPUsPerNode
	return n > 0 && c.GPUsPerReplica() > n
}

// allReduceLink is the one-way bandwidth (bytes/s, at its efficiency) a
// ring all-reduce of c's TP group is paced by, and the latency (µs) each
// all-reduce adds to all_reduce_latency_us: the NVLink (or PCIe) link
// within a server; across servers the network card at network_efficiency,
// and NCCL's tree climbing log2(nodes) network hops up and as many down.
func (c *Config) allReduceLink() (oneWayBps, extraLatencyUs float64) {
	nodes := c.tpNodes()
	if nodes <= 1 {
		return c.serverLinkBps(), 0
	}
	return c.networkBps(), 2 * math.Ceil(math.Log2(float64(nodes))) * networkHopLatencyUs
}

// stageLink is the same for the transfer between pipeline stages: over the
// network where the replica spans servers (taken for every stage
// boundary, although only the ones between servers cross it).
func (c *Config) stageLink() (oneWayBps, extraLatencyUs float64) {
	if !c.SpansNodes() {
		return c.serverLinkBps(), 0
	}
	return c.networkBps(), networkHopLatencyUs
}

// serverLinkBps is one way of a GPU's link to its peers in one server
// (NVLink, or PCIe), at its efficiency.
func (c *Config) serverLinkBps() float64 { return c.serverLinkAt(linkEfficiency(c)) }

// serverLinkAt is one way of that link at efficiency eff.
func (c *Config) serverLinkAt(eff float64) float64 { return c.GPU.InterconnectGBps / 2 * 1e9 * eff }

// networkBps is what a collective between servers moves a second, one
// way: the slower of the server's own link and its network card, at
// network_efficiency (interconnect_efficiency where unset).
func (c *Config) networkBps() float64 {
	eff := c.Step.NetworkEfficiency
	if eff <= 0 {
		eff = c.Step.InterconnectEfficiency
	}
	return min(c.GPU.InterconnectGBps/2, c.GPU.NetworkGBps) * 1e9 * eff
}
