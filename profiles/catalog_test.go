package profiles

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func embeddedCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := Embedded()
	if err != nil {
		t.Fatalf("Embedded: %v", err)
	}
	return c
}

func TestEmbeddedNames(t *testing.T) {
	c := embeddedCatalog(t)
	wantGPUs := []string{"a100-40g", "a100-80g", "a100-80g-pcie", "b200", "b300", "gh200", "gh200-144g", "h100-nvl", "h100-pcie", "h100-sxm", "h20", "h200", "l4", "l40s", "mi300x"}
	if got := c.GPUNames(); !slices.Equal(got, wantGPUs) {
		t.Errorf("GPUNames = %v, want %v", got, wantGPUs)
	}
	wantModels := []string{
		"codellama-34b", "deepseek-r1", "deepseek-r1-distill-llama-70b", "deepseek-r1-distill-llama-8b",
		"deepseek-r1-distill-qwen-1.5b", "deepseek-r1-distill-qwen-14b", "deepseek-r1-distill-qwen-32b",
		"deepseek-r1-distill-qwen-7b", "glm-4.5-air", "glm-4.6", "gpt-oss-120b", "gpt-oss-20b", "kimi-k2.5",
		"llama-2-70b", "llama-2-7b", "llama-3.1-70b", "llama-3.1-8b", "magistral-small", "minimax-m2.5",
		"mixtral-8x7b", "qwen2-72b", "qwen2-7b", "qwen2.5-32b", "qwen2.5-3b", "qwen3-0.6b", "qwen3-1.7b",
		"qwen3-14b", "qwen3-235b-a22b", "qwen3-235b-a22b-instruct-2507", "qwen3-30b-a3b",
		"qwen3-32b", "qwen3-4b", "qwen3-8b", "qwen3-coder-30b-a3b",
	}
	if got := c.ModelNames(); !slices.Equal(got, wantModels) {
		t.Errorf("ModelNames = %v, want %v", got, wantModels)
	}
	if got := c.TrafficNames(); !slices.Equal(got, []string{"effort-modes"}) {
		t.Errorf("TrafficNames = %v, want [effort-modes]", got)
	}
}

// Loading validates already; this guards against a loader that stops doing so.
func TestEmbeddedProfilesValidate(t *testing.T) {
	c := embeddedCatalog(t)
	for name, g := range c.GPUs {
		if err := g.Validate(); err != nil {
			t.Errorf("gpu %s: %v", name, err)
		}
		if g.Name != name {
			t.Errorf("gpu key %q holds %q", name, g.Name)
		}
	}
	for name, m := range c.Models {
		if err := m.Validate(); err != nil {
			t.Errorf("model %s: %v", name, err)
		}
		if m.HFName == "" || m.Family == "" || m.Description == "" {
			t.Errorf("model %s: hf_name, family and description must be set", name)
		}
		if m.Reasoning != (m.ReasoningParser != "") {
			t.Errorf("model %s: reasoning %v but reasoning_parser %q", name, m.Reasoning, m.ReasoningParser)
		}
		if !m.IsMoE() && m.ActiveParamsB != m.TotalParamsB {
			t.Errorf("model %s: dense but active %v != total %v", name, m.ActiveParamsB, m.TotalParamsB)
		}
	}
	for name, tr := range c.Traffic {
		if err := tr.Validate(); err != nil {
			t.Errorf("traffic %s: %v", name, err)
		}
	}
}

func TestEmbeddedIsCopySafe(t *testing.T) {
	a := embeddedCatalog(t)
	a.GPUs["h100-sxm"] = GPU{Name: "changed"}
	delete(a.Models, "qwen3-8b")
	a.Traffic["effort-modes"].Classes[0].Share = 99
	b := embeddedCatalog(t)
	if b.GPUs["h100-sxm"].Name != "h100-sxm" {
		t.Error("changing one catalog's GPU changed the next Embedded()")
	}
	if _, ok := b.Models["qwen3-8b"]; !ok {
		t.Error("deleting from one catalog changed the next Embedded()")
	}
	if got := b.Traffic["effort-modes"].Classes[0].Share; got != 0.70 {
		t.Errorf("traffic class share = %v after changing another catalog, want 0.70", got)
	}
	tr, _ := b.TrafficProfile("effort-modes")
	tr.Classes[0].Share = 42
	if b.Traffic["effort-modes"].Classes[0].Share != 0.70 {
		t.Error("TrafficProfile result shares memory with the catalog")
	}
}

