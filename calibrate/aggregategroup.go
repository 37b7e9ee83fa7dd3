package calibrate

import (
	"slices"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// apiServerCPUStartMs is where the fit starts the API server's work per
// request: a few milliseconds of Python a request (GPUStack's 1,000-request
// bursts to gpt-oss-20b on vLLM 0.11 took 4 to 5 s in all, at most 5 ms a
// request).
const apiServerCPUStartMs = 3

// hostSmallAllReduceStart is where the fit starts NCCL's low-latency
// protocol through host memory (sim/allreduce.go): 4% of the one-way
// PCIe link and 5 µs a call, about what the corpus's A100 PCIe TP 2
// decodes show (each token in a decode batch adds 0.4 to 1.0 ms a step
// beyond what TP 1 adds, 1.1 to 1.8 GB/s of all-reduce traffic, while
// their prefills move megabytes at ten times that). From zero the protocol
// would never be the cheaper and the fit could not see it.
const (
	hostSmallAllReduceStartEfficiency = 0.04
	hostSmallAllReduceStartLatencyUs  = 5
)

// newGroup starts a fit of the points idx from their GPUs' profile
// coefficients (prior, the first point's: efficiencies are fractions of
// each GPU's own datasheet, so a generation shares them).
func (f *AggregateFit) newGroup(name string, idx []int, start, prior profiles.StepCoefficients) *Group {
	seen := func(uses func(*sim.Config) bool) bool {
		return slices.ContainsFunc(idx, func(i int) bool { return uses(&f.obs[i].Config) })
	}
	viaHost := seen(func(cfg *sim.Config) bool { return cfg.GPU.AllReduceViaHost })
	triton := seen((*sim.Config).TritonAttention)
	mla := seen(func(cfg *sim.Config) bool { return cfg.Model.IsMLA() })
	blockFP8 := seen((*sim.Config).BlockFP8Linear)
	harmony := seen((*sim.Config).HarmonyChat)
	int4 := seen(func(cfg *sim.Config) bool { return cfg.ExpertDtype() == "int4" })
	network := seen((*sim.Config).SpansNodes)
	for _, s := range []*profiles.StepCoefficients{&start, &prior} {
		if s.ExpertBandwidthEfficiency == 0 {
			s.ExpertBandwidthEfficiency = s.WeightBandwidthEfficiency // its meaning when unset
		}
		if s.ExpertComputeEfficiency == 0 {
			s.ExpertComputeEfficiency = s.ComputeEfficiency
		}
		if s.FP8ExpertBandwidthEfficiency == 0 {
			s.FP8ExpertBandwidthEfficiency = s.ExpertBandwidthEfficiency
		}
		if s.FP8ExpertComputeEfficiency == 0 {
			s.FP8ExpertComputeEfficiency = s.ExpertComputeEfficiency
		}
		onlyWhereSeen(viaHost, &s.HostAllReduceEfficiency, s.InterconnectEfficiency)
		onlyWhereSeen(viaHost, &s.HostAllReduceLatencyUs, s.AllReduceLatencyUs)
		onlyWhereSeen(viaHost, &s.HostSmallAllReduceEfficiency, hostSmallAllReduceStartEfficiency)
		onlyWhereSeen(viaHost, &s.HostSmallAllReduceLatencyUs, hostSmallAllReduceStartLatencyUs)
		onlyWhereSeen(triton, &s.TritonAttentionComputeEfficiency, s.AttentionComputeEfficiency)
		onlyWhereSeen(int4, &s.INT4ExpertBandwidthEfficiency, s.ExpertBandwidthEfficiency)
		onlyWhereSeen(int4, &s.INT4ExpertComputeEfficiency, s.ExpertComputeEfficiency)
		onlyWhereSeen(mla, &s.MLALayerOverheadUs, 0)
		onlyWhereSeen(network, &s.NetworkEfficiency, s.InterconnectEfficiency)
		onlyWhereSeen(blockFP8, &s.BlockFP8ComputeEfficiency, s.ComputeEfficiency)
		if s.APIServerCPUMs == 0 {
			// From zero the API server's work never queues and the fit
			// cannot see it: start it where requests in a burst share a
			// few milliseconds each.
			s.APIServerCPUMs = apiServerCPUStartMs
		}
		onlyWhereSeen(harmony, &s.HarmonyAPIServerCPUMs, s.APIServerCPUMs)
	}
	// Overheads whose terms the group's points cannot have: held at 0.
	unseen := map[string]bool{"mla_layer_overhead_us": !mla, "api_server_harmony_cpu_ms": !harmony, "host_all_reduce_latency_us": !viaHost, "host_small_all_reduce_latency_us": !viaHost}
	g := &Group{Name: name, Obs: idx, x: ParamsOf(start), prior: ParamsOf(prior), free: make([]bool, len(Params)), Traces: map[int]*Trace{}}
	for k, p := range Params {
		// An efficiency of 0 has no term in the model (host_all_reduce_efficiency
		// where no GPU stages its all-reduces through host memory).
		g.free[k] = !slices.Contains(f.hold, p.Key) && !(p.Inverse() && g.prior[k] == 0) && !unseen[p.Key]
		if !g.free[k] {
			g.x[k] = g.prior[k]
		}
	}
	return g
}

// onlyWhereSeen sets a coefficient that only some deployments' points can
// see (host-staged all-reduce, Triton attention, INT4 experts, MLA layers,
// block-scaled FP8, the Harmony renderer, servers linked by a network): 0
// when the group has no such point, which leaves it out of the fit and the
// file, else its value, or unset's (what it means when unset) where it has
// none.
func onlyWhereSeen(seen bool, v *float64, unset float64) {
	switch {
	case !seen:
		*v = 0
	case *v == 0:
		*v = unset
	}
}
