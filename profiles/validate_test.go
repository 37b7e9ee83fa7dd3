package profiles

import (
	"math"
	"strings"
	"testing"
)

// validModel is a small dense model that passes Validate; tests break one
// field at a time.
func validModel() Model {
	return Model{
		Name: "m", Layers: 4, HiddenSize: 256, NumHeads: 8, NumKVHeads: 2, HeadDim: 32,
		IntermediateSize: 512, VocabSize: 1000, TotalParamsB: 0.01, ActiveParamsB: 0.01,
		MaxModelLen: 4096, WeightDtype: "bf16",
	}
}

func validStep() StepCoefficients {
	return StepCoefficients{
		WeightBandwidthEfficiency: 0.9, KVBandwidthEfficiency: 0.9, FP8KVReadPenalty: 1.08,
		ComputeEfficiency: 0.6, AttentionComputeEfficiency: 0.45, StepOverheadMs: 1,
		PerRequestOverheadUs: 5, InterconnectEfficiency: 0.7, AllReduceLatencyUs: 8,
	}
}

func validGPU() GPU {
	return GPU{Name: "g", MemoryGiB: 80, MemoryBandwidthGBps: 3000, BF16TFLOPS: 900,
		InterconnectGBps: 900, Step: validStep()}
}

func validTraffic() Traffic {
	return Traffic{Name: "t", Classes: []TrafficClass{{
		Name: "c", Mode: "low", Share: 1, PromptTokens: "100", ThinkTokens: "0", AnswerTokens: "50",
	}}}
}

func TestModelValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Model)
		want   []string // one substring per expected problem; none means valid
	}{
		{"valid", func(*Model) {}, nil},
		{"zero layers", func(m *Model) { m.Layers = 0 }, []string{`model "m": layers must be > 0`}},
		{"kv heads do not divide", func(m *Model) { m.NumKVHeads = 3 }, []string{"num_kv_heads (3) must divide num_heads (8)"}},
		{"mla ignores kv heads", func(m *Model) { m.KVLoraRank, m.QKRopeHeadDim, m.NumKVHeads = 512, 64, 3 }, nil},
		{"mla needs rope dim", func(m *Model) { m.KVLoraRank = 512 }, []string{"qk_rope_head_dim must be > 0"}},
		{"rope dim without mla", func(m *Model) { m.QKRopeHeadDim = 64 }, []string{"qk_rope_head_dim needs kv_lora_rank"}},
		{"active above total", func(m *Model) { m.ActiveParamsB = 1 }, []string{"active_params_b (1) must be <= total_params_b (0.01)"}},
		{"top-k above experts", func(m *Model) { m.NumExperts, m.ExpertsPerToken, m.MoEIntermediateSize = 4, 8, 64 },
			[]string{"experts_per_token (8) must be <= num_experts (4)"}},
		{"moe without top-k", func(m *Model) { m.NumExperts = 4 },
			[]string{"experts_per_token must be > 0", "moe_intermediate_size must be > 0"}},
		{"all-moe has no dense ffn", func(m *Model) {
			m.NumExperts, m.ExpertsPerToken, m.MoEIntermediateSize, m.IntermediateSize = 4, 2, 64, 0
		}, nil},
		{"expert fields on a dense model", func(m *Model) { m.ExpertsPerToken = 2 }, []string{"need num_experts > 0"}},
		{"dense without ffn", func(m *Model) { m.IntermediateSize = 0 }, []string{"intermediate_size must be > 0"}},
		{"too many sliding layers", func(m *Model) { m.SlidingWindow, m.SlidingWindowLayers = 128, 5 },
			[]string{"sliding_window_layers (5) must be <= layers (4)"}},
		{"sliding layers without window", func(m *Model) { m.SlidingWindowLayers = 2 },
			[]string{"sliding_window and sliding_window_layers must be set together"}},
		{"unknown dtype", func(m *Model) { m.WeightDtype = "fp6" }, []string{`weight_dtype "fp6" is not one of awq, bf16, `}},
		{"missing dtype", func(m *Model) { m.WeightDtype = "" }, []string{`weight_dtype "" is not one of`}},
		{"bad name", func(m *Model) { m.Name = "a, b" }, []string{"name must not contain spaces, commas"}},
		{"nan params", func(m *Model) { m.TotalParamsB = math.NaN() }, []string{"total_params_b must be > 0"}},
		{"several problems at once", func(m *Model) { m.Name, m.Layers, m.HiddenSize, m.VocabSize = "x", -1, 0, 0 },
			[]string{`model "x": layers must be > 0, got -1`, `model "x": hidden_size must be > 0`, `model "x": vocab_size must be > 0`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validModel()
			tt.modify(&m)
			checkProblems(t, m.Validate(), tt.want)
		})
	}
}

func TestGPUValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*GPU)
		want   []string
	}{
		{"valid", func(*GPU) {}, nil},
		{"no memory", func(g *GPU) { g.MemoryGiB = 0 }, []string{`gpu "g": memory_gib must be > 0, got 0`}},
		{"infinite bandwidth", func(g *GPU) { g.MemoryBandwidthGBps = math.Inf(1) }, []string{"memory_bandwidth_gbps must be > 0, got +Inf"}},
		{"negative price", func(g *GPU) { g.PricePerHour = -1 }, []string{"price_per_hour must be >= 0"}},
		{"efficiency above one", func(g *GPU) { g.Step.ComputeEfficiency = 1.2 }, []string{"step.compute_efficiency must be in (0, 1], got 1.2"}},
		{"efficiency of one is fine", func(g *GPU) { g.Step.KVBandwidthEfficiency = 1 }, nil},
		{"host all-reduce efficiency above one", func(g *GPU) { g.Step.HostAllReduceEfficiency = 1.5 }, []string{"step.host_all_reduce_efficiency must be in (0, 1], got 1.5"}},
		{"host all-reduce efficiency unset is fine", func(g *GPU) { g.Step.HostAllReduceEfficiency = 0 }, nil},
		{"zero overhead is fine", func(g *GPU) { g.Step.StepOverheadMs = 0 }, nil},
		{"negative overhead", func(g *GPU) { g.Step.AllReduceLatencyUs = -1 }, []string{"step.all_reduce_latency_us must be >= 0"}},
		{"missing step", func(g *GPU) { g.Step = StepCoefficients{} }, []string{
			"step.weight_bandwidth_efficiency", "step.kv_bandwidth_efficiency", "step.fp8_kv_read_penalty",
			"step.compute_efficiency", "step.attention_compute_efficiency", "step.interconnect_efficiency",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := validGPU()
			tt.modify(&g)
			checkProblems(t, g.Validate(), tt.want)
		})
	}
}

func TestTrafficValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Traffic)
		want   []string
	}{
		{"valid", func(*Traffic) {}, nil},
		{"no classes", func(tr *Traffic) { tr.Classes = nil }, []string{`traffic "t": classes must not be empty`}},
		{"zero share", func(tr *Traffic) { tr.Classes[0].Share = 0 }, []string{`traffic "t": class "c": share must be > 0`}},
		{"nan share", func(tr *Traffic) { tr.Classes[0].Share = math.NaN() }, []string{"share must be > 0, got NaN"}},
		{"bad mode", func(tr *Traffic) { tr.Classes[0].Mode = "extreme" }, []string{`mode "extreme" is not one of`}},
		{"empty specs", func(tr *Traffic) { tr.Classes[0].ThinkTokens, tr.Classes[0].AnswerTokens = "", " " },
			[]string{"think_tokens must not be empty", "answer_tokens must not be empty"}},
		{"prefix id without tokens", func(tr *Traffic) { tr.Classes[0].PrefixID = "sys" },
			[]string{"prefix_id and prefix_tokens must be set together"}},
		{"duplicate class", func(tr *Traffic) { tr.Classes = append(tr.Classes, tr.Classes[0]) },
			[]string{`class "c" is defined twice`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := validTraffic()
			tt.modify(&tr)
			checkProblems(t, tr.Validate(), tt.want)
		})
	}
}

func TestTrafficClassValidateNamesClass(t *testing.T) {
	c := TrafficClass{Name: "hi", Share: -1, PromptTokens: "1", ThinkTokens: "1", AnswerTokens: "1"}
	checkProblems(t, c.Validate(), []string{`class "hi": share must be > 0, got -1`})
}

// checkProblems asserts that err holds exactly one line per wanted problem,
// each containing its substring, and that every line is lowercase-led.
func checkProblems(t *testing.T, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("got %d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not contain %q:\n%v", w, err)
		}
	}
	for _, l := range lines {
		if l != strings.ToLower(l[:1])+l[1:] {
			t.Errorf("problem %q does not start lowercase", l)
		}
	}
}
