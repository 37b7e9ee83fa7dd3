package sim

import (
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

// A replica within one server prices its all-reduces over NVLink as
// before; TP 16 on 8-GPU servers crosses their network cards: a decode
// step's all-reduce bandwidth is the card's, its latency NCCL's two
// network hops more, so the step is slower than the same TP 16 priced as
// one NVLink domain. TP 8 × PP 2 keeps the all-reduces in the server and
// sends only the stage transfer over the network.
func TestReplicaAcrossServers(t *testing.T) {
	decode := func(tp, pp int, perNode int) int64 {
		g := simtest.GPU(t, "h100-sxm")
		g.GPUsPerNode = perNode
		sm, _ := stepModelFor(t, Config{Model: simtest.Model(t, "deepseek-r1"), GPU: g, TensorParallelSize: tp, PipelineParallelSize: pp})
		return sm.StepTime(&Batch{NumReqs: 64, DecodeReqs: 64, DecodeTokens: 64, ContextTokens: 64 * 2000})
	}
	one, across := decode(16, 1, 0), decode(16, 1, 8)
	if across <= one {
		t.Errorf("TP 16 across two servers: %d ns, no slower than in one NVLink domain (%d ns)", across, one)
	}
	if a, b := decode(8, 1, 8), decode(8, 1, 0); a != b {
		t.Errorf("TP 8 on 8-GPU servers: %d ns, want the one-server price %d ns", a, b)
	}
	if a, b := decode(8, 2, 8), decode(8, 2, 0); a <= b {
		t.Errorf("TP 8 × PP 2 across servers: %d ns, want its stage transfer slower than within one (%d ns)", a, b)
	}
}

// The cross-server latency is NCCL's tree over the network: 2 × ⌈log2
// nodes⌉ hops; the bandwidth is the card's at network_efficiency.
func TestAllReduceLinkAcrossServers(t *testing.T) {
	g := simtest.GPU(t, "h100-sxm")
	g.GPUsPerNode, g.NetworkGBps = 8, 50
	c := Config{GPU: g, TensorParallelSize: 32}
	c.Step.InterconnectEfficiency, c.Step.NetworkEfficiency = 0.4, 0.8
	bps, us := c.allReduceLink()
	if want := 50e9 * 0.8; bps != want {
		t.Errorf("TP 32 on 8-GPU servers: %g B/s, want the card's 50 GB/s at 0.8, %g", bps, want)
	}
	if want := 2 * 2 * networkHopLatencyUs; us != want {
		t.Errorf("TP 32 (4 servers): %g µs more a all-reduce, want %g (two hops up and down)", us, want)
	}
	c.Step.NetworkEfficiency = 0
	if bps, _ := c.allReduceLink(); bps != 50e9*0.4 {
		t.Errorf("network_efficiency unset: %g B/s, want interconnect_efficiency's %g", bps, 50e9*0.4)
	}
	c.TensorParallelSize = 8
	if bps, us := c.allReduceLink(); us != 0 || bps != 900e9/2*0.4 {
		t.Errorf("TP 8 in one server: %g B/s, %g µs more; want NVLink's one way at interconnect_efficiency and nothing more", bps, us)
	}
}

// A profile that says how many GPUs a server holds but not its network
// cannot price a replica beyond it, and says so.
func TestReplicaAcrossServersNeedsTheNetwork(t *testing.T) {
	g := simtest.GPU(t, "h100-sxm")
	g.GPUsPerNode, g.NetworkGBps = 8, 0
	c := refResolved(t, Config{Model: simtest.Model(t, "deepseek-r1"), GPU: g, TensorParallelSize: 16})
	if _, err := NewStepModel(&c); err == nil {
		t.Error("TP 16 on 8-GPU servers without network_gbps: no error")
	}
}