func TestModelSpotChecks(t *testing.T) {
	c := embeddedCatalog(t)
	tests := []struct {
		name  string
		check func(m Model) bool
		want  string
	}{
		{"qwen3-8b", func(m Model) bool {
			return m.Layers == 36 && m.NumKVHeads == 8 && m.HeadDim == 128 && m.NumHeads == 32 &&
				m.HiddenSize == 4096 && !m.TiedEmbeddings && m.MaxModelLen == 40960
		}, "36 layers, 32/8 heads of 128, hidden 4096, untied, 40,960 context"},
		{"qwen3-0.6b", func(m Model) bool { return m.TiedEmbeddings && m.HiddenSize == 1024 && m.HeadDim == 128 },
			"tied embeddings, head_dim decoupled from hidden/heads"},
		{"deepseek-r1", func(m Model) bool {
			return m.IsMLA() && m.KVLoraRank == 512 && m.QKRopeHeadDim == 64 && m.Layers == 61 &&
				m.NumExperts == 256 && m.ExpertsPerToken == 8 && m.SharedExperts == 1 &&
				m.MoEIntermediateSize == 2048 && m.IntermediateSize == 18432 && m.MTPLayers == 1 &&
				m.WeightDtype == "fp8" && m.HeadDim == 192
		}, "MLA 512+64, 61 layers, 256 experts top-8 + 1 shared, fp8, 1 MTP layer"},
		{"gpt-oss-20b", func(m Model) bool {
			return m.SlidingWindow == 128 && m.SlidingWindowLayers == 12 && m.Layers == 24 &&
				m.HeadDim == 64 && m.ExpertWeightDtype == "mxfp4" && m.IntermediateSize == 0
		}, "12 of 24 layers with a 128-token window, head_dim 64, mxfp4 experts"},
		{"gpt-oss-120b", func(m Model) bool {
			return m.SlidingWindowLayers == 18 && m.Layers == 36 && m.NumExperts == 128 && m.ExpertsPerToken == 4
		}, "18 of 36 sliding layers, 128 experts top-4"},
		{"deepseek-r1-distill-qwen-1.5b", func(m Model) bool { return m.NumKVHeads == 2 && m.MaxModelLen == 131072 },
			"2 KV heads, 131,072 context"},
		{"llama-3.1-8b", func(m Model) bool {
			return !m.Reasoning && m.ReasoningParser == "" && m.Layers == 32 && m.TotalParamsB == 8.03
		}, "not a reasoning model, Llama-8B architecture"},
		{"qwen3-30b-a3b", func(m Model) bool {
			return m.IsMoE() && m.ActiveParamsB < m.TotalParamsB && m.NumKVHeads == 4 && m.MoEIntermediateSize == 768
		}, "MoE, 4 KV heads, expert width 768"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := c.Model(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(m) {
				t.Errorf("want %s; got %+v", tt.want, m)
			}
		})
	}
}

