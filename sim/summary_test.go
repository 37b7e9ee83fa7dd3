package sim

import (
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/simtest"
)

func TestReportSummary(t *testing.T) {
	m, g := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
	cfg := Config{Model: m, GPU: g, Step: g.Step, Replicas: 2, TensorParallelSize: 2, KVCacheDtype: "fp8"}
	cfg.Speculative = &SpeculativeConfig{Method: SpecNgram, NumSpeculativeTokens: 2}
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(cfg, simtest.MixedTraffic(t, 60, 4, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary()
	c := s.Config
	if c.Model != rep.Config.Model.Name || c.Model == "" || c.GPU != rep.Config.GPU.Name || c.GPU == "" ||
		c.TensorParallelSize != 2 || c.Replicas != 2 || c.KVCacheDtype != "fp8" ||
		c.MaxNumSeqs != rep.Config.MaxNumSeqs || c.MaxNumBatchedTokens != rep.Config.MaxNumBatchedTokens || c.MaxModelLen != rep.Config.MaxModelLen {
		t.Errorf("config %+v does not describe %s on %s, tp 2, 2 replicas, fp8", c, rep.Config.Model.Name, rep.Config.GPU.Name)
	}
	if !strings.Contains(c.Speculative, `"ngram"`) || !strings.Contains(c.Speculative, `"num_speculative_tokens":2`) {
		t.Errorf("speculative %q, want the ngram config's JSON", c.Speculative)
	}
	if s.Kind != "simulation" || s.Requests.Total != 60 {
		t.Errorf("kind %q over %d requests", s.Kind, s.Requests.Total)
	}
	if s.Capacity != rep.Capacity.Summary() || s.Capacity.NumGPUBlocks != rep.Capacity.NumGPUBlocks ||
		s.Capacity.NumGPUBlocks <= 0 || s.Capacity.KVBytesPerToken != rep.Capacity.KVBytesPerToken || s.Capacity.MaxConcurrency != rep.Capacity.MaxConcurrency {
		t.Errorf("capacity %+v, report's %+v", s.Capacity, rep.Capacity)
	}
	if q := rep.ITL; s.LatencyS.ITL != (analysis.Stat{Mean: q.Mean, P50: q.P50, P90: q.P90, P99: q.P99}) || s.LatencyS.ITL.Mean <= 0 {
		t.Errorf("ITL %+v, report's %+v", s.LatencyS.ITL, rep.ITL)
	}
	if s.KVUsage.Mean != rep.KVUsageMean || s.KVUsage.Peak != rep.KVUsagePeak || s.Running.Peak != rep.RunningPeak ||
		s.Waiting.Peak != rep.WaitingPeak || s.Preemptions == nil || *s.Preemptions != rep.Preemptions || s.KVUsage.Peak <= 0 {
		t.Errorf("server state %+v %+v %+v %d, report's %+v", s.KVUsage, s.Running, s.Waiting, s.Preemptions, rep)
	}

	if got := speculativeString(nil); got != "" {
		t.Errorf("speculativeString(nil) = %q", got)
	}
}