func TestGPUSpotChecks(t *testing.T) {
	c := embeddedCatalog(t)
	tests := []struct {
		name                        string
		memGiB, bwGBps, fp8, icGBps float64
	}{
		{"h100-sxm", 79.19, 3350, 1979, 900},
		{"a100-80g", 79.15, 2039, 0, 600},     // no FP8 tensor cores
		{"a100-80g-pcie", 79.15, 1935, 0, 64}, // no NVLink: PCIe
		{"l40s", 44.39, 864, 733, 64},         // no NVLink: PCIe
		{"mi300x", 191.98, 5300, 2614.9, 896},
	}
	for _, tt := range tests {
		g, err := c.GPU(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if g.MemoryGiB != tt.memGiB || g.MemoryBandwidthGBps != tt.bwGBps || g.FP8TFLOPS != tt.fp8 || g.InterconnectGBps != tt.icGBps {
			t.Errorf("%s = %+v, want memory %v GiB, %v GB/s, fp8 %v, link %v", tt.name, g, tt.memGiB, tt.bwGBps, tt.fp8, tt.icGBps)
		}
	}
	// The H200 takes the H100's calibrated Hopper coefficients.
	h100, _ := c.GPU("h100-sxm")
	if h200, _ := c.GPU("h200"); h200.Step != h100.Step {
		t.Errorf("h200 step = %+v, want the h100's %+v", h200.Step, h100.Step)
	}
}

func TestLookups(t *testing.T) {
	c := embeddedCatalog(t)
	tests := []struct {
		kind, query, want string
	}{
		{"model", "qwen3-8b", "qwen3-8b"},
		{"model", "Qwen/Qwen3-8B", "qwen3-8b"}, // as passed to vllm serve
		{"model", "qwen/qwen3-8b", "qwen3-8b"},
		{"model", "QWEN3-8B", "qwen3-8b"},
		{"model", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek-r1-distill-qwen-7b"},
		{"model", "openai/gpt-oss-20b", "gpt-oss-20b"},
		{"model", "mistralai/Magistral-Small-2506", "magistral-small"},
		{"gpu", "H100-SXM", "h100-sxm"},
		{"traffic", "Effort-Modes", "effort-modes"},
	}
	for _, tt := range tests {
		var got string
		var err error
		switch tt.kind {
		case "model":
			var m Model
			m, err = c.Model(tt.query)
			got = m.Name
		case "gpu":
			var g GPU
			g, err = c.GPU(tt.query)
			got = g.Name
		case "traffic":
			var tr Traffic
			tr, err = c.TrafficProfile(tt.query)
			got = tr.Name
		}
		if err != nil || got != tt.want {
			t.Errorf("%s lookup %q = %q, %v; want %q", tt.kind, tt.query, got, err, tt.want)
		}
	}
}

func TestUnknownNameListsValidNames(t *testing.T) {
	c := embeddedCatalog(t)
	tests := []struct {
		lookup func() error
		prefix string
		some   string
	}{
		{func() error { _, err := c.Model("qwen9"); return err }, `unknown model "qwen9"; valid models: codellama-34b, deepseek-r1, `, "qwen3-8b"},
		{func() error { _, err := c.GPU("tpu"); return err }, `unknown gpu "tpu"; valid gpus: a100-40g, a100-80g, `, "mi300x"},
		{func() error { _, err := c.TrafficProfile("x"); return err }, `unknown traffic profile "x"; valid traffic profiles: effort-modes`, ""},
	}
	for _, tt := range tests {
		err := tt.lookup()
		var ue *UnknownError
		if !errors.As(err, &ue) {
			t.Fatalf("error %v is not an *UnknownError", err)
		}
		if !strings.HasPrefix(err.Error(), tt.prefix) || !strings.Contains(err.Error(), tt.some) {
			t.Errorf("error = %q, want prefix %q and %q listed", err, tt.prefix, tt.some)
		}
	}
}

func TestAmbiguousHFName(t *testing.T) {
	c := embeddedCatalog(t)
	m := c.Models["qwen3-8b"]
	m.Name = "qwen3-8b-short"
	m.MaxModelLen = 8192
	c.Models[m.Name] = m
	if _, err := c.Model("Qwen/Qwen3-8B"); err == nil || !strings.Contains(err.Error(), "qwen3-8b, qwen3-8b-short") {
		t.Errorf("ambiguous hf_name: err = %v, want the candidates named", err)
	}
	if got, err := c.Model("qwen3-8b-short"); err != nil || got.MaxModelLen != 8192 {
		t.Errorf("short name lookup = %v, %v", got.MaxModelLen, err)
	}
}

func TestZeroCatalog(t *testing.T) {
	var c Catalog
	if _, err := c.GPU("h100-sxm"); err == nil {
		t.Error("empty catalog found a GPU")
	}
	if err := c.LoadYAML("x.yaml", []byte(validGPUYAML)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GPU("my-gpu"); err != nil {
		t.Error(err)
	}
}
